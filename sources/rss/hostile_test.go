package rss

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/sources"
)

func billionLaughs(where string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>` + "\n<!DOCTYPE rss [\n  <!ENTITY lol \"lol\">\n")
	prev := "lol"
	for i := 1; i <= 9; i++ {
		name := fmt.Sprintf("lol%d", i)
		b.WriteString("  <!ENTITY " + name + " \"" + strings.Repeat("&"+prev+";", 10) + "\">\n")
		prev = name
	}
	b.WriteString("]>\n")
	b.WriteString(strings.ReplaceAll(`<rss version="2.0"><channel><title>TITLE</title>
<item><title>Laughs</title><description>TITLE</description><link>https://x.example/1</link></item>
</channel></rss>`, "TITLE", where))
	return b.String()
}

// encoding/xml does not expand entities declared in a DTD, so a billion
// laughs stays a few hundred bytes of text instead of gigabytes.
func TestBillionLaughsDoesNotExpand(t *testing.T) {
	srv := serve(t, "application/rss+xml", billionLaughs("&lol9;"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := newFetcher().Fetch(context.Background(), sources.Request{URL: srv.URL})
	runtime.ReadMemStats(&after)

	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("parsing allocated %d MiB", alloc>>20)
	}
	if err != nil {
		// Refusing the document is as safe as not expanding it, as long
		// as the refusal is a clean permanent error.
		if sources.KindOf(err) != sources.KindPermanent {
			t.Fatalf("err %v", err)
		}
		return
	}
	if len(res.FeedTitle) > 100 || strings.Contains(res.FeedTitle, "lollol") {
		t.Errorf("entity expanded: title is %d bytes", len(res.FeedTitle))
	}
	if len(res.Items) != 1 || len(res.Items[0].Summary) > 100 {
		t.Errorf("items %+v", res.Items)
	}
}

func TestWrongCharsetDoesNotCrash(t *testing.T) {
	latin1Title := "Caf\xe9 cr\xe8me" // ISO-8859-1 bytes, invalid as UTF-8
	feed := func(decl, title string) string {
		return decl + `<rss version="2.0"><channel><title>` + title + `</title>` +
			`<item><title>` + title + `</title><link>https://x.example/1</link></item></channel></rss>`
	}
	cases := []struct {
		name, body, wantTitle string
	}{
		{"unknown label", feed(`<?xml version="1.0" encoding="x-no-such-charset"?>`, "Plain title"), "Plain title"},
		{"latin-1 bytes declared utf-8", feed(`<?xml version="1.0" encoding="utf-8"?>`, latin1Title), "Café crème"},
		{"latin-1 bytes, no declaration", feed("", latin1Title), "Café crème"},
		{"latin-1 declared correctly", feed(`<?xml version="1.0" encoding="ISO-8859-1"?>`, latin1Title), "Café crème"},
		{"utf-8 declared utf-16", feed(`<?xml version="1.0" encoding="UTF-16"?>`, "Naïve"), ""},
		{"utf-16 with BOM", utf16LE(feed(`<?xml version="1.0" encoding="UTF-16"?>`, "Naïve ☃")), "Naïve ☃"},
		{"utf-8 BOM", "\xEF\xBB\xBF" + feed(`<?xml version="1.0" encoding="utf-8"?>`, "Bom"), "Bom"},
		{"windows-1252 declared", feed(`<?xml version="1.0" encoding="windows-1252"?>`, "\x93quoted\x94"), "\u201cquoted\u201d"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, "application/rss+xml", tc.body)
			res, err := newFetcher().Fetch(context.Background(), sources.Request{URL: srv.URL})
			if tc.wantTitle == "" {
				// Either outcome is fine as long as it is clean.
				if err != nil && sources.KindOf(err) != sources.KindPermanent {
					t.Fatalf("err %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.FeedTitle != tc.wantTitle || len(res.Items) != 1 || res.Items[0].Title != tc.wantTitle {
				t.Errorf("title %q items %+v, want %q", res.FeedTitle, res.Items, tc.wantTitle)
			}
		})
	}
}

func bigRSS(n int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Big</title>`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<item><title>Item %d</title><link>https://big.example/%d</link></item>", i, i)
	}
	b.WriteString("</channel></rss>")
	return b.String()
}

func bigAtom(n int) string {
	var b strings.Builder
	b.WriteString(`<feed xmlns="http://www.w3.org/2005/Atom"><title>Big</title>`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<entry><title>Item %d</title><link href="https://big.example/%d"/><id>%d</id></entry>`, i, i, i)
	}
	b.WriteString("</feed>")
	return b.String()
}

func bigJSON(n int) string {
	var b strings.Builder
	b.WriteString(`{"version":"https://jsonfeed.org/version/1.1","title":"Big","items":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"%d","title":"Item %d","url":"https://big.example/%d"}`, i, i, i)
	}
	b.WriteString(`],"home_page_url":"https://big.example/"}`)
	return b.String()
}

func TestHugeFeedIsCapped(t *testing.T) {
	const n = 100_000
	cases := []struct {
		name, contentType, body string
	}{
		{"rss", "application/rss+xml", bigRSS(n)},
		{"atom", "application/atom+xml", bigAtom(n)},
		{"json", "application/feed+json", bigJSON(n)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, tc.contentType, tc.body)
			f := newFetcher()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			res, err := f.Fetch(context.Background(), sources.Request{URL: srv.URL})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Items) != DefaultMaxItems || res.FeedTitle != "Big" {
				t.Fatalf("%d items, title %q; want %d", len(res.Items), res.FeedTitle, DefaultMaxItems)
			}
			first, last := res.Items[0], res.Items[len(res.Items)-1]
			if first.Title != "Item 0" || last.Title != fmt.Sprintf("Item %d", DefaultMaxItems-1) ||
				last.URL != fmt.Sprintf("https://big.example/%d", DefaultMaxItems-1) {
				t.Errorf("kept %q … %q (%s)", first.Title, last.Title, last.URL)
			}
			// Uncapped, gofeed allocates 150 MiB to over 1 GiB on these
			// bodies; capped before parsing it stays well under 100 MiB.
			if alloc := (after.TotalAlloc - before.TotalAlloc) >> 20; alloc > 100 {
				t.Errorf("body %d KiB: fetching and parsing allocated %d MiB", len(tc.body)>>10, alloc)
			}
		})
	}
}

func TestMaxItemsKeepsFirstEntries(t *testing.T) {
	rdf := `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="https://r.example/"><title>RDF</title><link>https://r.example/</link></channel>
<item rdf:about="https://r.example/1"><title>One</title><link>https://r.example/1</link></item>
<item rdf:about="https://r.example/2"><title>Two</title><link>https://r.example/2</link></item>
<item rdf:about="https://r.example/3"><title>Three</title><link>https://r.example/3</link></item>
</rdf:RDF>`
	cases := []struct{ name, body string }{
		{"rss", bigRSS(7)},
		{"atom", bigAtom(7)},
		{"json", bigJSON(7)},
		{"rdf", rdf},
		{"latin-1 rss", strings.Replace(bigRSS(7), "Item 1<", "Caf\xe9 1<", 1)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, "application/xml", tc.body)
			f := newFetcher()
			f.MaxItems = 2
			res, err := f.Fetch(context.Background(), sources.Request{URL: srv.URL})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Items) != 2 || res.FeedTitle == "" {
				t.Fatalf("%d items, title %q", len(res.Items), res.FeedTitle)
			}
			if res.Items[0].URL == "" || res.Items[1].URL == "" || res.Items[0].URL == res.Items[1].URL {
				t.Errorf("items %+v", res.Items)
			}
		})
	}
}

// TestCapItemsCutsBeforeParsing checks the cut document itself, not just
// the final slice: it must be a valid feed holding exactly the first
// entries.
func TestCapItemsCutsBeforeParsing(t *testing.T) {
	cases := []struct {
		name string
		kind gofeed.FeedType
		body string
	}{
		{"rss", gofeed.FeedTypeRSS, bigRSS(50)},
		{"atom", gofeed.FeedTypeAtom, bigAtom(50)},
		{"json", gofeed.FeedTypeJSON, bigJSON(50)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cut := capItems([]byte(tc.body), tc.kind, 3)
			if len(cut) >= len(tc.body) {
				t.Fatalf("not cut: %d bytes of %d", len(cut), len(tc.body))
			}
			feed, err := gofeed.NewParser().Parse(bytes.NewReader(cut))
			if err != nil {
				t.Fatalf("cut document does not parse: %v\n%s", err, cut)
			}
			if len(feed.Items) != 3 || feed.Items[2].Title != "Item 2" || feed.Title != "Big" {
				t.Errorf("cut feed %q has %d items", feed.Title, len(feed.Items))
			}
		})
	}
}

func utf16LE(s string) string {
	var b strings.Builder
	b.WriteString("\xFF\xFE")
	for _, r := range s {
		for _, u := range utf16.Encode([]rune{r}) {
			b.WriteByte(byte(u))
			b.WriteByte(byte(u >> 8))
		}
	}
	return b.String()
}
