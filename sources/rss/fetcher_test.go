package rss

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// parseFeed reads body whole, as a fetch with no memory of settled
// entries does.
func parseFeed(body []byte, contentType, httpCharset, feedURL string, maxItems int) (*parsedFeed, error) {
	return readFeed(body, contentType, httpCharset, feedURL, maxItems, nil, nil)
}

func newFetcher() *Fetcher {
	return &Fetcher{Client: fetch.New(fetch.Options{
		AllowPrivateNetworks: true,
		PerDomainGap:         -1,
		RetryBaseDelay:       -1,
		Attempts:             1,
		Logger:               slog.New(slog.DiscardHandler),
	})}
}

func serve(t *testing.T, contentType, body string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func ptime(s string) *time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	t = t.UTC()
	return &t
}

const rss2Feed = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel>
  <title>  Example   Blog </title>
  <link>https://blog.example.com/</link>
  <item>
    <title>Full &amp; rich</title>
    <link>/posts/full</link>
    <guid isPermaLink="false">post-1</guid>
    <dc:creator>Ada Lovelace</dc:creator>
    <pubDate>Mon, 02 Mar 2026 10:00:00 +0200</pubDate>
    <description>Short teaser</description>
    <content:encoded><![CDATA[<p>The <b>whole</b> article.</p>]]></content:encoded>
    <category>Go</category>
    <category>go</category>
    <category>Feeds</category>
  </item>
  <item>
    <title>Teaser only</title>
    <guid isPermaLink="true">https://blog.example.com/posts/teaser</guid>
    <description><![CDATA[<p>Only an <i>HTML</i> description.</p>]]></description>
  </item>
</channel>
</rss>`

const atomFeed = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Atom Example</title>
  <link href="https://atom.example.org/"/>
  <id>urn:uuid:feed</id>
  <updated>2026-03-03T09:00:00Z</updated>
  <entry>
    <title>Atom entry</title>
    <link rel="alternate" href="https://atom.example.org/2026/entry"/>
    <id>urn:uuid:entry-1</id>
    <updated>2026-03-03T09:00:00+01:00</updated>
    <author><name>Grace Hopper</name></author>
    <summary>Entry summary</summary>
    <content type="html">&lt;p&gt;Entry body&lt;/p&gt;</content>
    <category term="compilers"/>
  </entry>
</feed>`

const jsonFeed = `{
  "version": "https://jsonfeed.org/version/1.1",
  "title": "JSON Example",
  "home_page_url": "https://json.example.net/",
  "items": [
    {"id": "j1", "url": "https://json.example.net/one", "title": "One",
     "content_html": "<p>One body</p>", "summary": "One summary",
     "date_published": "2026-03-04T08:00:00-05:00", "authors": [{"name": "Linus"}], "tags": ["a", "b"]},
    {"id": "j2", "url": "two", "title": "Two", "content_text": "Plain text only"}
  ]
}`

func TestFetchFormats(t *testing.T) {
	cases := []struct {
		name, contentType, body, title string
		want                           []sources.FeedItem
	}{
		{
			name: "rss2 with content:encoded", contentType: "application/rss+xml", body: rss2Feed, title: "Example Blog",
			want: []sources.FeedItem{
				{
					Title: "Full & rich", URL: "https://blog.example.com/posts/full", GUID: "post-1", Author: "Ada Lovelace",
					PublishedAt: ptime("2026-03-02T08:00:00Z"), Summary: "Short teaser",
					ContentHTML: "<p>The <b>whole</b> article.</p>", Categories: []string{"Go", "Feeds"},
				},
				{
					Title: "Teaser only", URL: "https://blog.example.com/posts/teaser", GUID: "https://blog.example.com/posts/teaser",
					Summary: "<p>Only an <i>HTML</i> description.</p>",
				},
			},
		},
		{
			name: "atom", contentType: "application/atom+xml", body: atomFeed, title: "Atom Example",
			want: []sources.FeedItem{{
				Title: "Atom entry", URL: "https://atom.example.org/2026/entry", GUID: "urn:uuid:entry-1", Author: "Grace Hopper",
				PublishedAt: ptime("2026-03-03T08:00:00Z"), Summary: "Entry summary", ContentHTML: "<p>Entry body</p>",
				Categories: []string{"compilers"},
			}},
		},
		{
			name: "json feed", contentType: "application/feed+json", body: jsonFeed, title: "JSON Example",
			want: []sources.FeedItem{
				{
					Title: "One", URL: "https://json.example.net/one", GUID: "j1", Author: "Linus",
					PublishedAt: ptime("2026-03-04T13:00:00Z"), Summary: "One summary", ContentHTML: "<p>One body</p>",
					Categories: []string{"a", "b"},
				},
				{Title: "Two", URL: "https://json.example.net/two", GUID: "j2", ContentHTML: "<p>Plain text only</p>"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, tc.contentType, tc.body)
			res, err := newFetcher().Fetch(context.Background(), sources.Request{URL: srv.URL + "/feed"})
			if err != nil {
				t.Fatal(err)
			}
			if res.FeedTitle != tc.title || res.HTTPStatus != 200 || res.NotModified || res.FinalURL != srv.URL+"/feed" {
				t.Errorf("result: %+v", res)
			}
			if len(res.Items) != len(tc.want) {
				t.Fatalf("%d items, want %d: %+v", len(res.Items), len(tc.want), res.Items)
			}
			for i := range tc.want {
				if !reflect.DeepEqual(res.Items[i], tc.want[i]) {
					t.Errorf("item %d:\n got %s\nwant %s", i, dump(res.Items[i]), dump(tc.want[i]))
				}
			}
		})
	}
}

func dump(fi sources.FeedItem) string {
	pub := "<nil>"
	if fi.PublishedAt != nil {
		pub = fi.PublishedAt.Format(time.RFC3339) + " " + fi.PublishedAt.Location().String()
	}
	return strings.Join([]string{fi.Title, fi.URL, fi.GUID, fi.Author, pub, fi.Summary, fi.ContentHTML, strings.Join(fi.Categories, "|")}, " ¦ ")
}

func TestRelativeLinksResolveAgainstFetchedURL(t *testing.T) {
	body := `<rss version="2.0"><channel><title>t</title>
<item><title>a</title><link>a/1.html</link></item>
<item><title>b</title><link>javascript:alert(1)</link></item>
<item><title>c</title><guid>not-a-url</guid></item>
</channel></rss>`
	srv := serve(t, "text/xml", body)
	res, err := newFetcher().Fetch(context.Background(), sources.Request{URL: srv.URL + "/dir/feed.xml"})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{res.Items[0].URL, res.Items[1].URL, res.Items[2].URL}
	want := []string{srv.URL + "/dir/a/1.html", "", ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("URLs %q, want %q", got, want)
	}
	if res.Items[2].GUID != "not-a-url" {
		t.Errorf("GUID %q", res.Items[2].GUID)
	}
}

func TestNotModifiedRoundTrip(t *testing.T) {
	const etag = `W/"5e-abc"`
	const lastMod = "Tue, 03 Mar 2026 10:00:00 GMT"
	var conditional, unconditional atomic.Int32
	var sawIMS atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawIMS.Store(r.Header.Get("If-Modified-Since"))
		if r.Header.Get("If-None-Match") == etag && r.Header.Get("If-Modified-Since") == lastMod {
			conditional.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		unconditional.Add(1)
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", lastMod)
		w.Header().Set("Content-Type", "application/rss+xml")
		_, _ = w.Write([]byte(rss2Feed))
	}))
	defer srv.Close()
	f := newFetcher()

	first, err := f.Fetch(context.Background(), sources.Request{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if first.ETag != etag || first.LastModified != lastMod || len(first.Items) != 2 {
		t.Fatalf("first fetch: etag %q lm %q items %d", first.ETag, first.LastModified, len(first.Items))
	}
	second, err := f.Fetch(context.Background(), sources.Request{URL: srv.URL, ETag: first.ETag, LastModified: first.LastModified})
	if err != nil {
		t.Fatal(err)
	}
	want := sources.Result{NotModified: true, HTTPStatus: 304, ETag: etag, LastModified: lastMod, FinalURL: srv.URL}
	if !reflect.DeepEqual(*second, want) {
		t.Errorf("second fetch = %+v, want %+v", *second, want)
	}
	if conditional.Load() != 1 || unconditional.Load() != 1 {
		t.Errorf("conditional %d unconditional %d", conditional.Load(), unconditional.Load())
	}

	// Only an ETag stored: no If-Modified-Since may be invented.
	if _, err := f.Fetch(context.Background(), sources.Request{URL: srv.URL, ETag: etag}); err != nil {
		t.Fatal(err)
	}
	if ims := sawIMS.Load().(string); ims != "" {
		t.Errorf("If-Modified-Since %q sent without a stored Last-Modified", ims)
	}
}

func TestNotAFeed(t *testing.T) {
	cases := []struct{ name, contentType, body, wantMsg string }{
		{"html page", "text/html; charset=utf-8", "<!DOCTYPE html><html><head><title>Blog</title></head><body><p>hi</p></body></html>",
			"not a feed: got an HTML page, not RSS, Atom or JSON Feed"},
		{"html served as xml", "application/xml", "<html><body>hello</body></html>",
			"not a feed: got an HTML page, not RSS, Atom or JSON Feed"},
		{"empty", "application/rss+xml", "   ", "not a feed: empty response"},
		{"plain text", "text/plain", "just some words", "not a feed: failed to detect feed type"},
		{"broken json", "application/feed+json", `{"version":"https://jsonfeed.org/version/1","items":[{]}`, "not a feed: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := serve(t, tc.contentType, tc.body)
			_, err := newFetcher().Fetch(context.Background(), sources.Request{URL: srv.URL})
			var fe *sources.FetchError
			if !errors.As(err, &fe) || fe.Kind != sources.KindPermanent || !strings.HasPrefix(fe.Msg, tc.wantMsg) {
				t.Fatalf("err %v, want permanent %q", err, tc.wantMsg)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/feed", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(rss2Feed)) })
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body>not a feed</body></html>"))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f := newFetcher()
	f.ValidateTimeout = 200 * time.Millisecond

	got, err := f.Validate(context.Background(), srv.URL+"/feed")
	want := Validation{Title: "Example Blog", ItemCount: 2, SiteURL: "https://blog.example.com/"}
	if err != nil || got != want {
		t.Errorf("valid feed: %+v %v, want %+v", got, err, want)
	}
	for path, want := range map[string]string{
		"/missing": "HTTP 404",
		"/page":    "not a feed: got an HTML page",
		"/slow":    "timed out after 200ms",
	} {
		_, err := f.Validate(context.Background(), srv.URL+path)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", path, err, want)
		}
	}
}
