package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

const articleHTML = `<!doctype html><html lang="en"><head>
<title>  Tag Title | Site </title>
<meta property="og:title" content="OG Title">
<meta name="description" content="Meta description">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle",
 "headline":"JSON-LD Headline","datePublished":"2026-10-01T08:30:00Z","author":{"@type":"Person","name":"Ada Lovelace"},
 "description":"LD description"}</script>
</head><body><article><h1>JSON-LD Headline</h1>` + words + `</article></body></html>`

func TestNativeFetchMapsOneItem(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{
		"/start": func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/final", http.StatusFound) },
		"/final": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Last-Modified", "Sat, 28 Nov 2026 10:00:00 GMT")
			_, _ = w.Write([]byte(articleHTML))
		},
	})
	p := &Fetcher{Client: nativeFetcher(t)}
	res, err := p.Fetch(context.Background(), sources.Request{URL: s.URL + "/start"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 {
		t.Fatalf("%d items, want exactly 1", len(res.Items))
	}
	it := res.Items[0]
	want := time.Date(2026, 10, 1, 8, 30, 0, 0, time.UTC)
	if it.Title != "JSON-LD Headline" || it.Summary != "LD description" || it.Author != "Ada Lovelace" {
		t.Errorf("JSON-LD must win: title %q summary %q author %q", it.Title, it.Summary, it.Author)
	}
	if it.URL != s.URL+"/start" {
		t.Errorf("URL %q: must be the source URL, not the redirect target", it.URL)
	}
	if it.PublishedAt == nil || !it.PublishedAt.Equal(want) {
		t.Errorf("PublishedAt %v", it.PublishedAt)
	}
	if it.GUID != "" || it.Categories == nil || len(it.Categories) != 0 || !strings.Contains(it.ContentHTML, "Lorem ipsum") {
		t.Errorf("item %+v", it)
	}
	if res.ETag != `"v1"` || res.LastModified != "Sat, 28 Nov 2026 10:00:00 GMT" || res.FinalURL != s.URL+"/final" ||
		res.HTTPStatus != 200 || res.FeedTitle != "JSON-LD Headline" {
		t.Errorf("result %+v", res)
	}
}

func TestNativeMetadataFallbacks(t *testing.T) {
	cases := []struct {
		name, head       string
		title, summary   string
		wantPublishedSet bool
	}{
		{"open graph before title", `<title>Tag</title><meta property="og:title" content="OG"><meta property="og:description" content="OG desc">`, "OG", "OG desc", false},
		{"title tag trimmed", "<title>\n  Just the tag \n</title>", "Just the tag", "", false},
		{"nothing", "", "Untitled", "", false},
		{"article time", `<title>T</title><meta property="article:published_time" content="2026-01-02T03:04:05Z">`, "T", "", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, map[string]http.HandlerFunc{
				"/": serve("text/html", "<html><head>"+tc.head+"</head><body>"+words+"</body></html>"),
			})
			res, err := (&Fetcher{Client: nativeFetcher(t)}).Fetch(context.Background(), sources.Request{URL: s.URL + "/"})
			if err != nil {
				t.Fatal(err)
			}
			it := res.Items[0]
			if it.Title != tc.title || it.Summary != tc.summary || (it.PublishedAt != nil) != tc.wantPublishedSet {
				t.Errorf("title %q summary %q published %v", it.Title, it.Summary, it.PublishedAt)
			}
		})
	}
}

func TestNativeConditionalGet(t *testing.T) {
	s := newSite(t, map[string]http.HandlerFunc{
		"/": func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("If-None-Match") == `"v1"` && r.Header.Get("If-Modified-Since") == "Sat, 28 Nov 2026 10:00:00 GMT" {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Header().Set("ETag", `"v1"`)
			serve("text/html", articleHTML)(w, r)
		},
	})
	p := &Fetcher{Client: nativeFetcher(t)}
	res, err := p.Fetch(context.Background(), sources.Request{URL: s.URL + "/", ETag: `"v1"`, LastModified: "Sat, 28 Nov 2026 10:00:00 GMT"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NotModified || len(res.Items) != 0 || res.ETag != `"v1"` || res.LastModified != "Sat, 28 Nov 2026 10:00:00 GMT" {
		t.Fatalf("result %+v", res)
	}
}

func TestNativeFailures(t *testing.T) {
	shell := `<html><head><title>App</title><script>` + strings.Repeat("var word = 1; ", 200) +
		`</script></head><body><div id="root"></div><noscript>` + words + `</noscript></body></html>`
	cases := []struct {
		name    string
		handler http.HandlerFunc
		kind    sources.ErrorKind
		msg     string
	}{
		{"pdf", serve("application/pdf", "%PDF-1.7 ..."), sources.KindPermanent, "content type application/pdf is not HTML"},
		{"json", serve("application/json", `{"a":1}`), sources.KindPermanent, "content type application/json is not HTML"},
		{"client-rendered shell", serve("text/html", shell), sources.KindPermanent, "page has no readable content"},
		{"empty", serve("text/html", ""), sources.KindPermanent, "page has no readable content"},
		{"404", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "nope", 404) }, sources.KindPermanent, "HTTP 404"},
		{"410", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusGone) }, sources.KindGone, "HTTP 410"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t, map[string]http.HandlerFunc{"/": tc.handler})
			_, err := (&Fetcher{Client: nativeFetcher(t)}).Fetch(context.Background(), sources.Request{URL: s.URL + "/"})
			fe := fetchErr(t, err)
			if fe.Kind != tc.kind || fe.Msg != tc.msg {
				t.Errorf("kind %v msg %q, want %v %q", fe.Kind, fe.Msg, tc.kind, tc.msg)
			}
		})
	}
}

func TestNativeDecodesLegacyCharset(t *testing.T) {
	// "Café" in windows-1252.
	page := "<html><head><title>Caf\xe9</title></head><body>" + words + "</body></html>"
	s := newSite(t, map[string]http.HandlerFunc{"/": serve("text/html; charset=windows-1252", page)})
	res, err := (&Fetcher{Client: nativeFetcher(t)}).Fetch(context.Background(), sources.Request{URL: s.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if it := res.Items[0]; it.Title != "Café" || !strings.Contains(it.ContentHTML, "Café") {
		t.Fatalf("title %q", it.Title)
	}
}

func TestNoFetcherConfigured(t *testing.T) {
	_, err := (&Fetcher{}).Fetch(context.Background(), sources.Request{URL: "https://example.com/"})
	if sources.KindOf(err) != sources.KindPermanent {
		t.Fatalf("err = %v", err)
	}
}
