package rss

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"

	"github.com/mmcdole/gofeed"
)

// capItems returns body cut down to its first maxItems entries, or body
// unchanged when it has no more than that (or cannot be cut safely, in
// which case the fetcher's byte cap still bounds the parse).
func capItems(body []byte, kind gofeed.FeedType, maxItems int) []byte {
	switch kind {
	case gofeed.FeedTypeRSS, gofeed.FeedTypeAtom:
		// Cheap upper bound first: most feeds are far below the cap.
		if bytes.Count(body, []byte("<item"))+bytes.Count(body, []byte("<entry"))+
			bytes.Count(body, []byte(":item"))+bytes.Count(body, []byte(":entry")) <= maxItems {
			return body
		}
		if cut, ok := capXMLItems(body, maxItems); ok {
			return cut
		}
	case gofeed.FeedTypeJSON:
		// Every JSON item takes at least three bytes ("{},").
		if len(body) <= 3*maxItems {
			return body
		}
		if cut, ok := capJSONItems(body, maxItems); ok {
			return cut
		}
	}
	return body
}

// capXMLItems finds the end of the maxItems-th <item>/<entry> and closes
// the elements still open there, giving a well-formed shorter document.
// Tokens are read from an ASCII copy so byte offsets match the original
// whatever the declared encoding.
func capXMLItems(body []byte, maxItems int) ([]byte, bool) {
	ascii := make([]byte, len(body))
	for i, b := range body {
		if b >= 0x80 {
			b = 'x'
		}
		ascii[i] = b
	}
	d := xml.NewDecoder(bytes.NewReader(ascii))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }

	var stack []xml.Name
	seen := 0
	for {
		tok, err := d.RawToken()
		if err != nil {
			return nil, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name)
		case xml.EndElement:
			if len(stack) == 0 {
				return nil, false
			}
			stack = stack[:len(stack)-1]
			// rss>channel>item, rdf:RDF>item, feed>entry.
			if (t.Name.Local == "item" || t.Name.Local == "entry") && len(stack) <= 2 {
				seen++
				if seen == maxItems {
					return closeOpen(body[:d.InputOffset()], stack), true
				}
			}
		}
	}
}

func closeOpen(prefix []byte, open []xml.Name) []byte {
	out := make([]byte, 0, len(prefix)+32*len(open))
	out = append(out, prefix...)
	for i := len(open) - 1; i >= 0; i-- {
		out = append(out, "</"...)
		if open[i].Space != "" {
			out = append(out, open[i].Space...)
			out = append(out, ':')
		}
		out = append(out, open[i].Local...)
		out = append(out, '>')
	}
	return out
}

// capJSONItems rewrites a JSON Feed with only the first maxItems entries
// of "items"; the other members are copied through untouched.
func capJSONItems(body []byte, maxItems int) ([]byte, bool) {
	d := json.NewDecoder(bytes.NewReader(body))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out bytes.Buffer
	out.WriteByte('{')
	first := true
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, false
		}
		key, ok := tok.(string)
		if !ok {
			return nil, false
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteByte(':')
		if key != "items" {
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				return nil, false
			}
			out.Write(raw)
			continue
		}
		if err := copyCappedArray(d, &out, maxItems); err != nil {
			return nil, false
		}
	}
	out.WriteByte('}')
	return out.Bytes(), true
}

var errNotArray = errors.New("items is not an array")

func copyCappedArray(d *json.Decoder, out *bytes.Buffer, maxItems int) error {
	tok, err := d.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('[') {
		return errNotArray
	}
	out.WriteByte('[')
	for n := 0; d.More(); n++ {
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			return err
		}
		if n >= maxItems {
			continue // read past, keep nothing
		}
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(raw)
	}
	if _, err := d.Token(); err != nil { // ']'
		return err
	}
	out.WriteByte(']')
	return nil
}
