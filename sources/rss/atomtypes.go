package rss

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

const (
	atom10NS = "http://www.w3.org/2005/Atom"
	atom03NS = "http://purl.org/atom/ns#"
)

// atomKinds are the kinds of an Atom document's text constructs that the
// parser reads but does not keep: after it, a title of type "text" and one
// of type "html" are the same string, yet "AT&amp;T" means "AT&amp;T" in
// the first and "AT&T" in the second.
type atomKinds struct {
	feedTitle textKind
	entries   []entryKinds
}

type entryKinds struct {
	title, summary textKind
}

// scanAtomKinds reads the type attributes of the feed title and of each
// entry's title and summary, entries in document order. ok is false when
// the document could not be read to the end; the caller then falls back
// to reading titles as markup. Only the tags are decoded (tagsOnly).
func scanAtomKinds(body []byte) (k atomKinds, ok bool) {
	return decodeAtomKinds(tagsOnly(body))
}

// decodeAtomKinds is scanAtomKinds on the document as it is.
func decodeAtomKinds(body []byte) (k atomKinds, ok bool) {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.Strict = false
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	// The body is UTF-8 by now, whatever the declaration said.
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	depth := 0
	inEntry := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return k, true
		}
		if err != nil {
			return k, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if !isAtom(t.Name.Space) {
				if depth > 1 {
					// Skip foreign elements whole: their titles (media:title,
					// an embedded XHTML <title>) are not Atom's.
					if err := d.Skip(); err != nil {
						return k, false
					}
					depth--
				}
				continue
			}
			name := strings.ToLower(t.Name.Local)
			switch {
			case depth == 2 && name == "entry":
				inEntry = true
				k.entries = append(k.entries, entryKinds{})
			case depth == 2 && name == "title":
				k.feedTitle = kindOf(t)
			case depth == 3 && inEntry && name == "title":
				k.entries[len(k.entries)-1].title = kindOf(t)
			case depth == 3 && inEntry && name == "summary":
				k.entries[len(k.entries)-1].summary = kindOf(t)
			}
		case xml.EndElement:
			if depth == 2 {
				inEntry = false
			}
			depth--
		}
	}
}

// isAtom: the parser also takes elements without a namespace as Atom's,
// for feeds that omit xmlns.
func isAtom(ns string) bool {
	ns = strings.TrimSpace(ns)
	return ns == "" || ns == atom10NS || ns == atom03NS
}

func kindOf(t xml.StartElement) textKind {
	var typ, mode string
	for _, a := range t.Attr {
		switch strings.ToLower(a.Name.Local) {
		case "type":
			typ = a.Value
		case "mode":
			mode = a.Value
		}
	}
	return atomKind(typ, mode)
}
