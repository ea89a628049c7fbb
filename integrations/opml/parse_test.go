package opml

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

func parseFile(t *testing.T, path string) *Document {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := Parse(f, Limits{})
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return doc
}

// withoutLines drops the positions, which the expectations leave out.
func withoutLines(in []Outline) []Outline {
	out := make([]Outline, len(in))
	for i, o := range in {
		o.Line = 0
		out[i] = o
	}
	return out
}

func TestParseOtherReadersExport(t *testing.T) {
	doc := parseFile(t, "testdata/other-reader.opml")
	if doc.Version != "2.0" || doc.Title != "FreshRSS" || doc.DateCreated != "Tue, 03 Mar 2026 09:41:17 +0100" {
		t.Errorf("head = %q %q %q", doc.Version, doc.Title, doc.DateCreated)
	}
	want := []Outline{
		{Text: "The Go Blog", Type: "rss", XMLURL: "https://go.dev/blog/feed.atom", HTMLURL: "https://go.dev/blog/", Category: "Go"},
		{Text: "Go Weekly", Type: "rss", XMLURL: "https://cprss.s3.amazonaws.com/golangweekly.com.xml", HTMLURL: "https://golangweekly.com/", Category: "Go"},
		{Text: "Release notes", HTMLURL: "https://go.dev/doc/devel/release", Category: "Go"},
		{Text: "PostgreSQL News", Title: "PostgreSQL News", Type: "rss", XMLURL: "https://www.postgresql.org/news.rss", HTMLURL: "https://www.postgresql.org/", Category: "Databases/PostgreSQL"},
		{Text: "Planet PostgreSQL", Type: "rss", XMLURL: "https://planet.postgresql.org/rss20.xml", HTMLURL: "https://planet.postgresql.org/", Category: "Databases/PostgreSQL"},
		{Text: "SQLite release history", Type: "link", HTMLURL: "https://sqlite.org/changes.html", Category: "Databases"},
		{Text: "Krebs on Security", Type: "rss", XMLURL: "https://krebsonsecurity.com/feed/", HTMLURL: "https://krebsonsecurity.com", Category: "Security & Ops"},
		{Text: "The Go Blog (again)", Type: "rss", XMLURL: "https://GO.dev/blog/feed.atom#latest", HTMLURL: "https://go.dev/blog/", Category: "Security & Ops"},
		{Text: "Let's Encrypt", Type: "rss", XMLURL: "https://letsencrypt.org/feed.xml", HTMLURL: "https://letsencrypt.org/", Category: "Security & Ops"},
		{Text: "Hacker News", Type: "rss", XMLURL: "https://news.ycombinator.com/rss", HTMLURL: "https://news.ycombinator.com/", Category: "Aggregators/Tech"},
		{Text: "Süddeutsche – Wissen", Type: "rss", XMLURL: "https://rss.sueddeutsche.de/rss/Wissen", HTMLURL: "https://www.sueddeutsche.de/wissen"},
		{Text: "Old podcast", Type: "rss", XMLURL: "feed://example.org/podcast.xml"},
	}
	got := withoutLines(doc.Outlines)
	if !reflect.DeepEqual(got, want) {
		for i := range max(len(got), len(want)) {
			var g, w Outline
			if i < len(got) {
				g = got[i]
			}
			if i < len(want) {
				w = want[i]
			}
			if g != w {
				t.Errorf("outline %d:\n got %+v\nwant %+v", i, g, w)
			}
		}
	}
	if doc.Outlines[0].Line != 14 {
		t.Errorf("first outline on line %d, want 14", doc.Outlines[0].Line)
	}
}

func TestParseVersionsAndEncodings(t *testing.T) {
	cases := []struct {
		name string
		body string
		want Outline
	}{
		{"opml 1.0 with title only", `<?xml version="1.0"?><opml version="1.0"><head/><body>
<outline title="Feed" xmlUrl="http://a.example/rss"/></body></opml>`,
			Outline{Title: "Feed", XMLURL: "http://a.example/rss"}},
		{"no declaration, no version", `<opml><body><outline text="x" xmlUrl="http://a.example/rss"/></body></opml>`,
			Outline{Text: "x", XMLURL: "http://a.example/rss"}},
		{"latin-1", "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><opml version=\"2.0\"><body><outline text=\"Caf\xe9\" xmlUrl=\"http://a.example/rss\"/></body></opml>",
			Outline{Text: "Café", XMLURL: "http://a.example/rss"}},
		{"unescaped ampersand in a URL", `<opml version="2.0"><body><outline text="q" xmlUrl="http://a.example/rss?a=1&b=2"/></body></opml>`,
			Outline{Text: "q", XMLURL: "http://a.example/rss?a=1&b=2"}},
		{"html entity", `<opml version="2.0"><body><outline text="caf&eacute;" xmlUrl="http://a.example/rss"/></body></opml>`,
			Outline{Text: "café", XMLURL: "http://a.example/rss"}},
		{"category attribute without folder", `<opml version="2.0"><body><outline text="c" xmlUrl="http://a.example/rss" category="/News/World, /x"/></body></opml>`,
			Outline{Text: "c", XMLURL: "http://a.example/rss", Category: "News/World"}},
		{"folder wins over category attribute", `<opml version="2.0"><body><outline text="F"><outline text="c" xmlUrl="http://a.example/rss" category="/News"/></outline></body></opml>`,
			Outline{Text: "c", XMLURL: "http://a.example/rss", Category: "F"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Parse(strings.NewReader(c.body), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got := withoutLines(doc.Outlines); len(got) != 1 || got[0] != c.want {
				t.Fatalf("outlines = %+v, want [%+v]", got, c.want)
			}
		})
	}
}

// countingReader counts what the parser consumed of an endless body.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// repeatReader yields head, then body repeated for total bytes, then tail.
func repeatReader(head, body, tail string, total int64) io.Reader {
	n := total / int64(len(body))
	return io.MultiReader(strings.NewReader(head), io.LimitReader(&loop{s: body}, n*int64(len(body))), strings.NewReader(tail))
}

type loop struct {
	s   string
	off int
}

func (l *loop) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], l.s[l.off:])
		n += c
		l.off = (l.off + c) % len(l.s)
	}
	return n, nil
}

func TestParseHostileInput(t *testing.T) {
	const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE opml [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<opml version="2.0"><body><outline text="&lol9;" xmlUrl="http://a.example/rss"/></body></opml>`
	const xxe = `<?xml version="1.0"?>
<!DOCTYPE opml [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<opml version="2.0"><body><outline text="&xxe;" xmlUrl="http://a.example/rss"/></body></opml>`
	const paramEntity = `<?xml version="1.0"?>
<!DOCTYPE opml [<!ENTITY % remote SYSTEM "http://127.0.0.1:1/x.dtd"> %remote;]>
<opml version="2.0"><body/></opml>`
	deep := strings.Repeat(`<outline text="f">`, 40) + `<outline text="x" xmlUrl="http://a.example/rss"/>` + strings.Repeat(`</outline>`, 40)
	cases := []struct {
		name    string
		body    io.Reader
		lim     Limits
		want    error
		msg     string
		maxRead int64 // the parser must stop before reading more than this
	}{
		{name: "billion laughs", body: strings.NewReader(billionLaughs), want: ErrEntities, msg: "declares entities"},
		{name: "external entity (XXE)", body: strings.NewReader(xxe), want: ErrEntities, msg: "never expanded or fetched"},
		{name: "parameter entity", body: strings.NewReader(paramEntity), want: ErrEntities},
		{name: "50 MB body", body: repeatReader(`<opml version="2.0"><body>`, `<outline text="f" xmlUrl="http://a.example/rss"/>`, `</body></opml>`, 50<<20),
			lim: Limits{MaxOutlines: 1 << 30}, want: ErrTooLarge, msg: "more than 10485760 bytes", maxRead: DefaultMaxBytes + 64<<10},
		{name: "byte cap is configurable", body: repeatReader(`<opml><body>`, `<outline text="f"/>`, `</body></opml>`, 1<<20),
			lim: Limits{MaxBytes: 1000, MaxOutlines: 1 << 30}, want: ErrTooLarge, msg: "more than 1000 bytes", maxRead: 1000 + 64<<10},
		{name: "100 000 outlines", body: repeatReader(`<opml version="2.0"><body>`, `<outline text="f" xmlUrl="http://a.example/rss"/>`, `</body></opml>`, 100000*52),
			want: ErrTooManyOutlines, msg: "more than 10000 outlines", maxRead: 10001*52 + 64<<10},
		{name: "outline limit is configurable", body: repeatReader(`<opml><body>`, `<outline text="f"/>`, `</body></opml>`, 100*19),
			lim: Limits{MaxOutlines: 10}, want: ErrTooManyOutlines, msg: "more than 10 outlines"},
		{name: "deep nesting", body: strings.NewReader(`<opml><body>` + deep + `</body></opml>`), want: ErrTooDeep, msg: "deeper than 32 levels"},
		{name: "deep non-outline elements", body: strings.NewReader(`<opml><body>` + strings.Repeat("<x>", 100000) + `</body></opml>`), want: ErrTooDeep},
		{name: "plain text", body: strings.NewReader("this is not xml at all"), want: ErrNotOPML, msg: "no XML element found"},
		{name: "empty body", body: strings.NewReader(""), want: ErrNotOPML, msg: "no XML element found"},
		{name: "JSON", body: strings.NewReader(`{"feeds": ["http://a.example/rss"]}`), want: ErrNotOPML, msg: "no XML element found"},
		{name: "an HTML page", body: strings.NewReader(`<!doctype html><html><body>hi</body></html>`), want: ErrNotOPML, msg: "root element is <html>"},
		{name: "a feed", body: strings.NewReader(`<?xml version="1.0"?><rss version="2.0"><channel/></rss>`), want: ErrNotOPML, msg: "this is a feed"},
		{name: "binary", body: strings.NewReader("\x00\x01\x02<opml>\xff\xfe"), want: ErrNotOPML, msg: "not well-formed XML"},
		{name: "truncated", body: strings.NewReader(`<opml version="2.0"><body><outline text="a" xmlUrl="http://a.example/rss"/><outline text="F">`), want: ErrNotOPML, msg: "truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cr := &countingReader{r: c.body}
			doc, err := Parse(cr, c.lim)
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v (doc %v), want %v", err, doc, c.want)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
			if c.maxRead > 0 && cr.n.Load() > c.maxRead {
				t.Errorf("read %d bytes before refusing, want at most %d", cr.n.Load(), c.maxRead)
			}
		})
	}
}

// A DOCTYPE that only names an external DTD parses, and the DTD is never
// fetched.
func TestParseNeverFetchesExternalDTD(t *testing.T) {
	var hits atomic.Int64
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer canary.Close()
	body := fmt.Sprintf(`<?xml version="1.0"?><!DOCTYPE opml SYSTEM "%s/evil.dtd">
<opml version="2.0"><body><outline text="&ext;" xmlUrl="http://a.example/rss"/></body></opml>`, canary.URL)
	doc, err := Parse(strings.NewReader(body), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Outlines) != 1 || doc.Outlines[0].Text != "&ext;" {
		t.Errorf("outlines = %+v: an undeclared entity must stay as written", doc.Outlines)
	}
	if hits.Load() != 0 {
		t.Errorf("the DTD was fetched %d times", hits.Load())
	}
}
