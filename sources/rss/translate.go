package rss

import (
	"errors"
	"strings"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/atom"
	gjson "github.com/mmcdole/gofeed/json"
	grss "github.com/mmcdole/gofeed/rss"

	"github.com/feedpoller/feedpoller/sources"
)

// itemSide is what the parser saw of an item that gofeed's universal Item
// does not keep, recorded by the translators below.
type itemSide struct {
	// rawAuthor is RSS <author> as written: gofeed's split into name and
	// e-mail drops values it cannot split, such as markup.
	rawAuthor string
	// plainContent: the content is plain text (Atom type="text", JSON
	// Feed content_text), not HTML.
	plainContent bool
	// binaryContent: Atom content of a binary media type, base64 in the
	// feed; never text.
	binaryContent bool
	// contentType and contentSrc are Atom content's type and src.
	contentType, contentSrc string
}

// sideTable maps each translated item to what its translator saw.
type sideTable map[*gofeed.Item]*itemSide

func (s sideTable) of(it *gofeed.Item) *itemSide {
	if side, ok := s[it]; ok {
		return side
	}
	return &itemSide{}
}

// newParser is a gofeed parser whose translators fill side, and hints with
// what the feed declares about its schedule.
func newParser(side sideTable, hints *sources.Hints, body []byte) *gofeed.Parser {
	p := gofeed.NewParser()
	p.RSSTranslator = rssTranslator{side, hints}
	p.AtomTranslator = atomTranslator{side, hints}
	p.JSONTranslator = jsonTranslator{side, hints, body}
	return p
}

var errWrongFeedType = errors.New("translator got another feed type")

type rssTranslator struct {
	side  sideTable
	hints *sources.Hints
}

func (t rssTranslator) Translate(feed interface{}) (*gofeed.Feed, error) {
	rf, ok := feed.(*grss.Feed)
	if !ok {
		return nil, errWrongFeedType
	}
	*t.hints = rssHints(rf)
	// The item's and feed's Image are never read (media.go finds an
	// item's image from what it declares), and the fallback that fills
	// them parses every item's HTML a second time.
	out, err := (&gofeed.DefaultRSSTranslator{DisableContentImageScan: true}).Translate(rf)
	if err != nil || len(out.Items) != len(rf.Items) {
		return out, err
	}
	for i, src := range rf.Items {
		if src != nil && out.Items[i] != nil {
			t.side[out.Items[i]] = &itemSide{rawAuthor: src.Author}
		}
	}
	return out, nil
}

type atomTranslator struct {
	side  sideTable
	hints *sources.Hints
}

func (t atomTranslator) Translate(feed interface{}) (*gofeed.Feed, error) {
	af, ok := feed.(*atom.Feed)
	if !ok {
		return nil, errWrongFeedType
	}
	*t.hints = atomHints(af)
	out, err := (&gofeed.DefaultAtomTranslator{}).Translate(af)
	if err != nil || len(out.Items) != len(af.Entries) {
		return out, err
	}
	for i, e := range af.Entries {
		if e == nil || out.Items[i] == nil || e.Content == nil {
			continue
		}
		c := e.Content
		t.side[out.Items[i]] = &itemSide{
			contentType:   c.Type,
			contentSrc:    c.Src,
			plainContent:  c.Src == "" && isPlainType(c.Type),
			binaryContent: c.Src == "" && isBinaryType(c.Type),
		}
	}
	return out, nil
}

type jsonTranslator struct {
	side  sideTable
	hints *sources.Hints
	body  []byte
}

func (t jsonTranslator) Translate(feed interface{}) (*gofeed.Feed, error) {
	jf, ok := feed.(*gjson.Feed)
	if !ok {
		return nil, errWrongFeedType
	}
	*t.hints = jsonHints(jf, t.body)
	out, err := (&gofeed.DefaultJSONTranslator{}).Translate(jf)
	if err != nil || len(out.Items) != len(jf.Items) {
		return out, err
	}
	for i, src := range jf.Items {
		if src != nil && out.Items[i] != nil && src.ContentHTML == "" && src.ContentText != "" {
			t.side[out.Items[i]] = &itemSide{plainContent: true}
		}
	}
	return out, nil
}

// isPlainType: Atom content that is plain text (RFC 4287: no type, "text",
// or any text/* type other than HTML).
func isPlainType(typ string) bool {
	t := strings.ToLower(strings.TrimSpace(typ))
	return t == "" || t == "text" || (strings.HasPrefix(t, "text/") && !strings.Contains(t, "html"))
}

// isBinaryType: Atom content whose type is neither text, HTML nor XML is
// base64 of a binary payload (RFC 4287 section 4.1.3.3).
func isBinaryType(typ string) bool {
	t := strings.ToLower(strings.TrimSpace(typ))
	return strings.Contains(t, "/") && !strings.HasPrefix(t, "text/") &&
		!strings.Contains(t, "xml") && !strings.Contains(t, "html")
}
