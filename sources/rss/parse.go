package rss

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"
	gjson "github.com/mmcdole/gofeed/json"
	"golang.org/x/text/encoding/unicode"

	"github.com/feedpoller/feedpoller/sources"
)

// parsedFeed is what a feed body yields.
type parsedFeed struct {
	title string
	items []sources.FeedItem
}

// parseFeed parses body (already capped in size by the fetcher) and maps
// at most maxItems entries. feedURL is where the body came from, the base
// for relative links.
func parseFeed(body []byte, contentType, feedURL string, maxItems int) (*parsedFeed, error) {
	body = toUTF8(body)
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, notAFeed("empty response")
	}
	kind := detect(body)
	if kind == gofeed.FeedTypeUnknown {
		// Detection reads the XML declaration too, so an unknown charset
		// label hides the root element; judge the repaired body instead.
		if fixed, changed := repairEncoding(body); changed {
			if k := detect(fixed); k != gofeed.FeedTypeUnknown {
				body, kind = fixed, k
			}
		}
	}
	if kind == gofeed.FeedTypeUnknown {
		if looksLikeHTML(body, contentType) {
			return nil, notAFeed("got an HTML page, not RSS, Atom or JSON Feed")
		}
		return nil, notAFeed(gofeed.ErrFeedTypeNotDetected.Error())
	}

	// Cut the document down to maxItems entries before gofeed builds a
	// struct for every one: a 10 MiB body of empty <item/>s would
	// otherwise cost gigabytes.
	body = capItems(body, kind, maxItems)

	feed, err := parseBytes(body)
	if err != nil && kind != gofeed.FeedTypeJSON {
		// Feeds that lie about their encoding are common: a Latin-1 body
		// declared UTF-8, or a charset label nobody knows. Retry once as
		// UTF-8 with the declaration dropped and bad bytes replaced.
		if fixed, changed := repairEncoding(body); changed {
			if f2, err2 := parseBytes(fixed); err2 == nil {
				feed, err = f2, nil
			}
		}
	}
	if err != nil {
		return nil, notAFeed(shortParseError(err))
	}

	out := &parsedFeed{title: cleanText(feed.Title)}
	base := feedBase(feed.Link, feedURL)
	n := min(len(feed.Items), maxItems)
	out.items = make([]sources.FeedItem, 0, n)
	for _, it := range feed.Items[:n] {
		if it == nil {
			continue
		}
		out.items = append(out.items, mapItem(it, base))
	}
	return out, nil
}

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16BE = []byte{0xFE, 0xFF}
	bomUTF16LE = []byte{0xFF, 0xFE}
)

// toUTF8 drops a UTF-8 byte order mark and transcodes UTF-16 bodies, so the
// item cap and the JSON decoder, which only read ASCII-compatible bytes,
// work on every feed.
func toUTF8(body []byte) []byte {
	switch {
	case bytes.HasPrefix(body, bomUTF8):
		return body[len(bomUTF8):]
	case bytes.HasPrefix(body, bomUTF16BE), bytes.HasPrefix(body, bomUTF16LE):
		dec := unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewDecoder()
		out, err := dec.Bytes(body)
		if err != nil {
			return body
		}
		out = bytes.TrimPrefix(out, bomUTF8)
		// The declaration still says UTF-16; it no longer is.
		if span := xmlDeclEncoding(out); span != nil {
			out = declareUTF8(out, span)
		}
		return out
	}
	return body
}

func detect(body []byte) gofeed.FeedType {
	return gofeed.DetectFeedType(bytes.NewReader(body[:min(len(body), 4096)]))
}

// parseBytes runs gofeed on an in-memory body; never on a URL, so every
// request goes through the hardened fetcher.
func parseBytes(body []byte) (feed *gofeed.Feed, err error) {
	// gofeed is third-party code fed hostile input: a panic in it must
	// cost one poll, not the process.
	defer func() {
		if r := recover(); r != nil {
			feed, err = nil, fmt.Errorf("parser panic: %v", r)
		}
	}()
	p := gofeed.NewParser()
	p.JSONTranslator = jsonTranslator{}
	return p.Parse(bytes.NewReader(body))
}

func notAFeed(reason string) *sources.FetchError {
	return &sources.FetchError{Kind: sources.KindPermanent, Msg: "not a feed: " + reason}
}

// shortParseError keeps the parser's message to one readable line.
func shortParseError(err error) string {
	msg := strings.Join(strings.Fields(err.Error()), " ")
	if len(msg) > 200 {
		cut := 200
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

func looksLikeHTML(body []byte, contentType string) bool {
	if contentType == "text/html" || contentType == "application/xhtml+xml" {
		return true
	}
	head := bytes.ToLower(body[:min(len(body), 1024)])
	return bytes.Contains(head, []byte("<!doctype html")) || bytes.Contains(head, []byte("<html"))
}

// repairEncoding makes a body parseable as UTF-8: the encoding declaration
// is removed and invalid byte sequences are replaced.
func repairEncoding(body []byte) ([]byte, bool) {
	out := body
	changed := false
	if span := xmlDeclEncoding(out); span != nil {
		out = declareUTF8(out, span)
		changed = true
	}
	if !utf8.Valid(out) {
		out = bytes.ToValidUTF8(out, []byte("\uFFFD"))
		changed = true
	}
	return out, changed
}

// xmlDeclEncoding finds ` encoding="…"` inside a leading <?xml …?>
// declaration and returns its byte span, or nil.
func xmlDeclEncoding(body []byte) []int {
	start := bytes.Index(body[:min(len(body), 512)], []byte("<?xml"))
	if start < 0 {
		return nil
	}
	end := bytes.Index(body[start:min(len(body), start+512)], []byte("?>"))
	if end < 0 {
		return nil
	}
	decl := body[start : start+end]
	i := bytes.Index(decl, []byte("encoding"))
	if i < 0 {
		return nil
	}
	j := i + len("encoding")
	for j < len(decl) && (decl[j] == ' ' || decl[j] == '=' || decl[j] == '\t') {
		j++
	}
	if j >= len(decl) || (decl[j] != '"' && decl[j] != '\'') {
		return nil
	}
	q := decl[j]
	k := bytes.IndexByte(decl[j+1:], q)
	if k < 0 {
		return nil
	}
	// Include the space before "encoding" so the replacement reads well.
	from := i
	for from > 0 && (decl[from-1] == ' ' || decl[from-1] == '\t') {
		from--
	}
	return []int{start + from, start + j + 1 + k + 1}
}

// declareUTF8 replaces the encoding attribute at span with utf-8.
func declareUTF8(body []byte, span []int) []byte {
	out := make([]byte, 0, len(body)+16)
	out = append(out, body[:span[0]]...)
	out = append(out, ` encoding="utf-8"`...)
	return append(out, body[span[1]:]...)
}

// jsonTranslator keeps JSON Feed's content_text out of ContentHTML: it is
// plain text, so it becomes the summary when the item has none.
type jsonTranslator struct{}

func (jsonTranslator) Translate(feed interface{}) (*gofeed.Feed, error) {
	jf, ok := feed.(*gjson.Feed)
	if !ok {
		return nil, errors.New("not a JSON feed")
	}
	out, err := (&gofeed.DefaultJSONTranslator{}).Translate(jf)
	if err != nil {
		return nil, err
	}
	if len(out.Items) != len(jf.Items) {
		return out, nil
	}
	for i, src := range jf.Items {
		if src == nil || out.Items[i] == nil || src.ContentHTML != "" {
			continue
		}
		out.Items[i].Content = ""
		if out.Items[i].Description == "" {
			out.Items[i].Description = src.ContentText
		}
	}
	return out, nil
}
