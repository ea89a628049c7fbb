package extract

import (
	"bytes"
	"net/url"
	"strings"
	"time"

	"golang.org/x/net/html"

	"github.com/feedpoller/feedpoller/sources/urls"
)

// Metadata is what a page says about itself. Every field is optional.
type Metadata struct {
	Title        string
	Author       string
	Description  string
	Language     string
	CanonicalURL string // absolute; feeds URL deduplication
	SiteName     string
	Image        string // absolute
	Published    *time.Time
	Modified     *time.Time
	Tags         []string
	// FeedLinks are the absolute hrefs of <link rel=alternate> RSS or Atom
	// feeds the page advertises.
	FeedLinks []string
}

// ParseMetadata reads the metadata of a whole HTML page. Sources are
// consulted in priority order: JSON-LD, schema.org microdata, Open Graph
// and Twitter cards, other <meta> tags, then heuristics on the visible page
// (<title>, bylines, <time datetime>); the first source that has a field
// wins it. pageURL resolves relative URLs (after <base href>).
func ParseMetadata(page []byte, pageURL string) Metadata {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return Metadata{}
	}
	return metadataFromDoc(doc, pageURL)
}

// metadataFromDoc is ParseMetadata on an already parsed document, which it
// does not modify.
func metadataFromDoc(doc *html.Node, pageURL string) Metadata {
	base := documentBase(doc, pageURL)
	tags := metaTags(doc)
	og, heur := openGraphMetadata(tags), heuristicMetadata(doc)
	var m Metadata
	// The canonical URL is what the page declares for itself first: the
	// <link rel=canonical>, then og:url, before any structured data.
	m.CanonicalURL = firstNonEmpty(urls.Absolute(base, heur.CanonicalURL), urls.Absolute(base, og.CanonicalURL))
	for _, src := range []Metadata{
		jsonLDMetadata(doc),
		microdataMetadata(doc),
		og,
		metaTagMetadata(tags),
		heur,
	} {
		m.fillFrom(src)
	}
	m.Title = cleanTitle(m.Title, m.SiteName)
	m.Author = cleanAuthor(m.Author)
	m.CanonicalURL = urls.Absolute(base, m.CanonicalURL)
	m.Image = urls.Absolute(base, m.Image)
	m.Tags = dedupeStrings(m.Tags)
	m.FeedLinks = feedLinks(doc, base)
	return m
}

// fillFrom copies every field of o that m does not have yet.
func (m *Metadata) fillFrom(o Metadata) {
	fill := func(dst *string, src string) {
		if *dst == "" {
			*dst = collapseSpace(src)
		}
	}
	fill(&m.Title, o.Title)
	fill(&m.Author, o.Author)
	fill(&m.Description, o.Description)
	fill(&m.Language, o.Language)
	fill(&m.CanonicalURL, o.CanonicalURL)
	fill(&m.SiteName, o.SiteName)
	fill(&m.Image, o.Image)
	if m.Published == nil {
		m.Published = o.Published
	}
	if m.Modified == nil {
		m.Modified = o.Modified
	}
	if len(m.Tags) == 0 {
		m.Tags = o.Tags
	}
}

// datePtr parses s into a UTC time, nil when it is not a date.
func datePtr(s string) *time.Time {
	t, ok := ParseDate(s)
	if !ok {
		return nil
	}
	return &t
}

// splitTags splits a keywords string on commas (or semicolons).
func splitTags(s string) []string {
	sep := ","
	if !strings.Contains(s, ",") && strings.Contains(s, ";") {
		sep = ";"
	}
	var out []string
	for _, p := range strings.Split(s, sep) {
		if p = collapseSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func dedupeStrings(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		s = collapseSpace(s)
		k := strings.ToLower(s)
		if s == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, s)
	}
	return out
}

// cleanTitle drops a " | Site Name" style suffix or prefix when the site
// name is known, since it is not part of the article's title.
func cleanTitle(title, site string) string {
	title = collapseSpace(title)
	if site == "" || title == "" {
		return title
	}
	for _, sep := range []string{" | ", " - ", " – ", " — ", " :: ", " · ", " » "} {
		if rest, ok := strings.CutSuffix(title, sep+site); ok && rest != "" {
			return strings.TrimSpace(rest)
		}
		if rest, ok := strings.CutPrefix(title, site+sep); ok && rest != "" {
			return strings.TrimSpace(rest)
		}
	}
	return title
}

// cleanAuthor drops a leading "By" and rejects values that are URLs, which
// article:author often holds.
func cleanAuthor(a string) string {
	a = collapseSpace(a)
	for _, p := range []string{"By ", "by ", "BY ", "Von ", "Par "} {
		a = strings.TrimPrefix(a, p)
	}
	a = strings.TrimSpace(strings.TrimPrefix(a, ":"))
	if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
		return ""
	}
	if len(a) > 200 {
		return ""
	}
	return a
}

// feedLinks returns the RSS/Atom feeds the page advertises, absolute.
func feedLinks(doc *html.Node, base *url.URL) []string {
	var out []string
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode || n.Data != "link" {
			return true
		}
		if !relHas(attr(n, "rel"), "alternate") {
			return false
		}
		t := strings.ToLower(strings.TrimSpace(attr(n, "type")))
		if t != "application/rss+xml" && t != "application/atom+xml" && t != "application/feed+json" && t != "application/rdf+xml" {
			return false
		}
		if u := urls.Absolute(base, attr(n, "href")); u != "" {
			out = append(out, u)
		}
		return false
	})
	return dedupeStrings(out)
}

// relHas reports whether a space-separated rel list holds want.
func relHas(rel, want string) bool {
	for _, r := range strings.Fields(strings.ToLower(rel)) {
		if r == want {
			return true
		}
	}
	return false
}
