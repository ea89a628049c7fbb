package hostile_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"

	"github.com/feedpoller/feedpoller/internal/hostile"
)

// start runs a hostile server for the length of the test.
func start(t *testing.T) *hostile.Server {
	t.Helper()
	s := hostile.New()
	t.Cleanup(s.Close)
	return s
}

// client never follows redirects, never decompresses behind our back, and
// gives up quickly: the tests must not hang or eat memory themselves.
func client(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout:       timeout,
		Transport:     &http.Transport{DisableCompression: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// fetch GETs url and reads at most limit bytes of the body.
func fetch(t *testing.T, url string, limit int64, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client(10 * time.Second).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return resp, body
}

func parseFeed(body []byte) (*gofeed.Feed, error) {
	return gofeed.NewParser().Parse(bytes.NewReader(body))
}

// simpleCases are the endpoints that answer at once with a small document;
// check asserts what a client sees.
var simpleCases = []struct {
	name  string
	check func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte)
}{
	{"ratelimit", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantStatus(t, resp, http.StatusTooManyRequests)
		if ra := resp.Header.Get("Retry-After"); ra != "120" {
			t.Errorf("Retry-After %q, want 120", ra)
		}
	}},
	{"markup", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantStatus(t, resp, http.StatusOK)
		for _, want := range []string{"&lt;script&gt;", "javascript:alert(5)", "onerror=alert(1)", "<iframe", s.URL() + "/a/5"} {
			if !strings.Contains(string(body), want) {
				t.Errorf("the markup feed lacks %q", want)
			}
		}
	}},
	{"gone", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantStatus(t, resp, http.StatusGone)
	}},
	{"notfound", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantStatus(t, resp, http.StatusNotFound)
	}},
	{"redirect-metadata", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantRedirect(t, resp, "http://169.254.169.254/latest/meta-data/")
	}},
	{"redirect-metadata-mapped", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantRedirect(t, resp, "http://[::ffff:169.254.169.254]/latest/meta-data/")
	}},
	{"redirect-private", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantRedirect(t, resp, "http://10.0.0.1/admin")
	}},
	{"redirect-localhost", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantRedirect(t, resp, "http://localhost:"+strconv.Itoa(s.Port())+"/secret")
		if s.Forbidden() != 0 {
			t.Errorf("Forbidden() = %d before anything followed the redirect", s.Forbidden())
		}
	}},
	{"redirect-loop", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantRedirect(t, resp, "/redirect-loop/b")
		back, _ := fetch(t, s.URL()+"/redirect-loop/b", 1<<10)
		wantRedirect(t, back, "/redirect-loop")
		if h := s.Hits("redirect-loop"); h != 2 {
			t.Errorf("both legs of the loop count as redirect-loop: %d hits, want 2", h)
		}
	}},
	{"html-as-feed", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantStatus(t, resp, http.StatusOK)
		wantType(t, resp, "text/html")
		if _, err := parseFeed(body); err == nil {
			t.Error("gofeed parsed the HTML page as a feed")
		}
	}},
	{"pdf", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantStatus(t, resp, http.StatusOK)
		wantType(t, resp, "application/pdf")
		if !bytes.HasPrefix(body, []byte("%PDF-")) {
			t.Errorf("body does not start like a PDF: %.20q", body)
		}
	}},
	{"invalid-xml", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantStatus(t, resp, http.StatusOK)
		wantType(t, resp, "application/rss+xml")
		if _, err := parseFeed(body); err == nil {
			t.Error("gofeed (a lenient parser) accepted the invalid XML")
		}
	}},
	{"billion-laughs", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantStatus(t, resp, http.StatusOK)
		if len(body) > 4<<10 || !bytes.Contains(body, []byte("<!ENTITY lol9")) || !bytes.Contains(body, []byte("<title>&lol9;</title>")) {
			t.Fatalf("not a small entity bomb (%d bytes)", len(body))
		}
		// Ten levels of ten: the last entity stands for 10^9 "lol"s.
		if n := strings.Count(string(body), "&lol8;"); n != 10 {
			t.Errorf("lol9 references lol8 %d times, want 10", n)
		}
		// gofeed never expands DOCTYPE entities; either outcome the
		// catalogue allows is fine, an expansion is not.
		feed, err := parseFeed(body)
		if err == nil && len(feed.Items) > 0 && len(feed.Items[0].Title) > 100 {
			t.Errorf("the entity was expanded to %d bytes", len(feed.Items[0].Title))
		}
	}},
	{"wrong-charset", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantStatus(t, resp, http.StatusOK)
		if !bytes.Contains(body, []byte(`encoding="ISO-8859-1"`)) || !utf8.Valid(body) || !bytes.Contains(body, []byte("Café")) {
			t.Fatal("want an ISO-8859-1 declaration over UTF-8 bytes")
		}
		feed, err := parseFeed(body)
		if err != nil {
			t.Fatalf("gofeed rejects the mislabelled feed: %v", err)
		}
		// Decoded as the declaration says, UTF-8 "é" becomes "Ã©".
		if len(feed.Items) != 1 || !utf8.ValidString(feed.Items[0].Title) || feed.Items[0].Title == "Café crème costs 3 €" {
			t.Errorf("items %+v: want one item whose title is valid but mis-decoded", feed.Items)
		}
	}},
	{"wrong-charset-reverse", func(t *testing.T, s *hostile.Server, resp *http.Response, body []byte) {
		wantStatus(t, resp, http.StatusOK)
		if !bytes.Contains(body, []byte(`encoding="UTF-8"`)) || utf8.Valid(body) || !bytes.Contains(body, []byte("Caf\xe9")) {
			t.Fatal("want a UTF-8 declaration over ISO-8859-1 bytes")
		}
		if feed, err := parseFeed(body); err == nil {
			for _, it := range feed.Items {
				if !utf8.ValidString(it.Title) {
					t.Logf("gofeed passes invalid UTF-8 through in %q: the daemon must repair or reject it", it.Title)
				}
			}
		}
	}},
}

func wantStatus(t *testing.T, resp *http.Response, code int) {
	t.Helper()
	if resp.StatusCode != code {
		t.Errorf("status %d, want %d", resp.StatusCode, code)
	}
}

func wantType(t *testing.T, resp *http.Response, prefix string) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, prefix) {
		t.Errorf("Content-Type %q, want %s", ct, prefix)
	}
}

func wantRedirect(t *testing.T, resp *http.Response, location string) {
	t.Helper()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != location {
		t.Errorf("status %d Location %q, want 302 to %s", resp.StatusCode, resp.Header.Get("Location"), location)
	}
}

func TestSimpleEndpoints(t *testing.T) {
	s := start(t)
	for _, tc := range simpleCases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := fetch(t, s.EndpointURL(tc.name), 1<<20)
			tc.check(t, s, resp, body)
			if s.Hits(tc.name) == 0 {
				t.Errorf("Hits(%q) = 0 after a request", tc.name)
			}
		})
	}
}

func TestSecretCountsAsForbidden(t *testing.T) {
	s := start(t)
	// Following the localhost redirect is exactly what a client must not do.
	resp, body := fetch(t, "http://localhost:"+strconv.Itoa(s.Port())+"/secret", 1<<10)
	wantStatus(t, resp, http.StatusOK)
	if s.Forbidden() != 1 || s.Hits("secret") != 1 || !strings.Contains(string(body), "secret") {
		t.Errorf("Forbidden() = %d, Hits(secret) = %d after one request; want 1 and 1", s.Forbidden(), s.Hits("secret"))
	}
}

func TestHealthyFeeds(t *testing.T) {
	s := start(t)
	resp, body := fetch(t, s.HealthyURL(3), 1<<20)
	wantStatus(t, resp, http.StatusOK)
	feed, err := parseFeed(body)
	if err != nil {
		t.Fatalf("healthy feed does not parse: %v", err)
	}
	if len(feed.Items) != hostile.HealthyItems || feed.Title != "Healthy feed 3" {
		t.Errorf("feed %q with %d items, want \"Healthy feed 3\" with %d", feed.Title, len(feed.Items), hostile.HealthyItems)
	}
	for _, it := range feed.Items {
		if it.Content == "" || it.PublishedParsed == nil || !strings.HasPrefix(it.Link, s.URL()+"/healthy/3/") {
			t.Errorf("item lacks content, date or a link on this server: %+v", it)
		}
		page, html := fetch(t, it.Link, 1<<20)
		if page.StatusCode != 200 || !strings.Contains(string(html), "<h1>Healthy feed 3 item") {
			t.Errorf("article %s: status %d", it.Link, page.StatusCode)
		}
	}
	for _, validator := range [][]string{
		{"If-None-Match", resp.Header.Get("ETag")},
		{"If-Modified-Since", resp.Header.Get("Last-Modified")},
	} {
		again, _ := fetch(t, s.HealthyURL(3), 1<<20, validator...)
		if again.StatusCode != http.StatusNotModified {
			t.Errorf("with %s: status %d, want 304", validator[0], again.StatusCode)
		}
	}
	fetch(t, s.HealthyURL(4), 1<<20)
	if s.Hits("healthy/3") != 3 || s.Hits("healthy/4") != 1 || s.Hits("healthy") != 4 {
		t.Errorf("hits: %v", s.AllHits())
	}
	if times := s.HitTimes("healthy/3"); len(times) != 3 || times[2].Before(times[0]) {
		t.Errorf("HitTimes(healthy/3) = %v, want 3 times in order", times)
	}
}

func TestFlapAlternates(t *testing.T) {
	s := start(t)
	for i, want := range []int{500, 200, 500, 200} {
		resp, body := fetch(t, s.EndpointURL("flap"), 1<<20)
		if resp.StatusCode != want {
			t.Fatalf("request %d: status %d, want %d", i+1, resp.StatusCode, want)
		}
		if want == 200 {
			if feed, err := parseFeed(body); err != nil || len(feed.Items) == 0 {
				t.Errorf("request %d: the good answer is not a feed with items: %v", i+1, err)
			}
		}
	}
}

func TestManyItemsIsOneValidFeedUnderTheBodyCap(t *testing.T) {
	s := start(t)
	resp, body := fetch(t, s.EndpointURL("many-items"), 64<<20)
	wantStatus(t, resp, http.StatusOK)
	if n := bytes.Count(body, []byte("<item>")); n != hostile.ManyItems {
		t.Fatalf("%d items, want %d", n, hostile.ManyItems)
	}
	// Under the fetcher's default 10 MiB cap, so it is the item cap that is
	// put to the test.
	if len(body) >= 10<<20 {
		t.Errorf("%d bytes: over the default body cap", len(body))
	}
	// Well-formed to the end: a plain token pass (gofeed takes seconds of
	// CPU on 100 000 items, which is the point of the endpoint, not of this
	// test).
	dec := xml.NewDecoder(bytes.NewReader(body))
	var links []string
	inLink := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("XML error: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			inLink = tok.Name.Local == "link"
		case xml.EndElement:
			inLink = false
		case xml.CharData:
			if inLink {
				links = append(links, string(tok))
			}
		}
	}
	if len(links) != hostile.ManyItems+1 || !strings.HasPrefix(links[len(links)-1], s.URL()+"/a/") {
		t.Fatalf("%d links, last %q: want one per item, on this server", len(links), links[len(links)-1])
	}
	page, _ := fetch(t, links[1], 1<<20)
	wantStatus(t, page, http.StatusOK)
}

func TestEndpointsAreDocumentedAndTested(t *testing.T) {
	s := start(t)
	tested := map[string]bool{"hang": true, "trickle": true, "reset": true, "reset-midbody": true, "huge": true, "gzipbomb": true, "flap": true, "many-items": true}
	for _, tc := range simpleCases {
		tested[tc.name] = true
	}
	seen := map[string]bool{}
	for _, e := range s.Endpoints() {
		if seen[e.Name] {
			t.Errorf("endpoint %s listed twice", e.Name)
		}
		seen[e.Name] = true
		if e.URL != s.URL()+"/"+e.Name || e.Does == "" || e.Expect == "" || len(e.Outcomes) == 0 || (e.SourceType != "rss" && e.SourceType != "web") {
			t.Errorf("endpoint %s is not fully documented: %+v", e.Name, e)
		}
		if !tested[e.Name] {
			t.Errorf("endpoint %s has no behaviour test", e.Name)
		}
	}
	for name := range tested {
		if !seen[name] {
			t.Errorf("tested endpoint %s is missing from Endpoints()", name)
		}
	}
	// The list is a copy: changing it does not change the server's.
	eps := s.Endpoints()
	eps[0].Outcomes[0] = "changed"
	if s.Endpoints()[0].Outcomes[0] == "changed" {
		t.Error("Endpoints() hands out the server's own slices")
	}
}

// ctxTimeout is a guard against a test hanging, not a speed target.
func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
