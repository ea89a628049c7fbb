package pipeline

import (
	"fmt"
	"html"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources/extract"
)

// values builds each item's article. Whatever path the content took, the
// values stored are checked here: Markdown capped, the summary converted
// to Markdown (never stored as the feed's HTML), implausible dates
// dropped.
func (p *Pipeline) values(src model.FeedSource, items []item) {
	now := time.Now()
	for i := range items {
		items[i].art = p.article(src, items[i], now)
	}
}

// article is the article stored for one item.
func (p *Pipeline) article(src model.FeedSource, it item, now time.Time) model.FeedArticle {
	fi, ex, limit := it.feed, it.ex, p.opts.MaxMarkdownBytes
	var summary string
	if ex.method == MethodSummary && src.SourceType != model.SourceWeb {
		// The body is the summary, converted already: the same Markdown.
		summary = ex.markdown
	} else {
		summary = summaryMarkdown(fi.Summary, it.link, src.SourceType != model.SourceWeb)
	}
	a := model.FeedArticle{
		WorkspaceID: src.WorkspaceID, ExternalURL: it.url, Title: strings.TrimSpace(fi.Title),
		Author: fi.Author, PublishedAt: plausibleDate(fi.PublishedAt, now),
		Summary:         capMarkdown(summary, limit),
		ContentMarkdown: capMarkdown(ex.markdown, limit), ExtractionMethod: ex.method, WordCount: ex.stats.WordCount,
		ContentTextHash: contentHash(ex.text, fi.Title, it.url), Revision: 1, ReadingTimeSeconds: ex.stats.ReadingTimeSeconds,
		InputTokens: ex.stats.InputTokens, OutputTokens: ex.stats.OutputTokens, QualityScore: ex.stats.Quality,
		InputTokensO200k: ex.stats.InputTokensO200k, OutputTokensO200k: ex.stats.OutputTokensO200k,
		Language: firstNonEmpty(ex.meta.Language, fi.Language),
	}
	if fi.GUID != "" {
		g := fi.GUID
		a.ExternalID = &g
	}
	if src.SourceType == model.SourceWeb {
		// A web item is synthesised from the page's own metadata alone
		// ("Untitled", no summary, no date when the page names none); the
		// body's headings are no substitute.
		return a
	}
	// Fill what the feed left out from the page's own metadata.
	if a.Title == "" || a.Title == "Untitled" {
		if ex.meta.Title != "" {
			a.Title = ex.meta.Title
		}
	}
	if a.Author == "" {
		a.Author = ex.meta.Author
	}
	if a.PublishedAt == nil {
		a.PublishedAt = plausibleDate(ex.meta.Published, now)
	}
	if a.Summary == "" {
		a.Summary = capMarkdown(summaryMarkdown(ex.meta.Description, it.link, false), limit)
	}
	return a
}

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

// capMarkdown cuts md to at most limit bytes, at the end of a line when one
// ends in the last quarter of what is kept (else at a character boundary),
// closes a code fence the cut left open, and ends with a marker saying
// the content was cut and how long it was.
func capMarkdown(md string, limit int) string {
	if limit <= 0 || len(md) <= limit {
		return md
	}
	marker := fmt.Sprintf("\n\n*[Content cut here: the full text is %d bytes of Markdown, more than the %d bytes stored per article.]*", len(md), limit)
	keep := limit - len(marker) - len("\n```")
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

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
