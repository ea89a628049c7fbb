package opml

import (
	"bytes"
	"encoding/xml"
	"reflect"
	"strings"
	"testing"
	"time"
)

// exported is what a workspace exports: feeds and web pages, grouped by
// category (the order Export keeps).
var exported = []Outline{
	{Text: "Süddeutsche – Wissen", Title: "Süddeutsche – Wissen", Type: "rss", XMLURL: "https://rss.sueddeutsche.de/rss/Wissen", HTMLURL: "https://www.sueddeutsche.de/wissen"},
	{Text: "A page", Title: "A page", HTMLURL: "https://example.org/changes.html", WebPage: true},
	{Text: "The Go Blog", Title: "The Go Blog", Type: "rss", XMLURL: "https://go.dev/blog/feed.atom", HTMLURL: "https://go.dev/blog/", Category: "Go"},
	{Text: "Release notes", Title: "Release notes", HTMLURL: "https://go.dev/doc/devel/release", Category: "Go", WebPage: true},
	{Text: "Q&A <quotes> \"x\"", Title: "Q&A <quotes> \"x\"", Type: "rss", XMLURL: "https://a.example/rss?a=1&b=2", Category: "Databases/PostgreSQL"},
	{Text: "Security & Ops", Title: "Security & Ops", Type: "rss", XMLURL: "https://krebsonsecurity.com/feed/", HTMLURL: "https://krebsonsecurity.com", Category: "Security & Ops"},
}

func TestExportRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Export(&buf, Head{Title: "feedpoller: golang", DateCreated: time.Date(2026, 3, 3, 9, 41, 17, 0, time.UTC)}, exported); err != nil {
		t.Fatal(err)
	}
	doc, err := Parse(&buf, Limits{})
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if got := withoutLines(doc.Outlines); !reflect.DeepEqual(got, exported) {
		t.Errorf("round trip changed the list:\n got %+v\nwant %+v", got, exported)
	}
	if doc.Title != "feedpoller: golang" || doc.Version != "2.0" {
		t.Errorf("head = %q %q", doc.Title, doc.Version)
	}
}

// The other reader's list, parsed, exported and parsed again, is the same
// list (types and names normalised the way Export writes them).
func TestExportReimportsOtherReadersList(t *testing.T) {
	first := parseFile(t, "testdata/other-reader.opml").Outlines
	var buf bytes.Buffer
	if err := Export(&buf, Head{Title: "x"}, first); err != nil {
		t.Fatal(err)
	}
	again, err := Parse(&buf, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	key := func(o Outline) string { return o.XMLURL + "|" + o.HTMLURL + "|" + o.Category + "|" + o.Name() }
	want := map[string]int{}
	for _, o := range first {
		want[key(o)]++
	}
	for _, o := range again.Outlines {
		want[key(o)]--
	}
	for k, n := range want {
		if n != 0 {
			t.Errorf("%s: %+d after the round trip", k, -n)
		}
	}
}

// The document is OPML 2.0 as other readers read it: one head with a
// title and an RFC 822 dateCreated, a body of outlines that all have text,
// feeds typed rss with an xmlUrl, a category path as nested folders
// (Databases/PostgreSQL is a folder PostgreSQL inside a folder Databases,
// never one folder named with the slash), web pages marked in feedpoller's
// namespace.
func TestExportShape(t *testing.T) {
	var buf bytes.Buffer
	created := time.Date(2026, 3, 3, 9, 41, 17, 0, time.FixedZone("", 3600))
	if err := Export(&buf, Head{Title: "feedpoller", DateCreated: created}, exported); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), `<?xml version="1.0" encoding="UTF-8"?>`) {
		t.Errorf("no XML declaration:\n%s", buf.String())
	}
	type outline struct {
		Type     string    `xml:"type,attr"`
		Text     *string   `xml:"text,attr"`
		XMLURL   string    `xml:"xmlUrl,attr"`
		HTMLURL  string    `xml:"htmlUrl,attr"`
		Children []outline `xml:"outline"`
	}
	var doc struct {
		XMLName xml.Name `xml:"opml"`
		Version string   `xml:"version,attr"`
		Heads   []struct {
			Title       string `xml:"title"`
			DateCreated string `xml:"dateCreated"`
		} `xml:"head"`
		Bodies []struct {
			Outlines []outline `xml:"outline"`
		} `xml:"body"`
	}
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not strict XML: %v", err)
	}
	if doc.Version != "2.0" || len(doc.Heads) != 1 || len(doc.Bodies) != 1 {
		t.Fatalf("version %q, %d heads, %d bodies", doc.Version, len(doc.Heads), len(doc.Bodies))
	}
	if doc.Heads[0].Title != "feedpoller" {
		t.Errorf("title %q", doc.Heads[0].Title)
	}
	if d, err := time.Parse(time.RFC1123Z, doc.Heads[0].DateCreated); err != nil || !d.Equal(created) {
		t.Errorf("dateCreated %q: %v", doc.Heads[0].DateCreated, err)
	}
	var folders []string
	var check func(o outline, depth int)
	check = func(o outline, depth int) {
		if o.Text == nil || *o.Text == "" {
			t.Errorf("outline %+v has no text", o)
		}
		if o.Type == "rss" && o.XMLURL == "" {
			t.Errorf("rss outline %q has no xmlUrl", *o.Text)
		}
		if o.XMLURL != "" && o.Type != "rss" {
			t.Errorf("feed %q is typed %q", o.XMLURL, o.Type)
		}
		if len(o.Children) > 0 {
			folders = append(folders, strings.Repeat("  ", depth)+*o.Text)
		}
		for _, c := range o.Children {
			check(c, depth+1)
		}
	}
	for _, o := range doc.Bodies[0].Outlines {
		check(o, 0)
	}
	if want := []string{"Go", "Databases", "  PostgreSQL", "Security & Ops"}; !reflect.DeepEqual(folders, want) {
		t.Errorf("folders = %q, want %q", folders, want)
	}
	if !strings.Contains(buf.String(), `xmlns:feedpoller="`+Namespace+`"`) ||
		!strings.Contains(buf.String(), `htmlUrl="https://example.org/changes.html" feedpoller:source="web"`) {
		t.Errorf("web pages are not marked as feedpoller's web sources:\n%s", buf.String())
	}
}
