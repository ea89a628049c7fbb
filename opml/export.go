package opml

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// Head is the head of an exported document.
type Head struct {
	Title       string
	DateCreated time.Time
}

type xmlDoc struct {
	XMLName xml.Name     `xml:"opml"`
	Version string       `xml:"version,attr"`
	NS      string       `xml:"xmlns:feedpoller,attr,omitempty"`
	Head    xmlHead      `xml:"head"`
	Body    []xmlOutline `xml:"body>outline"`
}

type xmlHead struct {
	Title       string `xml:"title"`
	DateCreated string `xml:"dateCreated,omitempty"`
}

type xmlOutline struct {
	Type     string       `xml:"type,attr,omitempty"`
	Text     string       `xml:"text,attr"`
	Title    string       `xml:"title,attr,omitempty"`
	XMLURL   string       `xml:"xmlUrl,attr,omitempty"`
	HTMLURL  string       `xml:"htmlUrl,attr,omitempty"`
	Source   string       `xml:"feedpoller:source,attr,omitempty"`
	Children []xmlOutline `xml:"outline"`
}

// Export writes outlines as an OPML 2.0 document that other readers
// (Miniflux, FreshRSS, Feedly, Inoreader, NetNewsWire) import. Outlines
// without a category sit directly in the body; a category is a path of
// folders ("/" between nested ones, as Parse joins them) written as
// nested folder outlines, each folder and feed in the order of its first
// outline. Feeds are type="rss" outlines with text, title, xmlUrl and
// htmlUrl (the site, when known). Outlines without a feed URL (web
// pages) carry htmlUrl and feedpoller:source="web": readers skip them,
// and Import takes them back as web sources. Outline.Type and
// Outline.Line are not written.
func Export(w io.Writer, h Head, outlines []Outline) error {
	doc := xmlDoc{Version: "2.0", Head: xmlHead{Title: h.Title}}
	if !h.DateCreated.IsZero() {
		// RFC 822 with a four-digit year and a numeric zone, the form the
		// OPML spec and FreshRSS's strict reader accept.
		doc.Head.DateCreated = h.DateCreated.Format(time.RFC1123Z)
	}
	root := &folder{}
	for _, o := range outlines {
		x := xmlOutline{Text: o.Text, Title: o.Title, XMLURL: o.XMLURL, HTMLURL: o.HTMLURL}
		if x.Text == "" {
			x.Text = o.Name()
		}
		if x.Text == "" {
			// The spec requires text; a nameless outline is called by its URL.
			x.Text = firstNonEmpty(o.XMLURL, o.HTMLURL)
		}
		if o.XMLURL != "" {
			x.Type = "rss"
		} else {
			x.Source = "web"
			doc.NS = Namespace
		}
		root.at(o.Category).add(x)
	}
	doc.Body = root.outlines()
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write OPML: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write OPML: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write OPML: %w", err)
	}
	return nil
}

// folder is one level of the exported tree: its name, and its children
// (feeds and subfolders) in the order they first appeared.
type folder struct {
	name     string
	children []*folder // nil entries: the feed at the same index in items
	items    []xmlOutline
	byName   map[string]*folder
}

// at is the folder of a category path, made on the way.
func (f *folder) at(category string) *folder {
	cur := f
	for _, part := range strings.Split(category, "/") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		next, ok := cur.byName[part]
		if !ok {
			next = &folder{name: part}
			if cur.byName == nil {
				cur.byName = map[string]*folder{}
			}
			cur.byName[part] = next
			cur.children = append(cur.children, next)
			cur.items = append(cur.items, xmlOutline{})
		}
		cur = next
	}
	return cur
}

func (f *folder) add(x xmlOutline) {
	f.children = append(f.children, nil)
	f.items = append(f.items, x)
}

// outlines are the folder's children as outline elements.
func (f *folder) outlines() []xmlOutline {
	out := make([]xmlOutline, len(f.items))
	for i, x := range f.items {
		if sub := f.children[i]; sub != nil {
			x = xmlOutline{Text: sub.name, Title: sub.name, Children: sub.outlines()}
		}
		out[i] = x
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
