package web

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

func TestValidateAcceptsHTMLAndListsFeeds(t *testing.T) {
	page := `<html><head><title>Blog home</title>
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<link rel="alternate" type="application/atom+xml" href="https://cdn.example.org/atom">
</head><body>hi</body></html>`
	s := newSite(t, map[string]http.HandlerFunc{
		"/": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/home", http.StatusMovedPermanently)
		},
		"/home":  serve("text/html; charset=utf-8", page),
		"/xhtml": serve("application/xhtml+xml", `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>X</title></head><body>x</body></html>`),
	})
	// Firecrawl is configured but out of credits: validation must not use it.
	fs, fc := fakeFirecrawl(t, firecrawltest.Config{})
	fs.SetCredits(0)
	p := &Fetcher{Client: nativeFetcher(t), Firecrawl: fc}
	v, err := p.Validate(context.Background(), s.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if v.Title != "Blog home" || len(v.FeedLinks) != 2 || v.FeedLinks[0] != s.URL+"/feed.xml" || v.FeedLinks[1] != "https://cdn.example.org/atom" {
		t.Errorf("validation %+v", v)
	}
	if _, err := p.Validate(context.Background(), s.URL+"/xhtml"); err != nil {
		t.Errorf("XHTML: %v", err)
	}
	if n := len(fs.Requests()); n != 0 {
		t.Errorf("validation made %d Firecrawl requests", n)
	}
}

func TestValidateNamesTheReason(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s := newSite(t, map[string]http.HandlerFunc{
		"/missing": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusNotFound) },
		"/broken":  func(w http.ResponseWriter, r *http.Request) { http.Error(w, "oops", http.StatusInternalServerError) },
		"/pdf":     serve("application/pdf", "%PDF-1.7"),
		"/empty":   serve("text/html", " \n"),
		"/slow": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		},
	})
	cases := []struct{ path, want string }{
		{"/missing", "HTTP 404"},
		{"/broken", "HTTP 500"},
		{"/pdf", "content type application/pdf is not HTML"},
		{"/empty", "empty body"},
		{"/slow", "timed out after 300ms"},
	}
	p := &Fetcher{Client: nativeFetcher(t), ValidateTimeout: 300 * time.Millisecond}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			v, err := p.Validate(context.Background(), s.URL+tc.path)
			if err == nil {
				t.Fatalf("accepted: %+v", v)
			}
			if err.Error() != tc.want {
				t.Errorf("error %q, want %q", err.Error(), tc.want)
			}
		})
	}
}

func TestTimeoutReasonFormat(t *testing.T) {
	if got := "timed out after " + fmtDuration(DefaultValidateTimeout); got != "timed out after 10s" {
		t.Fatalf("got %q", got)
	}
}
