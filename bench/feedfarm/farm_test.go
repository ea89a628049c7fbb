package feedfarm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

// startFarm serves a farm on 127.0.0.1 for the length of the test.
func startFarm(t *testing.T, opts feedfarm.Options) (*feedfarm.Farm, *httptest.Server) {
	t.Helper()
	f := feedfarm.New(opts)
	srv := httptest.NewServer(f.Handler())
	t.Cleanup(srv.Close)
	return f, srv
}

// get fetches url with optional request headers (name, value pairs) and
// returns the response with its body read.
func get(t *testing.T, url string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatalf("build request for %s: %v", url, err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp, body
}

func feedURL(srv *httptest.Server, n int) string {
	return srv.URL + "/feed/" + strconv.Itoa(n) + ".xml"
}

func parse(t *testing.T, body []byte) *gofeed.Feed {
	t.Helper()
	feed, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("gofeed cannot parse the farm's feed: %v\n%.500s", err, body)
	}
	return feed
}

func TestFeedsParseWithGofeed(t *testing.T) {
	cases := []struct {
		name     string
		format   feedfarm.Format
		feed     int
		wantType string
		wantCT   string
		text     feedfarm.Text
	}{
		{"mixed even is RSS", feedfarm.FormatMixed, 0, "rss", "application/rss+xml", feedfarm.TextUniform},
		{"mixed odd is Atom", feedfarm.FormatMixed, 1, "atom", "application/atom+xml", feedfarm.TextUniform},
		{"rss only", feedfarm.FormatRSS, 3, "rss", "application/rss+xml", feedfarm.TextUniform},
		{"atom only", feedfarm.FormatAtom, 4, "atom", "application/atom+xml", feedfarm.TextUniform},
		{"news text in RSS", feedfarm.FormatRSS, 2, "rss", "application/rss+xml", feedfarm.TextNews},
		{"news text in Atom", feedfarm.FormatAtom, 5, "atom", "application/atom+xml", feedfarm.TextNews},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			const items, bodyBytes = 20, 2048
			_, srv := startFarm(t, feedfarm.Options{Feeds: 6, ItemsPerFeed: items, BodyBytes: bodyBytes, Format: tc.format, Seed: 7, Text: tc.text})
			resp, body := get(t, feedURL(srv, tc.feed))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, want 200", resp.StatusCode)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, tc.wantCT) {
				t.Errorf("Content-Type %q, want %s", ct, tc.wantCT)
			}
			feed := parse(t, body)
			if feed.FeedType != tc.wantType {
				t.Errorf("feed type %q, want %q", feed.FeedType, tc.wantType)
			}
			if !strings.Contains(feed.Title, "Farm feed "+strconv.Itoa(tc.feed)) {
				t.Errorf("feed title %q does not name the feed", feed.Title)
			}
			if len(feed.Items) != items {
				t.Fatalf("%d items, want %d", len(feed.Items), items)
			}
			guids := map[string]bool{}
			var prev time.Time
			for i, it := range feed.Items {
				if it.Title == "" || it.Author == nil || it.Author.Name == "" || it.Description == "" || len(it.Categories) != 1 {
					t.Errorf("item %d lacks title, author, summary or category: %+v", i, it)
				}
				prefix := srv.URL + "/item/" + strconv.Itoa(tc.feed) + "/"
				if !strings.HasPrefix(it.Link, prefix) {
					t.Errorf("item %d link %q is not under %s", i, it.Link, prefix)
				}
				if it.GUID == "" || guids[it.GUID] {
					t.Errorf("item %d GUID %q empty or repeated", i, it.GUID)
				}
				guids[it.GUID] = true
				for _, part := range []string{"<p>", "<h2>", "<a href=", "<ul>", "<li>"} {
					if !strings.Contains(it.Content, part) {
						t.Errorf("item %d content lacks %s", i, part)
					}
				}
				if n := len(it.Content); n < bodyBytes || n > bodyBytes+400 {
					t.Errorf("item %d content is %d bytes, want about %d", i, n, bodyBytes)
				}
				if it.PublishedParsed == nil {
					t.Fatalf("item %d has no parsable date", i)
				}
				if i > 0 && !it.PublishedParsed.Before(prev) {
					t.Errorf("item %d (%v) is not older than the one above it (%v)", i, it.PublishedParsed, prev)
				}
				prev = *it.PublishedParsed
			}
			lm, err := http.ParseTime(resp.Header.Get("Last-Modified"))
			if err != nil || !lm.Equal(*feed.Items[0].PublishedParsed) {
				t.Errorf("Last-Modified %q (%v), want the newest item's date %v", resp.Header.Get("Last-Modified"), err, feed.Items[0].PublishedParsed)
			}
			if et := resp.Header.Get("ETag"); !strings.HasPrefix(et, `"`) || !strings.HasSuffix(et, `"`) {
				t.Errorf("ETag %q is not a strong entity tag", et)
			}
		})
	}
}

func TestLinksAndGUIDsUniqueAcrossFarm(t *testing.T) {
	_, srv := startFarm(t, feedfarm.Options{Feeds: 8, ItemsPerFeed: 5, BodyBytes: 300})
	links, guids := map[string]int{}, map[string]int{}
	for n := 0; n < 8; n++ {
		_, body := get(t, feedURL(srv, n))
		for _, it := range parse(t, body).Items {
			links[it.Link]++
			guids[it.GUID]++
		}
	}
	if len(links) != 40 || len(guids) != 40 {
		t.Errorf("%d distinct links and %d distinct GUIDs over 8 feeds × 5 items, want 40 each", len(links), len(guids))
	}
}

func TestItemPagesAreServed(t *testing.T) {
	_, srv := startFarm(t, feedfarm.Options{Feeds: 2, ItemsPerFeed: 3, BodyBytes: 1000})
	_, body := get(t, feedURL(srv, 1))
	for _, it := range parse(t, body).Items {
		resp, page := get(t, it.Link)
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET %s: status %d, type %q", it.Link, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		html := string(page)
		if !strings.Contains(html, "<title>"+it.Title+"</title>") || !strings.Contains(html, "<h1>"+it.Title+"</h1>") {
			t.Errorf("page %s does not carry the item title %q", it.Link, it.Title)
		}
		// The article body is the same HTML the feed carried.
		if !strings.Contains(html, it.Content) {
			t.Errorf("page %s does not contain the feed's content for the item", it.Link)
		}
		resp, _ = get(t, it.Link, "If-None-Match", resp.Header.Get("ETag"))
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("revalidating %s: status %d, want 304", it.Link, resp.StatusCode)
		}
	}
}

func TestUnknownPathsAre404(t *testing.T) {
	f, srv := startFarm(t, feedfarm.Options{Feeds: 3, ItemsPerFeed: 2})
	for _, p := range []string{"/feed/3.xml", "/feed/-1.xml", "/feed/x.xml", "/feed/01.xml", "/feed/1.rss", "/item/3/0", "/item/0/2", "/item/0/-1", "/nothing"} {
		if resp, _ := get(t, srv.URL+p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, resp.StatusCode)
		}
	}
	if s := f.Stats(); s.NotFound != 8 || s.FeedRequests != 0 {
		t.Errorf("stats count %d not-found and %d feed requests, want 8 and 0 (the unrouted path is not the farm's)", s.NotFound, s.FeedRequests)
	}
}

func TestConditionalGet(t *testing.T) {
	_, srv := startFarm(t, feedfarm.Options{Feeds: 2})
	first, _ := get(t, feedURL(srv, 0))
	etag, lastMod := first.Header.Get("ETag"), first.Header.Get("Last-Modified")
	lm, err := http.ParseTime(lastMod)
	if err != nil {
		t.Fatalf("Last-Modified %q: %v", lastMod, err)
	}
	earlier := lm.Add(-time.Second).Format(http.TimeFormat)
	later := lm.Add(time.Hour).Format(http.TimeFormat)
	cases := []struct {
		name    string
		headers []string
		want    int
	}{
		{"no validators", nil, 200},
		{"matching ETag", []string{"If-None-Match", etag}, 304},
		{"ETag in a list", []string{"If-None-Match", `"other", ` + etag}, 304},
		{"weak form of the ETag", []string{"If-None-Match", "W/" + etag}, 304},
		{"star", []string{"If-None-Match", "*"}, 304},
		{"stale ETag", []string{"If-None-Match", `"f0-v9-old"`}, 200},
		{"Last-Modified echoed", []string{"If-Modified-Since", lastMod}, 304},
		{"later date", []string{"If-Modified-Since", later}, 304},
		{"earlier date", []string{"If-Modified-Since", earlier}, 200},
		{"unparsable date", []string{"If-Modified-Since", "yesterday"}, 200},
		{"ETag decides over date", []string{"If-None-Match", `"stale"`, "If-Modified-Since", lastMod}, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := get(t, feedURL(srv, 0), tc.headers...)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.want)
			}
			if resp.Header.Get("ETag") != etag {
				t.Errorf("ETag %q, want the unchanged %q", resp.Header.Get("ETag"), etag)
			}
			if tc.want == 304 && len(body) != 0 {
				t.Errorf("304 carried a %d-byte body", len(body))
			}
		})
	}
}

func TestChangeShare(t *testing.T) {
	const feeds = 200
	f, srv := startFarm(t, feedfarm.Options{Feeds: feeds, ItemsPerFeed: 4, BodyBytes: 200, ChangeShare: 0.1, Seed: 42})
	changing := 0
	for n := 0; n < feeds; n++ {
		if f.Changing(n) {
			changing++
		}
	}
	if changing != 20 {
		t.Fatalf("%d changing feeds, want exactly 10%% of %d", changing, feeds)
	}

	type seen struct {
		etag  string
		guids []string
	}
	firstPoll := make([]seen, feeds)
	for n := 0; n < feeds; n++ {
		resp, body := get(t, feedURL(srv, n))
		var g []string
		for _, it := range parse(t, body).Items {
			g = append(g, it.GUID)
		}
		firstPoll[n] = seen{resp.Header.Get("ETag"), g}
	}

	var changed, unchanged int
	for n := 0; n < feeds; n++ {
		resp, body := get(t, feedURL(srv, n), "If-None-Match", firstPoll[n].etag)
		switch resp.StatusCode {
		case http.StatusNotModified:
			unchanged++
			if f.Changing(n) {
				t.Errorf("feed %d is changing but answered 304", n)
			}
		case http.StatusOK:
			changed++
			if !f.Changing(n) {
				t.Errorf("feed %d is not changing but answered 200 to its own ETag", n)
				continue
			}
			items := parse(t, body).Items
			old := firstPoll[n].guids
			if contains(old, items[0].GUID) {
				t.Errorf("feed %d: top item %s is not new", n, items[0].GUID)
			}
			// The rest shifted down by one: the previous top is now second,
			// and the oldest fell off.
			for i := 1; i < len(items); i++ {
				if items[i].GUID != old[i-1] {
					t.Errorf("feed %d item %d is %s, want the previous poll's item %d %s", n, i, items[i].GUID, i-1, old[i-1])
				}
			}
			if resp.Header.Get("ETag") == firstPoll[n].etag {
				t.Errorf("feed %d changed but kept its ETag", n)
			}
		default:
			t.Fatalf("feed %d: status %d", n, resp.StatusCode)
		}
	}
	if changed != 20 || unchanged != 180 {
		t.Errorf("second poll: %d changed, %d unchanged; want 20 and 180", changed, unchanged)
	}
	s := f.Stats()
	if s.FeedRequests != 2*feeds || s.OK != feeds+20 || s.NotModified != 180 {
		t.Errorf("stats: %d requests, %d OK, %d 304; want %d, %d, 180", s.FeedRequests, s.OK, s.NotModified, 2*feeds, feeds+20)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestChangeShareExtremes(t *testing.T) {
	for _, tc := range []struct {
		share float64
		want  int
	}{{0, 0}, {1, 50}, {0.5, 25}, {-3, 0}, {7, 50}} {
		f := feedfarm.New(feedfarm.Options{Feeds: 50, ChangeShare: tc.share})
		got := 0
		for n := 0; n < 50; n++ {
			if f.Changing(n) {
				got++
			}
		}
		if got != tc.want {
			t.Errorf("ChangeShare %v: %d changing feeds of 50, want %d", tc.share, got, tc.want)
		}
	}
}

func TestContentIsDeterministicFromSeed(t *testing.T) {
	_, a := startFarm(t, feedfarm.Options{Feeds: 3, Seed: 5})
	_, b := startFarm(t, feedfarm.Options{Feeds: 3, Seed: 5})
	_, c := startFarm(t, feedfarm.Options{Feeds: 3, Seed: 6})
	for n := 0; n < 3; n++ {
		ra, ba := get(t, feedURL(a, n))
		rb, bb := get(t, feedURL(b, n))
		_, bc := get(t, feedURL(c, n))
		// Links carry each server's own port; compare with that taken out.
		sa := strings.ReplaceAll(string(ba), a.URL, "")
		sb := strings.ReplaceAll(string(bb), b.URL, "")
		sc := strings.ReplaceAll(string(bc), c.URL, "")
		if sa != sb || ra.Header.Get("ETag") != rb.Header.Get("ETag") {
			t.Errorf("feed %d differs between two farms with the same seed", n)
		}
		if sa == sc {
			t.Errorf("feed %d is the same for seeds 5 and 6", n)
		}
	}
}

func TestStatsCountRequestsAndTimes(t *testing.T) {
	f, srv := startFarm(t, feedfarm.Options{Feeds: 4, ItemsPerFeed: 2, BodyBytes: 100, KeepTimes: 3})
	var etag string
	before := time.Now()
	for i := 0; i < 5; i++ {
		resp, _ := get(t, feedURL(srv, 2), "If-None-Match", etag)
		etag = resp.Header.Get("ETag")
	}
	get(t, feedURL(srv, 3))
	get(t, srv.URL+"/item/3/1")
	after := time.Now()

	s := f.Stats()
	if s.FeedRequests != 6 || s.OK != 2 || s.NotModified != 4 || s.ItemRequests != 1 {
		t.Errorf("totals %+v; want 6 feed requests, 2 OK, 4 not modified, 1 item request", s)
	}
	if len(s.Feeds) != 4 {
		t.Fatalf("%d feed entries, want 4", len(s.Feeds))
	}
	f2 := s.Feeds[2]
	if f2.Requests != 5 || f2.OK != 1 || f2.NotModified != 4 {
		t.Errorf("feed 2: %+v; want 5 requests, 1 OK, 4 not modified", f2)
	}
	if len(f2.Times) != 3 || f2.TimesDropped != 2 {
		t.Fatalf("feed 2 kept %d times and dropped %d; want the last 3 kept, 2 dropped", len(f2.Times), f2.TimesDropped)
	}
	for i, tm := range f2.Times {
		if tm.Before(before) || tm.After(after) || (i > 0 && tm.Before(f2.Times[i-1])) {
			t.Errorf("feed 2 times out of range or order: %v", f2.Times)
		}
	}
	if !f2.Last.Equal(f2.Times[2]) || f2.First.After(f2.Times[0]) {
		t.Errorf("feed 2 first/last %v/%v disagree with times %v", f2.First, f2.Last, f2.Times)
	}
	if s.Feeds[0].Requests != 0 || len(s.Feeds[0].Times) != 0 || !s.Feeds[0].First.IsZero() {
		t.Errorf("feed 0 was never requested but has stats %+v", s.Feeds[0])
	}

	// The JSON endpoint reports the same figures.
	resp, body := get(t, srv.URL+"/_stats")
	var js feedfarm.Stats
	if err := json.Unmarshal(body, &js); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/_stats: status %d, decode: %v", resp.StatusCode, err)
	}
	if js.FeedRequests != 6 || js.Feeds[2].Requests != 5 || len(js.Feeds[2].Times) != 3 || !js.Feeds[2].Times[0].Equal(f2.Times[0]) {
		t.Errorf("/_stats disagrees with Stats(): %+v", js)
	}
	_, body = get(t, srv.URL+"/_stats?feeds=0")
	var summary feedfarm.Stats
	if err := json.Unmarshal(body, &summary); err != nil || summary.FeedRequests != 6 || summary.Feeds != nil {
		t.Errorf("/_stats?feeds=0: %+v, %v; want totals only", summary, err)
	}

	_, body = get(t, srv.URL+"/_stats?times=0")
	var noTimes feedfarm.Stats
	if err := json.Unmarshal(body, &noTimes); err != nil || len(noTimes.Feeds) != 4 || noTimes.Feeds[2].Requests != 5 || noTimes.Feeds[2].Times != nil {
		t.Errorf("/_stats?times=0: %+v, %v; want per-feed counters without times", noTimes, err)
	}

	// Reset is POST only, and zeroes the counters but not the content.
	if resp, _ := get(t, srv.URL+"/_stats/reset"); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /_stats/reset: status %d, want 405", resp.StatusCode)
	}
	resp, err := http.Post(srv.URL+"/_stats/reset", "", nil)
	if err != nil {
		t.Fatalf("POST /_stats/reset: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("POST /_stats/reset: status %d, want 204", resp.StatusCode)
	}
	s = f.Stats()
	if s.FeedRequests != 0 || s.ItemRequests != 0 || s.Feeds[2].Requests != 0 || len(s.Feeds[2].Times) != 0 || s.Since.Before(after) {
		t.Errorf("after reset: %+v", s)
	}
	if resp, _ := get(t, feedURL(srv, 2), "If-None-Match", etag); resp.StatusCode != http.StatusNotModified {
		t.Errorf("after reset the unchanged feed answered %d to its ETag, want 304", resp.StatusCode)
	}
}

func TestLatencyAndAbandonedRequests(t *testing.T) {
	f, srv := startFarm(t, feedfarm.Options{Feeds: 1, Latency: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, feedURL(srv, 0), nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("a farm with an hour of latency answered at once: %d", resp.StatusCode)
	}
	// The handler sees the client leave and returns; the request is counted
	// but neither as a 200 nor as a 304.
	srv.Close()
	s := f.Stats()
	if s.FeedRequests != 1 || s.OK != 0 || s.NotModified != 0 {
		t.Errorf("stats %+v; want 1 request, no answer", s)
	}
}

func TestConcurrentRequestsSeeDistinctVersions(t *testing.T) {
	f, srv := startFarm(t, feedfarm.Options{Feeds: 1, ItemsPerFeed: 2, BodyBytes: 100, ChangeShare: 1})
	const n = 40
	var mu sync.Mutex
	etags := map[string]bool{}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(feedURL(srv, 0))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			etags[resp.Header.Get("ETag")] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(etags) != n {
		t.Errorf("%d concurrent requests of a changing feed saw %d distinct versions, want %d", n, len(etags), n)
	}
	if v := f.Stats().Feeds[0].Version; v != n-1 {
		t.Errorf("version %d after %d requests, want %d", v, n, n-1)
	}
}

func TestFeedList(t *testing.T) {
	_, srv := startFarm(t, feedfarm.Options{Feeds: 3})
	_, body := get(t, srv.URL+"/_feeds")
	want := feedURL(srv, 0) + "\n" + feedURL(srv, 1) + "\n" + feedURL(srv, 2) + "\n"
	if string(body) != want {
		t.Errorf("/_feeds = %q, want %q", body, want)
	}
}

func TestHostileHostHeaderStaysWellFormed(t *testing.T) {
	f := feedfarm.New(feedfarm.Options{Feeds: 2, ItemsPerFeed: 2, BodyBytes: 100})
	for n := 0; n < 2; n++ {
		req := httptest.NewRequest(http.MethodGet, "/feed/"+strconv.Itoa(n)+".xml", nil)
		req.Host = `x"]]><evil>&`
		rec := httptest.NewRecorder()
		f.Handler().ServeHTTP(rec, req)
		feed := parse(t, rec.Body.Bytes())
		if len(feed.Items) != 2 || strings.Contains(rec.Body.String(), "<evil>") {
			t.Errorf("feed %d with a hostile Host header: %d items, raw markup leaked: %v", n, len(feed.Items), strings.Contains(rec.Body.String(), "<evil>"))
		}
	}
}

// TestSetNewItems: after SetNewItems(k) a changing feed's next answer
// shows k items it never showed before, and the rest shifted down by k.
func TestSetNewItems(t *testing.T) {
	for _, k := range []int{5, 4, 9} {
		t.Run(strconv.Itoa(k), func(t *testing.T) {
			f, srv := startFarm(t, feedfarm.Options{Feeds: 1, ItemsPerFeed: 4, BodyBytes: 200, ChangeShare: 1, Seed: 3})
			_, body := get(t, feedURL(srv, 0))
			var before []string
			for _, it := range parse(t, body).Items {
				before = append(before, it.GUID)
			}
			f.SetNewItems(k)
			_, body = get(t, feedURL(srv, 0))
			items := parse(t, body).Items
			fresh := 0
			for i, it := range items {
				if !contains(before, it.GUID) {
					fresh++
					continue
				}
				if want := before[i-k]; it.GUID != want {
					t.Errorf("item %d is %s, want the previous answer's item %d %s", i, it.GUID, i-k, want)
				}
			}
			if want := min(k, 4); fresh != want {
				t.Errorf("%d new items after SetNewItems(%d), want %d", fresh, k, want)
			}
		})
	}
}

// TestEpochAndDateSpread: every item is dated within the spread after the
// epoch (plus the feed's steps), so a benchmark can serve recent news.
func TestEpochAndDateSpread(t *testing.T) {
	epoch := time.Now().Add(-48 * time.Hour).Truncate(time.Second)
	_, srv := startFarm(t, feedfarm.Options{Feeds: 50, ItemsPerFeed: 3, BodyBytes: 200, Seed: 5,
		Epoch: epoch, DateSpread: 24 * time.Hour})
	for n := 0; n < 50; n++ {
		_, body := get(t, feedURL(srv, n))
		for _, it := range parse(t, body).Items {
			p := it.PublishedParsed
			// Three items of at most 10 minutes' step each.
			if p == nil || p.Before(epoch) || p.After(epoch.Add(24*time.Hour+30*time.Minute)) {
				t.Fatalf("feed %d item %s dated %v, want within a day and a half hour of %v", n, it.GUID, p, epoch)
			}
		}
	}
}

// TestSitesGiveEveryFeedItsOwnDomain: with Sites, a feed's site link and
// item links are on a domain of its own, in both formats; the feed's self
// link stays the farm's.
func TestSitesGiveEveryFeedItsOwnDomain(t *testing.T) {
	_, srv := startFarm(t, feedfarm.Options{Feeds: 4, ItemsPerFeed: 3, BodyBytes: 300, Sites: true})
	for n := 0; n < 4; n++ {
		_, body := get(t, feedURL(srv, n))
		feed := parse(t, body)
		site := fmt.Sprintf("http://feed%d.example", n)
		if !strings.HasPrefix(feed.Link, site+"/") {
			t.Errorf("feed %d (%s): site link %q, want one on %s", n, feed.FeedType, feed.Link, site)
		}
		for _, it := range feed.Items {
			if !strings.HasPrefix(it.Link, site+"/item/") {
				t.Errorf("feed %d (%s): item link %q, want one on %s", n, feed.FeedType, it.Link, site)
			}
		}
		if !bytes.Contains(body, []byte(srv.URL+"/feed/")) {
			t.Errorf("feed %d: no self link on the farm's own address", n)
		}
	}
}
