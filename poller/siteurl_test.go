package poller_test

import (
	"context"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/model"
)

// A poll stores the site the feed names; a later poll whose feed names
// none (or an unusable one), and a 304, keep it; a feed naming another
// site replaces it. Polls with and without new articles take different
// save paths, so both are covered.
func TestPollKeepsTheFeedsSite(t *testing.T) {
	forEachDialect(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect, model.RelevanceProfile{})
		one := entry{"g1", "https://news.example/1", "One", body("one")}
		two := entry{"g2", "https://news.example/2", "Two", body("two")}
		withLink := func(link string, entries ...entry) string {
			return strings.Replace(rssDoc("News", entries...), "<link>https://news.example/</link>", link, 1)
		}
		src := e.addSource("/feed")
		steps := []struct {
			name, doc, want string
		}{
			{"first poll stores it", withLink("<link>https://news.example/</link>", one), "https://news.example/"},
			{"a feed without a link keeps it", withLink("", one), "https://news.example/"},
			{"a 304 keeps it", "", "https://news.example/"},
			{"another link replaces it", withLink("<link>/home/</link>", one), e.feeds.URL + "/home/"},
			{"a javascript: link keeps it", withLink("<link>javascript:alert(1)</link>", one, two), e.feeds.URL + "/home/"},
		}
		for _, s := range steps {
			if s.doc != "" {
				e.feeds.set("/feed", s.doc)
			}
			out := e.pollNow(src)
			if out.Status != model.StatusOK && out.Status != model.StatusNotModified {
				t.Fatalf("%s: poll %+v", s.name, out)
			}
			if s.doc == "" && out.Status != model.StatusNotModified {
				t.Fatalf("%s: status %s, want not_modified", s.name, out.Status)
			}
			got, err := e.store.GetSource(context.Background(), e.ws.ID, src.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.SiteURL != s.want {
				t.Errorf("%s: site URL %q, want %q", s.name, got.SiteURL, s.want)
			}
		}
	})
}
