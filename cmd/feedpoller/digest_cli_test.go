package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/storyfeeds"
	"github.com/feedpoller/feedpoller/internal/testdb"
)

// storyFarm serves four outlets of the labelled story set, eight events
// re-dated into the last two days.
func storyFarm(t *testing.T) (*httptest.Server, []string) {
	t.Helper()
	return storyFarmEnding(t, time.Now().Add(-time.Hour))
}

// storyFarmEnding is storyFarm with the two days ending at end.
func storyFarmEnding(t *testing.T, end time.Time) (*httptest.Server, []string) {
	t.Helper()
	all, err := storyfeeds.Load("../../analysis/stories/testdata/storyset.json")
	if err != nil {
		t.Fatal(err)
	}
	arts := storyfeeds.Redate(all, storyfeeds.Events(all)[:8], 48*time.Hour, end)
	h, err := storyfeeds.Handler(arts, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, []string{"Newswire", "The Daily Ledger", "Metro Post", "Coastal Herald"}
}

// The digest through the real binary: sources of four outlets added with
// tiers and decay classes, polled, and the digest in each format; bad
// flags exit with an error naming them; an empty window says so.
func TestCLIDigest(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			farm, outlets := storyFarm(t)
			dir := t.TempDir()
			env := quietEnv(testdb.URL(t, dialect), "FEEDPOLLER_POLLER_FETCH_ARTICLES=false")
			run := func(args ...string) string { t.Helper(); return mustCLI(t, dir, env, args...) }
			ws := strings.TrimSpace(run("workspaces", "add", "--name", "world", "--decay-class", "fast", "--quiet"))
			var ids []string
			for i, o := range outlets {
				args := []string{"sources", "add", "--workspace", ws, "--url", farm.URL + storyfeeds.FeedPath(o), "--quiet"}
				if i == 0 {
					args = append(args, "--tier", "3")
				}
				ids = append(ids, strings.TrimSpace(run(args...)))
			}
			if out := run("sources", "set", ids[1], "--tier", "4", "--decay-class", "stable"); !strings.Contains(out, "reliability tier 4 set by hand, decay class stable") {
				t.Fatalf("sources set: %s", out)
			}
			if out := run("sources", "set", ids[1], "--tier", "rules", "--decay-class", "workspace"); !strings.Contains(out, "reliability tier 5 from the domain rules, the workspace's decay class") {
				t.Fatalf("sources set back: %s", out)
			}
			if out := run("poll"); strings.Count(out, " ok http=200") != 4 {
				t.Fatalf("poll: %s", out)
			}

			md := run("digest", "--workspace", ws, "--since", "3d")
			for _, want := range []string{"# Digest: world", "## Key takeaways", "## Evidence", "## Sources", "— tier 3", "https://newswire.example/"} {
				if !strings.Contains(md, want) {
					t.Errorf("markdown digest lacks %q:\n%s", want, md)
				}
			}
			var d struct {
				Stories []struct {
					SourceCount int `json:"source_count"`
				} `json:"stories"`
				Sources []struct {
					URL string `json:"url"`
				} `json:"sources"`
			}
			if err := json.Unmarshal([]byte(run("digest", "--workspace", ws, "--since", "3d", "--format", "json")), &d); err != nil {
				t.Fatal(err)
			}
			grouped := 0
			for _, s := range d.Stories {
				if s.SourceCount > 1 {
					grouped++
				}
			}
			if len(d.Stories) < 6 || grouped < 4 || len(d.Sources) < len(d.Stories) {
				t.Errorf("json digest: %d stories, %d carried by several outlets, %d citations", len(d.Stories), grouped, len(d.Sources))
			}
			compact := run("digest", "--workspace", ws, "--since", "3d", "--format", "compact", "--max-tokens", "150")
			if !strings.Contains(compact, "[1]") || !strings.Contains(compact, "https://") {
				t.Errorf("compact digest: %s", compact)
			}
			// Gaps keep the stories' clock: in a window that ends before
			// the poll stored anything but after the outlets published,
			// the stories are there and no outlet is silent.
			past := run("digest", "--workspace", ws, "--since", "3d", "--until", time.Now().Add(-30*time.Minute).UTC().Format(time.RFC3339))
			if !strings.Contains(past, "## Key takeaways") || strings.Contains(gapsOf(past), "silent") {
				t.Errorf("digest of a window ending before the poll:\n%s", past)
			}
			stories := run("sql", "SELECT COUNT(*) FROM stories WHERE article_count > 1")
			if strings.Contains(stories, "\n0\n") {
				t.Errorf("no story holds more than one article: %s", stories)
			}

			for _, tc := range []struct {
				args []string
				want string
			}{
				{[]string{"--format", "xml"}, `invalid digest request: format "xml" is unknown: accepted formats are markdown, json and compact`},
				{[]string{"--format", "compact", "--max-tokens", "3"}, "invalid digest request: max_tokens 3 is below the"},
				{[]string{"--max-tokens", "0"}, "--max-tokens 0: must be a positive whole number"},
				{[]string{"--since", "yesterday"}, "neither a duration"},
			} {
				out, err := cli(t, dir, env, append([]string{"digest", "--workspace", ws}, tc.args...)...)
				if err == nil || !strings.Contains(out, tc.want) {
					t.Errorf("digest %v: %v %s; want an error saying %q", tc.args, err, out, tc.want)
				}
			}
			if out := run("digest", "--workspace", ws, "--since", "2020-01-01", "--until", "2020-01-02"); !strings.Contains(out, "No stories in this window") {
				t.Errorf("empty window: %s", out)
			}
			if out, err := cli(t, dir, env, "digest", "--workspace", "99"); err == nil || !strings.Contains(out, "workspace not found") {
				t.Errorf("unknown workspace: %v %s", err, out)
			}
		})
	}
}

// gapsOf is the Gaps section of a Markdown digest.
func gapsOf(md string) string {
	_, gaps, _ := strings.Cut(md, "## Gaps")
	gaps, _, _ = strings.Cut(gaps, "## Sources")
	return gaps
}

var sinceHint = regexp.MustCompile(`a window from (\d{4}-\d{2}-\d{2}) \(--since (\d{4}-\d{2}-\d{2})\) shows them`)

// A first poll of articles published a month ago: the default window has
// no stories and says so truthfully (stored now, published before it),
// naming the --since that shows them; that window holds them.
func TestCLIDigestEmptyWindowSaysWhy(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			farm, outlets := storyFarmEnding(t, time.Now().Add(-30*24*time.Hour))
			dir := t.TempDir()
			env := quietEnv(testdb.URL(t, dialect), "FEEDPOLLER_POLLER_FETCH_ARTICLES=false")
			run := func(args ...string) string { t.Helper(); return mustCLI(t, dir, env, args...) }
			ws := strings.TrimSpace(run("workspaces", "add", "--name", "month", "--quiet"))
			run("sources", "add", "--workspace", ws, "--url", farm.URL+storyfeeds.FeedPath(outlets[0]), "--quiet")
			run("poll")
			stored := strings.Fields(run("sql", "SELECT COUNT(*) AS n FROM feed_articles"))[1]
			earliest := strings.Fields(run("sql", "SELECT MIN(published_at) AS t FROM feed_articles"))[1][:10]

			md := run("digest", "--workspace", ws)
			want := "No stories in this window: the 1 source stored " + stored + " articles in it, but all were published before it"
			m := sinceHint.FindStringSubmatch(md)
			if !strings.Contains(md, want) || m == nil || m[1] != m[2] || m[1] != earliest {
				t.Fatalf("empty default window, want %q and the --since that shows them (%s):\n%s", want, earliest, md)
			}
			if !strings.Contains(gapsOf(md), "silent, no articles reported in the window") || !strings.Contains(gapsOf(md), stored+" articles stored in the window were published before it") {
				t.Errorf("gaps of the empty window:\n%s", gapsOf(md))
			}
			var d struct {
				Metadata struct {
					StoredEarlier struct {
						Articles int    `json:"articles"`
						Since    string `json:"since"`
					} `json:"stored_before_window"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal([]byte(run("digest", "--workspace", ws, "--format", "json")), &d); err != nil || fmt.Sprint(d.Metadata.StoredEarlier.Articles) != stored || d.Metadata.StoredEarlier.Since != m[1] {
				t.Errorf("json stored_before_window %+v (%v), want %s articles since %s", d.Metadata.StoredEarlier, err, stored, m[1])
			}
			shown := run("digest", "--workspace", ws, "--since", m[1], "--format", "compact")
			if strings.Contains(shown, "No stories") || !strings.Contains(shown, "\n1. ") {
				t.Errorf("digest --since %s:\n%s", m[1], shown)
			}
		})
	}
}

// serve gives the sources not set by hand the configured rules' tier at
// start; invalid rules refuse to start, naming the rule.
func TestServeAppliesReliabilityRules(t *testing.T) {
	farm, outlets := storyFarm(t)
	dir := t.TempDir()
	env := quietEnv(testdb.URL(t, "sqlite"), "FEEDPOLLER_POLLER_SCHEDULE=@every 1h")
	ws := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", "w", "--quiet"))
	mustCLI(t, dir, env, "sources", "add", "--workspace", ws, "--url", farm.URL+storyfeeds.FeedPath(outlets[0]))
	mustCLI(t, dir, env, "sources", "add", "--workspace", ws, "--url", farm.URL+storyfeeds.FeedPath(outlets[1]), "--tier", "4")

	ruled := append(env, "FEEDPOLLER_RELIABILITY_RULES=127.0.0.1=2")
	d := startDaemon(t, dir, ruled)
	if err := d.Stop(t, syscall.SIGTERM, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	out := mustCLI(t, dir, env, "sql", "SELECT 'tier:' || reliability_tier AS t FROM feed_sources ORDER BY id")
	if got := strings.Join(strings.Fields(out)[1:], " "); got != "tier:2 tier:4" {
		t.Fatalf("tiers after serve with 127.0.0.1=2: %q, want the ruled source at 2 and the one set by hand at 4\n%s", got, out)
	}
	if !strings.Contains(d.Output(), "reliability tiers applied from the domain rules") {
		t.Errorf("serve did not say it applied the rules:\n%s", d.Output())
	}

	bad := append(env, "FEEDPOLLER_RELIABILITY_RULES=*.gov=1,https://x.example=2")
	out, err := cli(t, dir, bad, "serve")
	if err == nil || !strings.Contains(out, `invalid reliability rule 2: "https://x.example" is not a domain`) {
		t.Fatalf("serve with a bad rule: %v\n%s", err, out)
	}
}
