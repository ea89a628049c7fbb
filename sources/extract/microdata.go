package extract

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// microdataMetadata reads schema.org microdata (itemscope/itemprop) of the
// most article-like item on the page.
func microdataMetadata(doc *html.Node) Metadata {
	var best *html.Node
	bestRank := 0
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode || !hasAttr(n, "itemscope") {
			return true
		}
		rank := 0
		for _, t := range strings.Fields(attr(n, "itemtype")) {
			t = strings.ToLower(t)
			i := strings.Index(t, "schema.org/")
			if i < 0 {
				continue
			}
			if r, ok := articleTypes[strings.Trim(t[i+len("schema.org/"):], "/")]; ok && (rank == 0 || r < rank) {
				rank = r
			}
		}
		if rank != 0 && (bestRank == 0 || rank < bestRank) {
			best, bestRank = n, rank
		}
		return true
	})
	if best == nil {
		return Metadata{}
	}
	props := itemProps(best)
	m := Metadata{
		Title:       firstNonEmpty(props.text("headline"), props.text("name")),
		Description: props.text("description"),
		Language:    props.text("inlanguage"),
		Image:       props.text("image"),
		Published:   datePtr(firstNonEmpty(props.text("datepublished"), props.text("datecreated"))),
		Modified:    datePtr(props.text("datemodified")),
	}
	authors := append([]string(nil), props["author"]...)
	if len(authors) == 0 {
		authors = props["creator"]
	}
	m.Author = strings.Join(dedupeStrings(authors), ", ")
	if k := props.text("keywords"); k != "" {
		m.Tags = splitTags(k)
	}
	if p := props.text("publisher"); p != "" {
		m.SiteName = p
	}
	if typeRankFromNode(best) < 5 {
		m.CanonicalURL = firstNonEmpty(props.text("mainentityofpage"), props.text("url"))
	}
	return m
}

func typeRankFromNode(n *html.Node) int {
	t := strings.ToLower(attr(n, "itemtype"))
	if i := strings.Index(t, "schema.org/"); i >= 0 {
		return articleTypes[strings.Trim(strings.Fields(t[i+len("schema.org/"):] + " ")[0], "/")]
	}
	return 0
}

// propMap holds the values of an item's properties by lower-case name.
type propMap map[string][]string

func (p propMap) text(name string) string {
	for _, v := range p[name] {
		if v = collapseSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// itemProps collects the properties of the item rooted at root. A nested
// item (a Person author, an Organization publisher) contributes its name.
func itemProps(root *html.Node) propMap {
	props := propMap{}
	walk(root, func(n *html.Node) bool {
		if n == root || n.Type != html.ElementNode {
			return true
		}
		names := strings.Fields(strings.ToLower(attr(n, "itemprop")))
		if hasAttr(n, "itemscope") {
			if len(names) > 0 {
				inner := itemProps(n)
				v := firstNonEmpty(inner.text("name"), inner.text("url"))
				if v == "" {
					v = textContent(n)
				}
				for _, name := range names {
					props[name] = append(props[name], v)
				}
			}
			// Properties inside a nested item belong to it, not to root.
			return false
		}
		if len(names) == 0 {
			return true
		}
		v := microdataValue(n)
		for _, name := range names {
			props[name] = append(props[name], v)
		}
		return true
	})
	return props
}

// microdataValue is the value of an itemprop element per the HTML spec.
func microdataValue(n *html.Node) string {
	if hasAttr(n, "content") {
		return attr(n, "content")
	}
	switch n.DataAtom {
	case atom.Meta:
		return attr(n, "content")
	case atom.A, atom.Link, atom.Area:
		return attr(n, "href")
	case atom.Img, atom.Audio, atom.Video, atom.Source, atom.Iframe, atom.Embed, atom.Track:
		return attr(n, "src")
	case atom.Object:
		return attr(n, "data")
	case atom.Time:
		if hasAttr(n, "datetime") {
			return attr(n, "datetime")
		}
	case atom.Data, atom.Meter:
		return attr(n, "value")
	}
	return textContent(n)
}
