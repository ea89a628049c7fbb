package rss

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

func TestFeedHints(t *testing.T) {
	minutes := func(n int64) *time.Duration { d := time.Duration(n) * time.Minute; return &d }
	huge := time.Duration(math.MaxInt64)
	rss := func(channel string) string {
		return `<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"
 xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"><channel><title>T</title>
<link>https://site.example/</link>` + channel + `<item><title>a</title><link>https://site.example/a</link></item></channel></rss>`
	}
	cases := []struct {
		name string
		body string
		want sources.Hints
	}{
		{"no hints", rss(""), sources.Hints{FeedRead: true}},
		{"ttl", rss("<ttl> 120 </ttl>"), sources.Hints{FeedRead: true, TTL: minutes(120)}},
		{"ttl 0 is kept for the policy to judge", rss("<ttl>0</ttl>"), sources.Hints{FeedRead: true, TTL: minutes(0)}},
		{"ttl of a million minutes", rss("<ttl>1000000</ttl>"), sources.Hints{FeedRead: true, TTL: minutes(1000000)}},
		{"ttl of a billion minutes is past any duration", rss("<ttl>1000000000</ttl>"),
			sources.Hints{FeedRead: true, TTL: &huge}},
		{"ttl beyond any duration", rss("<ttl>99999999999999999999</ttl>"), sources.Hints{FeedRead: true, TTL: &huge}},
		{"ttl not a number", rss("<ttl>soon</ttl>"), sources.Hints{FeedRead: true}},
		{"negative ttl", rss("<ttl>-5</ttl>"), sources.Hints{FeedRead: true}},
		{"skipHours and skipDays", rss(`<skipHours><hour>0</hour><hour>1</hour><hour>24</hour><hour>23</hour>
<hour>25</hour><hour>x</hour></skipHours><skipDays><day>Saturday</day><day> sunday </day><day>Caturday</day></skipDays>`),
			sources.Hints{FeedRead: true, SkipHours: []int{0, 1, 23}, SkipDays: []time.Weekday{time.Saturday, time.Sunday}}},
		{"syndication module as WordPress writes it", rss(`<sy:updatePeriod>
	hourly	</sy:updatePeriod><sy:updateFrequency>
	1	</sy:updateFrequency>`),
			sources.Hints{FeedRead: true, Syndication: &sources.Syndication{Period: "hourly", Frequency: 1}}},
		{"syndication base, default period", rss(`<sy:updateFrequency>4</sy:updateFrequency>
<sy:updateBase>2000-01-01T12:00+00:00</sy:updateBase>`),
			sources.Hints{FeedRead: true, Syndication: &sources.Syndication{Period: "daily", Frequency: 4,
				Base: time.Date(2000, 1, 1, 12, 0, 0, 0, time.UTC)}}},
		{"bogus syndication values are kept for the policy", rss(`<sy:updatePeriod>Fortnightly</sy:updatePeriod>
<sy:updateFrequency>often</sy:updateFrequency>`),
			sources.Hints{FeedRead: true, Syndication: &sources.Syndication{Period: "fortnightly", Frequency: 0}}},
		{"hub and self in atom:link", rss(`<atom:link rel="hub" href="https://pubsubhubbub.appspot.com/"/>
<atom:link rel="self" type="application/rss+xml" href="/feed/"/><atom:link rel="hub" href="ftp://x/"/>`),
			sources.Hints{FeedRead: true, Hubs: []string{"https://pubsubhubbub.appspot.com/"},
				Self: "https://feeds.example/feed/"}},
		{"rss 1.0 with the syndication module", `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"
 xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">
<channel rdf:about="https://site.example/"><title>T</title><link>https://site.example/</link>
<sy:updatePeriod>daily</sy:updatePeriod><sy:updateFrequency>2</sy:updateFrequency>
<sy:updateBase>2000-01-01T00:00+00:00</sy:updateBase></channel>
<item rdf:about="https://site.example/a"><title>a</title><link>https://site.example/a</link></item></rdf:RDF>`,
			sources.Hints{FeedRead: true, Syndication: &sources.Syndication{Period: "daily", Frequency: 2,
				Base: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}}},
		{"atom hub and self", `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>
<id>urn:x</id><link rel="hub" href="https://hub.example/"/><link rel="self" href="https://feeds.example/atom"/>
<link href="https://site.example/"/><entry><title>e</title><id>urn:e</id><link href="https://site.example/e"/></entry></feed>`,
			sources.Hints{FeedRead: true, Hubs: []string{"https://hub.example/"}, Self: "https://feeds.example/atom"}},
		{"json feed hubs", `{"version":"https://jsonfeed.org/version/1.1","title":"J",
"feed_url":"https://feeds.example/feed.json","hubs":[{"type":"WebSub","url":"https://hub.example/"},
{"type":"rssCloud","url":"https://cloud.example/"}],"items":[{"id":"1","url":"https://site.example/1","content_text":"x"}]}`,
			sources.Hints{FeedRead: true, Hubs: []string{"https://hub.example/"}, Self: "https://feeds.example/feed.json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			parsed, err := parseFeed([]byte(c.body), "application/xml", "", "https://feeds.example/x/feed.xml", 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(parsed.items) != 1 {
				t.Fatalf("items = %d, want 1", len(parsed.items))
			}
			if !reflect.DeepEqual(parsed.hints, c.want) {
				t.Errorf("hints = %s\nwant   %s", show(parsed.hints), show(c.want))
			}
		})
	}
}

func show(h sources.Hints) string {
	var ttl any
	if h.TTL != nil {
		ttl = *h.TTL
	}
	var sy any
	if h.Syndication != nil {
		sy = *h.Syndication
	}
	return fmt.Sprintf("{FeedRead:%v TTL:%v Skip:%v Days:%v Sy:%+v Hubs:%v Self:%q}",
		h.FeedRead, ttl, h.SkipHours, h.SkipDays, sy, h.Hubs, h.Self)
}

// A 304 has no body, but its caching headers still say how long the feed
// stays fresh; a 200 joins the Link header's hub with the feed's own.
func TestFetchHintsFromHeaders(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Date", now.Add(-time.Hour).Format(http.TimeFormat))
		w.Header().Set("Link", `<https://header-hub.example/>; rel="hub"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.Header().Set("Expires", now.Format(http.TimeFormat)) // one hour after the server's Date
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Cache-Control", "max-age=900")
		w.Header().Set("Content-Type", "application/rss+xml")
		_, _ = w.Write([]byte(`<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>T</title>
<ttl>60</ttl><atom:link rel="hub" href="https://feed-hub.example/"/><atom:link rel="hub" href="https://header-hub.example/"/>
<item><title>a</title><link>https://site.example/a</link></item></channel></rss>`))
	}))
	defer srv.Close()
	f := newFetcher()
	f.Now = func() time.Time { return now }

	res, err := f.Fetch(context.Background(), sources.Request{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	h := res.Hints
	if !h.FeedRead || h.TTL == nil || *h.TTL != time.Hour {
		t.Errorf("200: ttl = %v (feed read %v), want 1h", h.TTL, h.FeedRead)
	}
	if h.MaxAge == nil || *h.MaxAge != 15*time.Minute {
		t.Errorf("200: max-age = %v, want 15m", h.MaxAge)
	}
	if want := []string{"https://header-hub.example/", "https://feed-hub.example/"}; !reflect.DeepEqual(h.Hubs, want) {
		t.Errorf("200: hubs = %v, want %v", h.Hubs, want)
	}

	res, err = f.Fetch(context.Background(), sources.Request{URL: srv.URL, ETag: `"v1"`})
	if err != nil {
		t.Fatal(err)
	}
	h = res.Hints
	if !res.NotModified {
		t.Fatalf("want a 304, got HTTP %d", res.HTTPStatus)
	}
	if h.FeedRead || h.TTL != nil {
		t.Errorf("304: feed hints without a body: %+v", h)
	}
	if !h.Expires.Equal(now.Add(time.Hour)) {
		t.Errorf("304: expires = %v, want %v (Expires − Date after now)", h.Expires, now.Add(time.Hour))
	}
	if want := []string{"https://header-hub.example/"}; !reflect.DeepEqual(h.Hubs, want) {
		t.Errorf("304: hubs = %v, want %v", h.Hubs, want)
	}
}
