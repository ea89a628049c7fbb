package sources

import (
	"net/http"
	"reflect"
	"testing"
	"time"
)

func TestHTTPHints(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	dur := func(d time.Duration) *time.Duration { return &d }
	httpDate := func(t time.Time) string { return t.UTC().Format(http.TimeFormat) }
	cases := []struct {
		name   string
		header http.Header
		want   Hints
	}{
		{"none", http.Header{}, Hints{}},
		{"max-age", http.Header{"Cache-Control": {"public, max-age=600"}}, Hints{MaxAge: dur(10 * time.Minute)}},
		{"max-age less age", http.Header{"Cache-Control": {"max-age=600"}, "Age": {"120"}},
			Hints{MaxAge: dur(8 * time.Minute)}},
		{"age beyond max-age", http.Header{"Cache-Control": {"max-age=60"}, "Age": {"600"}}, Hints{MaxAge: dur(0)}},
		{"max-age over several header lines", http.Header{"Cache-Control": {"public", "max-age=\"30\""}},
			Hints{MaxAge: dur(30 * time.Second)}},
		{"max-age of years is kept as a year", http.Header{"Cache-Control": {"max-age=99999999999999999999"}},
			Hints{MaxAge: dur(365 * 24 * time.Hour)}},
		{"max-age not a number", http.Header{"Cache-Control": {"max-age=soon"}}, Hints{}},
		{"negative max-age", http.Header{"Cache-Control": {"max-age=-5"}}, Hints{}},
		{"no-cache wins", http.Header{"Cache-Control": {"no-cache, max-age=600"}}, Hints{}},
		{"no-store drops expires", http.Header{"Cache-Control": {"no-store"}, "Expires": {httpDate(now.Add(time.Hour))}},
			Hints{}},
		{"expires against date", http.Header{
			"Date":    {httpDate(now.Add(-10 * time.Minute))}, // server clock 10 minutes behind
			"Expires": {httpDate(now.Add(20 * time.Minute))},
		}, Hints{Expires: now.Add(30 * time.Minute)}},
		{"expires without date", http.Header{"Expires": {httpDate(now.Add(45 * time.Minute))}},
			Hints{Expires: now.Add(45 * time.Minute)}},
		{"expires in the past", http.Header{"Expires": {httpDate(now.Add(-time.Hour))}}, Hints{}},
		{"expires 0 means stale", http.Header{"Expires": {"0"}}, Hints{}},
		{"max-age supersedes expires", http.Header{"Cache-Control": {"max-age=60"},
			"Expires": {httpDate(now.Add(time.Hour))}}, Hints{MaxAge: dur(time.Minute)}},
		{"retry-after seconds", http.Header{"Retry-After": {"120"}}, Hints{RetryAfter: now.Add(2 * time.Minute)}},
		{"retry-after date", http.Header{"Retry-After": {httpDate(now.Add(time.Hour))}},
			Hints{RetryAfter: now.Add(time.Hour)}},
		{"retry-after garbage", http.Header{"Retry-After": {"tomorrow"}}, Hints{}},
		{"link hub and self", http.Header{"Link": {
			`<https://hub.example/>; rel="hub", </feed.xml>; rel="self"`,
			`<https://other-hub.example/x?a=1,2>; rel=hub`,
		}}, Hints{Hubs: []string{"https://hub.example/", "https://other-hub.example/x?a=1,2"},
			Self: "https://blog.example/feed.xml"}},
		{"link with several rels and odd params", http.Header{"Link": {
			`<https://hub.example/>; title="a, b; c"; rel="self hub"`,
		}}, Hints{Hubs: []string{"https://hub.example/"}, Self: "https://hub.example/"}},
		{"link to a non-http hub", http.Header{"Link": {`<javascript:alert(1)>; rel="hub", <>; rel="self"`}}, Hints{}},
		{"link that is not a link", http.Header{"Link": {`https://hub.example/; rel=hub`}}, Hints{}},
		{"duplicate hubs", http.Header{"Link": {`<https://hub.example/>; rel=hub`, `<https://hub.example/>; rel=hub`}},
			Hints{Hubs: []string{"https://hub.example/"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := HTTPHints(c.header, "https://blog.example/blog/index.xml", now)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("HTTPHints = %+v\nwant %+v", describe(got), describe(c.want))
			}
		})
	}
}

// describe prints pointer fields by value.
func describe(h Hints) map[string]any {
	out := map[string]any{"Expires": h.Expires, "RetryAfter": h.RetryAfter, "Hubs": h.Hubs, "Self": h.Self}
	if h.MaxAge != nil {
		out["MaxAge"] = *h.MaxAge
	}
	return out
}

func TestHintsMerge(t *testing.T) {
	ttl := 30 * time.Minute
	maxAge := time.Minute
	stored := Hints{FeedRead: true, TTL: &ttl, SkipHours: []int{1}, Hubs: []string{"https://a.example/"}}
	fromHeaders := Hints{MaxAge: &maxAge, Hubs: []string{"https://b.example/", "https://a.example/"},
		Self: "https://x.example/feed"}
	got := stored.Merge(fromHeaders)
	if got.TTL == nil || *got.TTL != ttl || !reflect.DeepEqual(got.SkipHours, []int{1}) {
		t.Errorf("headers without a body replaced feed hints: %+v", got)
	}
	if got.MaxAge == nil || *got.MaxAge != maxAge {
		t.Errorf("MaxAge = %v, want 1m", got.MaxAge)
	}
	if want := []string{"https://a.example/", "https://b.example/"}; !reflect.DeepEqual(got.Hubs, want) {
		t.Errorf("Hubs = %v, want %v", got.Hubs, want)
	}
	if got.Self != "https://x.example/feed" {
		t.Errorf("Self = %q", got.Self)
	}
	// A body read again replaces the feed-level hints, absent ones too.
	got = got.Merge(Hints{FeedRead: true})
	if got.TTL != nil || got.SkipHours != nil {
		t.Errorf("a feed that stopped declaring ttl and skipHours still has them: %+v", got)
	}
}
