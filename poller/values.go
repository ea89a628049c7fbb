package poller

import (
	"fmt"
	"html"
	"net/netip"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/sources/extract"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// The window of plausible publication dates. Feeds carry placeholder
// dates (0001-01-01, 9999-12-31, the Unix epoch) and clocks that are
// wrong by years; such a date would sort an article first or last forever
// and make freshness meaningless, so it is stored as unknown (NULL). Two
// days of future leave room for time zones written wrongly and for items
// scheduled a little ahead.
var earliestPublished = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)

const maxFuturePublished = 48 * time.Hour

// plausibleDate returns t when it lies in the plausible window, else nil.
func plausibleDate(t *time.Time, now time.Time) *time.Time {
	if t == nil || t.Before(earliestPublished) || t.After(now.Add(maxFuturePublished)) {
		return nil
	}
	return t
}

// DefaultMaxMarkdownBytes is the default cap on one article's stored
// Markdown.
const DefaultMaxMarkdownBytes = 1 << 20

// capMarkdown cuts md to at most max bytes, at the end of a line when one
// ends in the last quarter of what is kept (else at a character boundary),
// closes a code fence the cut left open, and ends with a marker saying
// the content was cut and how long it was.
func capMarkdown(md string, max int) string {
	if max <= 0 || len(md) <= max {
		return md
	}
	marker := fmt.Sprintf("\n\n*[Content cut here: the full text is %d bytes of Markdown, more than the %d bytes stored per article.]*", len(md), max)
	keep := max - len(marker) - len("\n```")
	if keep <= 0 {
		return strings.TrimSpace(marker)
	}
	for keep > 0 && !utf8.RuneStart(md[keep]) {
		keep--
	}
	cut := md[:keep]
	if nl := strings.LastIndexByte(cut, '\n'); nl >= keep*3/4 {
		cut = cut[:nl]
	}
	cut = strings.TrimRight(cut, " \t\n")
	if openFence(cut) {
		cut += "\n```"
	}
	return cut + marker
}

// openFence reports whether md ends inside a fenced code block, where the
// marker would read as code.
func openFence(md string) bool {
	open := false
	for line := range strings.Lines(md) {
		t := strings.TrimLeft(line, " ")
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			open = !open
		}
	}
	return open
}

// summaryMarkdown turns an item's summary into Markdown: a feed's summary
// is HTML and goes through the same conversion (and link checks) as
// content, so no markup, script or unsafe link is ever stored or served; a
// page's description is plain text and is escaped as such.
func summaryMarkdown(summary, baseURL string, isHTML bool) string {
	summary = strings.TrimSpace(summary)
	if summary == "" {
		return ""
	}
	if !isHTML {
		summary = html.EscapeString(summary)
	}
	md, err := extract.FragmentToMarkdown(summary, baseURL)
	if err != nil {
		return ""
	}
	return md
}

// sameSite reports whether two hosts belong to one registrable domain.
func sameSite(a, b string) bool {
	return fetch.RegistrableDomain(a) == fetch.RegistrableDomain(b)
}

// internalHost reports hosts that name a machine inside a network rather
// than a public site: loopback, private, link-local and other non-public
// addresses, and names such as localhost or *.internal.
func internalHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if ip, err := netip.ParseAddr(host); err == nil {
		return fetch.InternalAddress(ip) != ""
	}
	if !strings.Contains(host, ".") {
		return true // localhost, intranet names
	}
	for _, suffix := range []string{".localhost", ".local", ".internal", ".intranet", ".lan", ".home.arpa", ".localdomain"} {
		if strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}
