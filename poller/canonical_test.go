package poller_test

import (
	"fmt"
	"testing"

	"github.com/feedpoller/feedpoller/model"
)

// TestCanonicalURLOnlyFromTheSameSite: an article page's canonical URL (or
// og:url) becomes the article's URL only when it is on the item link's own
// registrable domain and not on an internal host. A page may not claim
// another site's identity, nor make the stored link point inside the
// network.
func TestCanonicalURLOnlyFromTheSameSite(t *testing.T) {
	cases := []struct {
		name, canonical string
		og              bool
		adopted         bool
	}{
		{"another site", "https://other-site.example/story", false, false},
		{"another site as og:url", "https://other-site.example/story", true, false},
		{"a look-alike domain", "https://example.com.evil.example/story", false, false},
		{"loopback address", "http://127.0.0.1:8080/story", false, false},
		{"IPv6 loopback", "http://[::1]/story", false, false},
		{"private address", "http://10.0.0.5/story", false, false},
		{"link-local metadata address", "http://169.254.169.254/latest/meta-data", true, false},
		{"localhost", "http://localhost/story", false, false},
		{"single-label intranet name", "http://intranet/story", false, false},
		{"same site, other subdomain", "https://www.example.com/canonical-story", false, true},
		{"same site as og:url", "https://news.example.com/og-story", true, true},
	}
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		var entries []entry
		for i, c := range cases {
			tag := `<link rel="canonical" href="` + c.canonical + `">`
			if c.og {
				tag = `<meta property="og:url" content="` + c.canonical + `">`
			}
			path := fmt.Sprintf("/story-%d", i)
			e.feeds.set(path, `<html><head><title>Story</title>`+tag+`</head><body><article><h1>Story</h1>`+
				body(fmt.Sprintf("story number %d", i))+`</article></body></html>`)
			// A teaser only, so the article page is fetched and its
			// canonical URL read.
			entries = append(entries, entry{fmt.Sprint(i), e.feeds.named(path), c.name, "<p>Teaser.</p>"})
		}
		// Two feeds: a poll fetches at most 10 article pages.
		half := len(entries) / 2
		e.feeds.set("/feed-a", rssDoc("Canonical A", entries[:half]...))
		e.feeds.set("/feed-b", rssDoc("Canonical B", entries[half:]...))
		if a, b := e.pollNow(e.addSource("/feed-a")), e.pollNow(e.addSource("/feed-b")); a.ItemsNew+b.ItemsNew != len(cases) {
			t.Fatalf("polls %+v and %+v, want %d new in all", a, b, len(cases))
		}
		for i, c := range cases {
			var got string
			if err := e.store.DB().Get(&got, e.store.DB().Rebind("SELECT external_url FROM feed_articles WHERE external_id = ?"), fmt.Sprint(i)); err != nil {
				t.Fatal(err)
			}
			want := normalized(t, e.feeds.named(fmt.Sprintf("/story-%d", i)))
			if c.adopted {
				want = normalized(t, c.canonical)
			}
			if got != want {
				t.Errorf("%s: stored under %s, want %s", c.name, got, want)
			}
		}
	})
}
