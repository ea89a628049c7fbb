package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// heuristicMetadata reads what a reader sees: <title> (or the first <h1>),
// <html lang>, <link rel=canonical>, a byline and the first <time datetime>.
func heuristicMetadata(doc *html.Node) Metadata {
	var m Metadata
	var h1, timeAttr, pubTime, byline, relAuthor string
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch n.DataAtom {
		case atom.Html:
			m.Language = attr(n, "lang")
			if m.Language == "" {
				m.Language = attr(n, "xml:lang")
			}
		case atom.Title:
			if m.Title == "" {
				m.Title = textContent(n)
			}
			return false
		case atom.Link:
			if relHas(attr(n, "rel"), "canonical") && m.CanonicalURL == "" {
				m.CanonicalURL = attr(n, "href")
			}
			return false
		case atom.Script, atom.Style, atom.Noscript, atom.Template:
			return false
		case atom.H1:
			if h1 == "" {
				h1 = textContent(n)
			}
		case atom.Time:
			if dt := attr(n, "datetime"); dt != "" {
				if timeAttr == "" {
					timeAttr = dt
				}
				if pubTime == "" && (hasAttr(n, "pubdate") || strings.Contains(classID(n), "publish") || strings.Contains(classID(n), "posted")) {
					pubTime = dt
				}
			}
		case atom.A:
			if relAuthor == "" && relHas(attr(n, "rel"), "author") {
				relAuthor = textContent(n)
			}
		}
		if byline == "" {
			ci := classID(n)
			if strings.Contains(ci, "byline") || strings.Contains(ci, "author-name") || strings.Contains(ci, "author") && (n.DataAtom == atom.Span || n.DataAtom == atom.A || n.DataAtom == atom.P) {
				if t := textContent(n); len(t) > 1 && len(t) < 80 {
					byline = t
				}
			}
		}
		return true
	})
	if m.Title == "" {
		m.Title = h1
	}
	m.Author = firstNonEmpty(cleanAuthor(relAuthor), bylineName(byline))
	m.Published = datePtr(firstNonEmpty(pubTime, timeAttr))
	return m
}

// bylineName keeps the name part of a byline such as "By Ada Lovelace,
// March 3, 2024" or "Ada Lovelace | Staff writer".
func bylineName(b string) string {
	b = cleanAuthor(b)
	for _, sep := range []string{" | ", " · ", " • ", " - ", " on ", "\n"} {
		if i := strings.Index(b, sep); i > 0 {
			b = b[:i]
		}
	}
	if i := strings.Index(b, ", "); i > 0 {
		if _, ok := ParseDate(b[i+2:]); ok {
			b = b[:i]
		}
	}
	b = strings.TrimSpace(b)
	if len(strings.Fields(b)) > 6 {
		return ""
	}
	return b
}
