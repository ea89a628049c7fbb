package firecrawltest_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/sources/firecrawl/firecrawltest"
)

// scrapeAs asks the fake for an html scrape of target and fails the test
// unless it answers status (and code, when set). It returns the body.
func scrapeAs(t *testing.T, s *firecrawltest.Server, target string, status int, code string) map[string]any {
	t.Helper()
	resp := post(t, s.URL+"/v1/scrape", "Bearer x", `{"url":"`+target+`","formats":["html"]}`)
	m := decode(t, resp)
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %v", resp.StatusCode, status, m)
	}
	if code != "" && m["code"] != code {
		t.Errorf("code %v, want %s", m["code"], code)
	}
	return m
}

// detailMessages lists the messages of a 400's details, sorted.
func detailMessages(m map[string]any) []string {
	var out []string
	details, _ := m["details"].([]any)
	for _, d := range details {
		if d, ok := d.(map[string]any); ok {
			out = append(out, fmt.Sprint(d["message"]))
		}
	}
	sort.Strings(out)
	return out
}

// TestURLChecksMatchTheRealServer holds the fake to what a real
// self-hosted Firecrawl answered for these URLs: its URL checks look at
// the whole URL, so an IP address or a single-label host is accepted when
// the URL has a dotted part it likes, and then fails (or not) at the
// scrape; a port before the first dot is refused as "Invalid URL".
func TestURLChecksMatchTheRealServer(t *testing.T) {
	cases := []struct {
		url      string
		status   int
		code     string   // the answer's code
		messages []string // details of a 400, sorted
	}{
		// Scraped by the real server (here: the registered scenario).
		{url: "http://172.31.99.10:8080/article.html", status: 200},
		{url: "https://news.example.com/story", status: 200},
		// Accepted, then unreachable: a retryable 500.
		{url: "http://127.0.0.10:8080/a.html", status: 500, code: "SCRAPE_ALL_ENGINES_FAILED"},
		{url: "http://localhost/a.html", status: 500, code: "SCRAPE_ALL_ENGINES_FAILED"},
		// Refused before any scrape.
		{url: "http://localhost:8080/a.html", status: 400, code: "BAD_REQUEST", messages: []string{"Invalid URL"}},
		{url: "http://localhost:8080/x", status: 400, code: "BAD_REQUEST",
			messages: []string{"Invalid URL", "URL must have a valid top-level domain or be a valid path"}},
		{url: "http://127.0.0.1/", status: 400, code: "BAD_REQUEST",
			messages: []string{"URL must have a valid top-level domain or be a valid path"}},
		{url: "http://localhost/x", status: 400, code: "BAD_REQUEST",
			messages: []string{"URL must have a valid top-level domain or be a valid path"}},
	}
	s := firecrawltest.New(t, firecrawltest.Config{Credits: firecrawltest.Unlimited})
	page := firecrawltest.Success(firecrawltest.Page{HTML: "<p>article</p>"})
	s.Handle("172.31.99.10", page)
	s.Handle("news.example.com", page)
	for _, tc := range cases {
		t.Run(tc.url, func(t *testing.T) {
			m := scrapeAs(t, s, tc.url, tc.status, tc.code)
			if tc.status == 400 {
				if got := detailMessages(m); strings.Join(got, "|") != strings.Join(tc.messages, "|") {
					t.Errorf("details %q, want %q", got, tc.messages)
				}
			}
		})
	}
}
