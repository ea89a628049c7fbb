package opml

import (
	"encoding/xml"
	"fmt"
	"io"
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
	Children []xmlOutline `xml:"outline"`
}

// Export writes outlines as an OPML 2.0 document that Miniflux and
// FreshRSS import. Outlines without a category sit directly in the body;
// the others go into one folder per category (the category string is the
// folder's text, "/" included, since those readers know one level of
// folders), in the order of each category's first outline. Feeds are
// written as type="rss" outlines with text, title, xmlUrl and htmlUrl
// (the site, when known); outlines without a feed URL (web pages) carry only htmlUrl, which both
// readers skip and Import turns back into web sources. Outline.Type and
// Outline.Line are not written.
func Export(w io.Writer, h Head, outlines []Outline) error {
	doc := xmlDoc{Version: "2.0", Head: xmlHead{Title: h.Title}}
	if !h.DateCreated.IsZero() {
		// RFC 822 with a four-digit year and a numeric zone, the form the
		// OPML spec and FreshRSS's strict reader accept.
		doc.Head.DateCreated = h.DateCreated.Format(time.RFC1123Z)
	}
	folders := map[string]int{} // category → index in doc.Body
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
		}
		if o.Category == "" {
			doc.Body = append(doc.Body, x)
			continue
		}
		i, ok := folders[o.Category]
		if !ok {
			i = len(doc.Body)
			folders[o.Category] = i
			doc.Body = append(doc.Body, xmlOutline{Text: o.Category, Title: o.Category})
		}
		doc.Body[i].Children = append(doc.Body[i].Children, x)
	}
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

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
