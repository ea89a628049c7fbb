package rss

import (
	"bytes"
	"hash/maphash"
)

// itemSpan is one <item> or <entry> element of a feed document: its bytes
// are body[start:end], digest their hash.
type itemSpan struct {
	start, end int
	digest     uint64
}

// itemSpans finds the feed's entries as byte ranges without parsing them:
// every unprefixed <item> element (RSS) or <entry> element (Atom), with
// the hash of each one's bytes, and a hash of every tag outside them
// (outside). ok is false, and the feed is then parsed whole, unless the
// document is one whose entries are self-contained, so that parsing it
// with some of them cut out reads the others exactly as before:
//
//   - comments, CDATA sections and processing instructions are closed, and
//     no DOCTYPE declares an internal subset (entities the entries could
//     use);
//   - every end tag inside an entry closes an element opened inside it
//     (the lenient decoder gofeed uses closes open elements up to the one
//     an end tag names, so a stray one would close the entry's parents);
//   - entries do not nest, are all of one name, and all lie at one depth;
//   - the entries end before the document does.
//
// The start tags outside the entries carry what an entry's reading can
// depend on besides its own bytes (namespace declarations, xml:base):
// outside hashes them, not the text between them, which changes with
// every build of a feed (lastBuildDate, updated).
func itemSpans(body []byte, seed maphash.Seed) (spans []itemSpan, outside uint64, ok bool) {
	var h maphash.Hash
	h.SetSeed(seed)
	var (
		stack     [][]byte // local names of the open elements
		itemName  []byte   // "item" or "entry", once one was found
		itemDepth = -1     // depth of the entries' elements
		inItem    = -1     // depth of the open entry, -1 outside one
		start     int
	)
	for i := 0; ; {
		lt := bytes.IndexByte(body[i:], '<')
		if lt < 0 {
			break
		}
		p := i + lt
		rest := body[p:]
		var end int // index just past the markup at p
		if e, ok := sectionEnd(rest); ok {
			if e < 0 {
				return nil, 0, false
			}
			i = p + e
			continue
		}
		switch {
		case bytes.HasPrefix(rest, []byte("<!")):
			e := tagEnd(rest)
			if e < 0 || bytes.IndexByte(rest[:e], '[') >= 0 {
				return nil, 0, false
			}
			end = p + e
			if inItem < 0 {
				_, _ = h.Write(rest[:e])
			}
		default:
			e := tagEnd(rest)
			if e < 0 {
				return nil, 0, false
			}
			end = p + e
			tag := rest[:e]
			closing := len(tag) > 1 && tag[1] == '/'
			name := tagName(tag, closing)
			if len(name) == 0 {
				return nil, 0, false
			}
			local := name
			if c := bytes.LastIndexByte(name, ':'); c >= 0 {
				local = name[c+1:]
			}
			selfClosed := !closing && bytes.HasSuffix(tag, []byte("/>"))
			switch {
			case closing:
				// The decoder closes the open elements down to the one
				// whose local name the end tag names.
				d := len(stack) - 1
				for d >= 0 && !bytes.Equal(stack[d], local) {
					d--
				}
				if d < 0 || inItem >= 0 && d < inItem {
					return nil, 0, false
				}
				stack = stack[:d]
				if inItem >= 0 && d == inItem {
					spans = append(spans, itemSpan{start: start, end: end})
					inItem = -1
				}
				if inItem < 0 && !(d == itemDepth && bytes.Equal(local, itemName)) {
					_, _ = h.Write(tag)
				}
			case inItem < 0 && isEntryName(name):
				if itemName == nil {
					itemName, itemDepth = name, len(stack)
				}
				if !bytes.Equal(name, itemName) || len(stack) != itemDepth {
					return nil, 0, false
				}
				if selfClosed {
					spans = append(spans, itemSpan{start: p, end: end})
				} else {
					start, inItem = p, len(stack)
					stack = append(stack, local)
				}
			default:
				if inItem >= 0 && isEntryName(name) {
					return nil, 0, false // an entry inside an entry
				}
				if inItem < 0 {
					_, _ = h.Write(tag)
				}
				if !selfClosed {
					stack = append(stack, local)
				}
			}
		}
		i = end
	}
	if inItem >= 0 || len(spans) == 0 {
		return nil, 0, false
	}
	for k := range spans {
		spans[k].digest = maphash.Bytes(seed, body[spans[k].start:spans[k].end])
	}
	return spans, h.Sum64(), true
}

// sections are the markup the scan passes over whole: whatever they
// hold is not a tag.
var sections = [...]struct{ open, close string }{{"<!--", "-->"}, {"<![CDATA[", "]]>"}, {"<?", "?>"}}

// sectionEnd reports whether rest opens a section, and the index just
// past its end (-1: it is never closed).
func sectionEnd(rest []byte) (int, bool) {
	for _, s := range sections {
		if bytes.HasPrefix(rest, []byte(s.open)) {
			e := bytes.Index(rest[len(s.open):], []byte(s.close))
			if e < 0 {
				return -1, true
			}
			return len(s.open) + e + len(s.close), true
		}
	}
	return 0, false
}

// isEntryName reports the element names of feed entries.
func isEntryName(name []byte) bool {
	return string(name) == "item" || string(name) == "entry"
}

// tagEnd is the index just past the '>' that ends the tag tag starts
// with, quotes in attribute values skipped, or -1.
func tagEnd(tag []byte) int {
	var quote byte
	for i := 1; i < len(tag); i++ {
		c := tag[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			return i + 1
		case c == '<':
			return -1 // not markup the decoder would read as one tag
		}
	}
	return -1
}

// tagName is the element name of a start or end tag.
func tagName(tag []byte, closing bool) []byte {
	from := 1
	if closing {
		from = 2
	}
	to := from
	for to < len(tag) && !isNameEnd(tag[to]) {
		to++
	}
	return tag[from:to]
}

// withoutSpans is body with the spans not kept cut out.
func withoutSpans(body []byte, spans []itemSpan, keep []bool) []byte {
	out := make([]byte, 0, len(body))
	from := 0
	for k, s := range spans {
		if keep[k] {
			continue
		}
		out = append(out, body[from:s.start]...)
		from = s.end
	}
	return append(out, body[from:]...)
}
