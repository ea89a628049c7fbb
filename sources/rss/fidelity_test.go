package rss

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/extract"
)

// fetchFixture serves testdata/fidelity/name with contentType and fetches
// it as a poll would.
func fetchFixture(t *testing.T, name, contentType string) *sources.Result {
	t.Helper()
	body, err := os.ReadFile(filepath.Join("testdata", "fidelity", name))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	res, err := newFetcher().Fetch(context.Background(), sources.Request{URL: srv.URL + "/" + name})
	if err != nil {
		t.Fatalf("fetch %s as %q: %v", name, contentType, err)
	}
	return res
}

func TestEncodingFidelity(t *testing.T) {
	cases := []struct {
		name, file, contentType, feedTitle, itemTitle string
	}{
		{"latin-1 without declaration", "latin1-undeclared.xml", "application/rss+xml", "Café naïve", "Café naïve crème brûlée"},
		{"latin-1 named by the HTTP charset", "latin1-undeclared.xml", "application/rss+xml; charset=iso-8859-1", "Café naïve", "Café naïve crème brûlée"},
		{"utf-8 declared windows-1252", "utf8-declared-windows-1252.xml", "text/xml", "Euro €", "Euro € “quoted”"},
		{"utf-8 declared windows-1252, HTTP says windows-1252", "utf8-declared-windows-1252.xml", "text/xml; charset=windows-1252", "Euro €", "Euro € “quoted”"},
		{"utf-16be without BOM, HTTP utf-16", "utf16be-nobom.xml", "application/xml; charset=utf-16", "Naïve ☃", "Naïve ☃ snowman"},
		{"utf-16le without BOM, HTTP utf-16le", "utf16le-nobom.xml", "application/xml; charset=UTF-16LE", "Naïve ☃", "Naïve ☃ snowman"},
		{"utf-16be without BOM, no HTTP charset", "utf16be-nobom.xml", "application/xml", "Naïve ☃", "Naïve ☃ snowman"},
		{"xml 1.1 declaration", "xml11.xml", "application/rss+xml", "Grüße", "Grüße aus Köln"},
		// Declared encodings that already worked.
		{"windows-1252 declared", "windows-1252.xml", "application/rss+xml", "Quotes", "“quoted” – €5"},
		{"koi8-r declared", "koi8-r.xml", "application/rss+xml", "Новости", "Привет, мир"},
		{"windows-1251 declared", "windows-1251.xml", "application/rss+xml", "Новости", "Привет, мир"},
		{"shift_jis declared", "shift_jis.xml", "application/rss+xml", "ニュース", "日本語のタイトル"},
		{"gb2312 declared", "gb2312.xml", "application/rss+xml", "新闻", "中文标题"},
		{"euc-kr declared", "euc-kr.xml", "application/rss+xml", "뉴스", "한국어 제목"},
		{"utf-16 with BOM", "utf16-bom.xml", "application/rss+xml", "Naïve ☃", "Naïve ☃ snowman"},
		{"HTTP charset agrees with the declaration", "windows-1251.xml", "text/xml; charset=windows-1251", "Новости", "Привет, мир"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := fetchFixture(t, tc.file, tc.contentType)
			if res.FeedTitle != tc.feedTitle {
				t.Errorf("feed title %q, want %q", res.FeedTitle, tc.feedTitle)
			}
			if len(res.Items) != 1 {
				t.Fatalf("%d items, want 1", len(res.Items))
			}
			it := res.Items[0]
			if it.Title != tc.itemTitle || it.Summary != tc.itemTitle {
				t.Errorf("item title %q summary %q, want %q", it.Title, it.Summary, tc.itemTitle)
			}
			if strings.ContainsRune(it.Title+it.Summary+res.FeedTitle, '\uFFFD') {
				t.Errorf("U+FFFD in %q", it.Title)
			}
		})
	}
}

func TestTitlesAndNamesArePlainText(t *testing.T) {
	rss := fetchFixture(t, "titles.xml", "application/rss+xml")
	atom := fetchFixture(t, "titles.atom", "application/atom+xml")
	if rss.FeedTitle != "Feed & Co" || atom.FeedTitle != "Feed & Co" {
		t.Errorf("feed titles %q and %q, want %q", rss.FeedTitle, atom.FeedTitle, "Feed & Co")
	}
	want := []string{
		"Loïc Le Meur Joins RSS Board", "AT&T", "Test: bold", "Code Test", "5 < 6 && 7 > 3",
		"Less: <", "Less: <", "AT&T", "Bold & brave",
	}
	var got []string
	for _, it := range append(rss.Items, atom.Items...) {
		got = append(got, it.Title)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("titles\n got %q\nwant %q", got, want)
	}
	if a := rss.Items[0].Author; a != "Loïc Le Meur" {
		t.Errorf("author %q, want %q", a, "Loïc Le Meur")
	}
}

func TestPlainTextStaysText(t *testing.T) {
	atom := fetchFixture(t, "plain-text.atom", "application/atom+xml")
	json := fetchFixture(t, "plain-text.json", "application/feed+json")
	cases := []struct {
		name, html, markdown string
	}{
		{"atom text content", atom.Items[0].ContentHTML,
			"Write \\<b>not a tag\\</b> to get bold, and 2 * 3 * 4.\n\nSecond paragraph,  \nwith a line break."},
		{"atom text summary", atom.Items[1].Summary, "Use \\<em> sparingly.\n\nReally."},
		{"json content_text", json.Items[0].ContentHTML, "A \\<b>not a tag\\</b> & more.\n\nSecond paragraph."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := extract.FromFragment(tc.html, "https://plain.example/")
			if err != nil {
				t.Fatal(err)
			}
			if doc.Markdown != tc.markdown {
				t.Errorf("markdown of %q\n got %q\nwant %q", tc.html, doc.Markdown, tc.markdown)
			}
		})
	}
}

func TestMediaOnlyItemsKeepTheirContent(t *testing.T) {
	photo := fetchFixture(t, "media.xml", "application/rss+xml").Items[0]
	if photo.Summary != `<img src="https://photos.example/0001.jpg" alt="">` || photo.URL != "https://photos.example/0001.html" {
		t.Errorf("photocast item %s", dump(photo))
	}
	items := fetchFixture(t, "media.atom", "application/atom+xml").Items
	if len(items) != 3 {
		t.Fatalf("%d items, want 3", len(items))
	}
	video := items[0]
	doc, err := extract.FromFragment(video.ContentHTML, video.URL)
	if err != nil {
		t.Fatal(err)
	}
	wantMD := "![](https://img.video.example/abc/hqdefault.jpg)\n\nHow we build feeds \\<fast>.\n\nChapters:  \n00:00 Intro"
	if doc.Markdown != wantMD {
		t.Errorf("video body\n got %q\nwant %q", doc.Markdown, wantMD)
	}
	if items[1].ContentHTML != "" || items[1].Summary != "A picture of the office." {
		t.Errorf("binary content stored as text: %s", dump(items[1]))
	}
	if items[2].ContentHTML != `<p><img src="https://binary.example/2.png" alt=""></p>` {
		t.Errorf("out-of-line image content: %q", items[2].ContentHTML)
	}
}

func TestEveryPlaceOfAnItemLink(t *testing.T) {
	rss := fetchFixture(t, "links.xml", "application/rss+xml").Items
	atom := fetchFixture(t, "links.atom", "application/atom+xml").Items
	json := fetchFixture(t, "links.json", "application/feed+json").Items
	type link struct {
		url, guid string
		media     bool
	}
	var got []link
	for _, it := range append(append(rss, atom...), json...) {
		got = append(got, link{it.URL, it.GUID, it.LinkIsMedia})
	}
	want := []link{
		{"https://links.example/atom-link", "", false},
		{"https://links.example/media/ep12.mp3", "episode-12", true},
		{"https://links.example/original", "", false},
		{"", "tag:links.example,2026:announcement-7", false},
		{"https://links.example/media/picture.jpg", "", true},
		{"", "", false},
		{"", "tag:status.example,2026:maint-1", false},
		{"", "urn:uuid:0b9f4a8e-7d3c-4e61-9a51-3f0c2d7e8b10", false},
		{"https://elsewhere.example/story", "l1", false},
	}
	if len(got) != len(want) {
		t.Fatalf("%d items, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestAuthorsAreInheritedAndReadAsText(t *testing.T) {
	var got []string
	for _, f := range []struct{ file, ct string }{
		{"authors.atom", "application/atom+xml"}, {"authors.json", "application/feed+json"}, {"authors.xml", "application/rss+xml"},
	} {
		for _, it := range fetchFixture(t, f.file, f.ct).Items {
			got = append(got, it.Author)
		}
	}
	want := []string{"The Team", "Ada", "JSON Team", "Grace", "Foo Bar", "Foo Bar"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("authors %q, want %q", got, want)
	}
}

func TestNotAFeedKeepsTheHTTPStatus(t *testing.T) {
	srv := serve(t, "text/html", "<!DOCTYPE html><html><body>a page</body></html>")
	_, err := newFetcher().Fetch(context.Background(), sources.Request{URL: srv.URL})
	var fe *sources.FetchError
	if !errors.As(err, &fe) || fe.Status != http.StatusOK || !strings.HasPrefix(fe.Msg, "not a feed") {
		t.Fatalf("err %#v, want a not-a-feed error carrying status 200", err)
	}
}
