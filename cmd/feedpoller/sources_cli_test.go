package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/api"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/store"
)

// countingSite serves feeds and a page on loopback and counts every
// request, so a test can show a refusal fetched nothing.
type countingSite struct {
	*httptest.Server
	hits atomic.Int64
}

func newCountingSite(t *testing.T) *countingSite {
	s := &countingSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		io.WriteString(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Plain Feed</title>
<item><title>One</title><link>http://example.test/1</link><guid>1</guid></item></channel></rss>`)
	})
	mux.HandleFunc("/long.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>   %s   </title>
<item><title>One</title><link>http://example.test/1</link><guid>1</guid></item></channel></rss>`, strings.Repeat("é", 700))
	})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<html><head><title>A Page</title></head><body><p>Words on a page.</p></body></html>`)
	})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// cliSetup gives a CLI test a counting site, a working directory and an
// environment on a fresh database of the dialect.
func cliSetup(t *testing.T, dialect string, extraEnv ...string) (*countingSite, string, []string) {
	t.Helper()
	return newCountingSite(t), t.TempDir(), quietEnv(testdb.URL(t, dialect), extraEnv...)
}

// inProcessAPI serves the API wired from env exactly as `feedpoller serve`
// wires it, over the database the CLI uses.
func inProcessAPI(t *testing.T, env []string, token string) *httptest.Server {
	t.Helper()
	cfg, err := loadConfig("", false, env)
	if err != nil {
		t.Fatal(err)
	}
	a, err := wire(context.Background(), cfg, slog.New(slog.DiscardHandler), slog.LevelDebug)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	srv, err := api.New(api.Options{Store: a.store, Service: a.svc, AdminToken: token, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	h := httptest.NewServer(srv.Handler())
	t.Cleanup(h.Close)
	return h
}

// openTestStore opens the database env names, as the CLI does.
func openTestStore(t *testing.T, env []string) *store.Store {
	t.Helper()
	cfg, err := loadConfig("", false, env)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// postSource creates a source over the API and returns the status and the
// error message, if any.
func postSource(t *testing.T, h *httptest.Server, token, ws string, body map[string]any) (int, string) {
	t.Helper()
	return post(t, h, token, "/api/intelligence/workspaces/"+ws+"/sources", body)
}

// post sends an API request and returns the status and the error message,
// if any.
func post(t *testing.T, h *httptest.Server, token, path string, body map[string]any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", h.URL+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var eb struct{ Error string }
	if err := json.NewDecoder(resp.Body).Decode(&eb); err != nil {
		t.Fatalf("decode the API's error: %v", err)
	}
	return resp.StatusCode, eb.Error
}

// `sources add` refuses what the API refuses, with the API's words, before
// fetching anything: the CLI once checked URLs by prefix only, stored them
// as typed, and found duplicates only by the database's unique key after
// the validation fetch.
func TestCLISourcesAddRefusesAsTheAPIDoes(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			site, dir, env := cliSetup(t, dialect)
			ws := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", "drift", "--quiet"))
			feed := site.URL + "/feed.xml"
			mustCLI(t, dir, env, "sources", "add", "--workspace", ws, "--url", feed, "--quiet")
			const token = "drift-admin-token"
			h := inProcessAPI(t, env, token)
			upper := strings.Replace(strings.Replace(feed, "http://", "HTTP://", 1), "/feed.xml", "/./feed.xml#latest", 1)
			withCreds := strings.Replace(feed, "http://", "http://user:secret@", 1)
			long := strings.Repeat("é", 501)

			for _, c := range []struct {
				name   string
				flags  []string
				body   map[string]any
				status int
				want   string
			}{
				{"duplicate written another way", []string{"--url", upper}, map[string]any{"url": upper}, 409,
					"this workspace already has this feed as source 1 (url " + feed + ")"},
				{"credentials in the url", []string{"--url", withCreds}, map[string]any{"url": withCreds}, 400,
					"invalid request: url must not contain credentials"},
				{"space in the url", []string{"--url", feed + " x"}, map[string]any{"url": feed + " x"}, 400,
					"invalid request: url must not contain spaces or control characters"},
				{"title over the cap", []string{"--url", site.URL + "/other.xml", "--title", long},
					map[string]any{"url": site.URL + "/other.xml", "title": long}, 400,
					"invalid request: title must be at most 500 characters"},
				{"interval 0", []string{"--url", site.URL + "/other.xml", "--interval", "0"},
					map[string]any{"url": site.URL + "/other.xml", "polling_interval_minutes": 0}, 400,
					"invalid request: polling_interval_minutes must be at least 1"},
				{"unknown type", []string{"--url", site.URL + "/other.xml", "--type", "gopher"},
					map[string]any{"url": site.URL + "/other.xml", "source_type": "gopher"}, 400,
					"invalid request: source_type must be one of: rss, web, api"},
			} {
				t.Run(c.name, func(t *testing.T) {
					before := site.hits.Load()
					out, err := cli(t, dir, env, append([]string{"sources", "add", "--workspace", ws}, c.flags...)...)
					if err == nil {
						t.Fatalf("CLI accepted it: %s", out)
					}
					status, msg := postSource(t, h, token, ws, c.body)
					if status != c.status || msg != c.want {
						t.Fatalf("API: %d %q, want %d %q", status, msg, c.status, c.want)
					}
					if want := "feedpoller sources: " + msg + "\n"; out != want {
						t.Fatalf("CLI said %q, want the API's words %q", out, want)
					}
					if n := site.hits.Load() - before; n != 0 {
						t.Fatalf("the site saw %d request(s) for a refused source", n)
					}
				})
			}
			if out := mustCLI(t, dir, env, "sources", "list"); strings.Count(out, "\n") != 2 {
				t.Fatalf("refused sources were stored:\n%s", out)
			}
		})
	}
}

// `sources add` stores what the API would: the normalised URL, the site's
// title trimmed and capped, the configured web interval, and a missing
// workspace is refused with the API's words.
func TestCLISourcesAddStoresAsTheAPIDoes(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			site, dir, env := cliSetup(t, dialect, "FEEDPOLLER_WEB_DEFAULT_INTERVAL_MINUTES=90")
			ws := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", "store", "--quiet"))

			out := mustCLI(t, dir, env, "sources", "add", "--workspace", ws, "--url", site.URL+"/long.xml")
			if !strings.Contains(out, "(rss, adaptive, starting at 30 min)") {
				t.Errorf("rss source: %s", out)
			}
			out = mustCLI(t, dir, env, "sources", "add", "--workspace", ws, "--type", "web", "--url", site.URL+"/page")
			if !strings.Contains(out, `(web, adaptive, starting at 90 min): page "A Page"`) {
				t.Errorf("web source: %s", out)
			}
			host := strings.TrimPrefix(site.URL, "http://")
			if out, err := cli(t, dir, env, "sources", "add", "--workspace", ws, "--url", "HTTP://"+host+"/./feed.xml#top"); err != nil {
				t.Errorf("a URL written in capitals with a dot segment and a fragment: %v %s", err, out)
			}
			st := openTestStore(t, env)
			srcs, err := st.ListSources(context.Background(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if title := srcs[0].Title; title != strings.Repeat("é", 500) {
				t.Errorf("stored title of %d runes %q, want the feed's trimmed and cut at 500", len([]rune(title)), title)
			}
			if len(srcs) != 3 || srcs[2].URL != site.URL+"/feed.xml" {
				t.Errorf("stored %d sources, the last %+v; want it under the normalised %q", len(srcs), srcs[len(srcs)-1].URL, site.URL+"/feed.xml")
			}
			if out, err := cli(t, dir, env, "sources", "add", "--workspace", "999", "--url", site.URL+"/feed.xml"); err == nil ||
				out != "feedpoller sources: workspace not found\n" {
				t.Errorf("unknown workspace: %v %q", err, out)
			}
		})
	}
}

// `workspaces add` refuses as the API does, in its words: the CLI once had
// its own threshold and keyword checks, no limit on names, and accepted
// blank exclusions.
func TestCLIWorkspacesAddRefusesAsTheAPIDoes(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			_, dir, env := cliSetup(t, dialect)
			const token = "drift-admin-token"
			mustCLI(t, dir, env, "workspaces", "add", "--name", "taken")
			h := inProcessAPI(t, env, token)
			long := strings.Repeat("n", 201)
			profile := func(p map[string]any) map[string]any { return map[string]any{"name": "w", "relevance_profile": p} }
			for _, c := range []struct {
				name  string
				flags []string
				body  map[string]any
				want  string
			}{
				{"name taken", []string{"--name", " taken "}, map[string]any{"name": " taken "}, `a workspace named "taken" already exists`},
				{"no name", nil, map[string]any{"name": ""}, "invalid request: name is required"},
				{"name too long", []string{"--name", long}, map[string]any{"name": long}, "invalid request: name must be at most 200 characters"},
				{"threshold above 1", []string{"--name", "w", "--threshold", "1.5"}, profile(map[string]any{"threshold": 1.5}),
					"invalid request: relevance_profile.threshold must be at most 1"},
				{"weight above 100", []string{"--name", "w", "--keyword", "go:101"}, profile(map[string]any{"keywords": []map[string]any{{"term": "go", "weight": 101}}}),
					"invalid request: relevance_profile.keywords[0].weight must be at most 100"},
				{"blank exclusion", []string{"--name", "w", "--exclude", " "}, profile(map[string]any{"exclusions": []string{" "}}),
					"invalid request: relevance_profile.exclusions[0] is required"},
			} {
				t.Run(c.name, func(t *testing.T) {
					out, err := cli(t, dir, env, append([]string{"workspaces", "add"}, c.flags...)...)
					if err == nil {
						t.Fatalf("CLI accepted it: %s", out)
					}
					if _, msg := post(t, h, token, "/api/intelligence/workspaces", c.body); msg != c.want {
						t.Fatalf("API said %q, want %q", msg, c.want)
					}
					if want := "feedpoller workspaces: " + c.want + "\n"; out != want {
						t.Fatalf("CLI said %q, want the API's words %q", out, want)
					}
				})
			}
			if out := mustCLI(t, dir, env, "workspaces", "list"); strings.Count(out, "\n") != 2 { // the header and w
				t.Fatalf("refused workspaces were stored:\n%s", out)
			}
		})
	}
}

// `poll --source` answers an unknown or leased source as the API does,
// in its words, instead of the store's errors.
func TestCLIPollSourceAsTheAPIDoes(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			site, dir, env := cliSetup(t, dialect)
			mustCLI(t, dir, env, "workspaces", "add", "--name", "poll")

			id := strings.TrimSpace(mustCLI(t, dir, env, "sources", "add", "--workspace", "1", "--url", site.URL+"/feed.xml", "--quiet"))
			if out, err := cli(t, dir, env, "poll", "--source", "999"); err == nil || out != "feedpoller poll: source not found\n" {
				t.Errorf("poll of an unknown source: %v %q", err, out)
			}
			st := openTestStore(t, env)
			srcs, err := st.ListSources(context.Background(), 1)
			if err != nil || len(srcs) != 1 {
				t.Fatalf("%v %v", srcs, err)
			}
			if _, err := st.ClaimSource(context.Background(), 0, srcs[0].ID, "someone-else", time.Minute); err != nil {
				t.Fatal(err)
			}
			want := "feedpoller poll: source " + id + " is being polled right now; try again when that poll ends\n"
			if out, err := cli(t, dir, env, "poll", "--source", id); err == nil || out != want {
				t.Errorf("poll of a leased source: %v %q, want %q", err, out, want)
			}
		})
	}
}
