package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/store"
)

// The documented config.yaml must say exactly what the binary does without it.
func TestDocumentedConfigIsTheDefault(t *testing.T) {
	got, err := loadConfig(filepath.Join("..", "..", "config.yaml"), true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := defaultConfig(); !reflect.DeepEqual(got, want) {
		t.Fatalf("config.yaml differs from the built-in defaults:\n got %+v\nwant %+v", got, want)
	}
}

func TestEnvOverridesEveryKind(t *testing.T) {
	cfg, err := loadConfig("", false, []string{
		"FEEDPOLLER_LISTEN=127.0.0.1:9999", "FEEDPOLLER_POLLER_WORKERS=3", "FEEDPOLLER_POLLER_LEASE=2m",
		"FEEDPOLLER_POLLER_JITTER=0.5", "FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true",
		"FEEDPOLLER_FETCH_ALLOW=10.0.0.0/8, intranet.example", "FIRECRAWL_API_KEY=fc-secret",
	})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Listen != "127.0.0.1:9999" || cfg.Poller.Workers != 3 || cfg.Poller.Lease != 2*time.Minute ||
		cfg.Poller.Jitter != 0.5 || !cfg.Fetch.AllowPrivateNetworks || len(cfg.Fetch.Allow) != 2 ||
		cfg.Firecrawl.APIKey != "fc-secret" {
		t.Fatalf("overrides not applied: %+v", cfg)
	}
	out, _ := cfg.redacted()
	if strings.Contains(out, "fc-secret") {
		t.Fatal("config output shows the Firecrawl key")
	}
}

func TestBadConfigNamesTheProblem(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		file string
		want string
	}{
		{env: []string{"FEEDPOLLER_POLLER_WORKERS=many"}, want: "FEEDPOLLER_POLLER_WORKERS"},
		{env: []string{"FEEDPOLLER_FETCH_TIMEOUT=2m"}, want: "fetch.timeout"},
		{env: []string{"FEEDPOLLER_ENV=staging"}, want: "FEEDPOLLER_ENV"},
		{env: []string{"FEEDPOLLER_WEB_FETCHER=chrome"}, want: "web.fetcher"},
		{env: []string{"FEEDPOLLER_WEB_DEFAULT_INTERVAL_MINUTES=0"}, want: "web.default_interval_minutes must be 1..43200"},
		{file: "poller:\n  wrokers: 3\n", want: "wrokers"},
		{env: []string{"FEEDPOLLER_SCHEDULING_FLOOR=10s"}, want: "scheduling.floor (FEEDPOLLER_SCHEDULING_FLOOR) is 10s: want 1m..24h"},
		{env: []string{"FEEDPOLLER_SCHEDULING_CEILING=2m"}, want: "scheduling.ceiling (FEEDPOLLER_SCHEDULING_CEILING) is 2m0s: want at least scheduling.floor (5m0s)"},
		{env: []string{"FEEDPOLLER_SCHEDULING_CEILING=9000h"}, want: "scheduling.ceiling (FEEDPOLLER_SCHEDULING_CEILING) is 9000h0m0s"},
		{env: []string{"FEEDPOLLER_SCHEDULING_SAFETY_INTERVAL=1m"}, want: "scheduling.safety_interval (FEEDPOLLER_SCHEDULING_SAFETY_INTERVAL)"},
		{env: []string{"FEEDPOLLER_SCHEDULING_TARGET=48h"}, want: "scheduling.target (FEEDPOLLER_SCHEDULING_TARGET) is 48h0m0s: want at least 1m and at most scheduling.ceiling (24h0m0s)"},
		{env: []string{"FEEDPOLLER_SCHEDULING_BALANCE=0s"}, want: "scheduling.balance (FEEDPOLLER_SCHEDULING_BALANCE) is 0s: want more than 0"},
		{env: []string{"FEEDPOLLER_SCHEDULING_BALANCE=-5m"}, want: "scheduling.balance"},
		{env: []string{"FEEDPOLLER_SCHEDULING_TARGET=soon"}, want: "FEEDPOLLER_SCHEDULING_TARGET"},
		{env: []string{"FEEDPOLLER_RELIABILITY_RULES=*.gov=1,arxiv.org=7"}, want: `reliability.rules (FEEDPOLLER_RELIABILITY_RULES): invalid reliability rule 2 ("arxiv.org")`},
		{env: []string{"FEEDPOLLER_RELIABILITY_RULES=*.gov"}, want: `FEEDPOLLER_RELIABILITY_RULES="*.gov": rule 1 "*.gov": want DOMAIN=TIER`},
		{file: "reliability:\n  rules:\n    - {domain: \"https://x.example\", tier: 2}\n", want: `invalid reliability rule 1: "https://x.example" is not a domain`},
		{env: []string{"FEEDPOLLER_STORIES_THRESHOLD=0"}, want: "stories.threshold 0 must be more than 0"},
		{env: []string{"FEEDPOLLER_STORIES_WINDOW=0s"}, want: "stories.window must be more than 0"},
		{env: []string{"FEEDPOLLER_DIGEST_MAX_TOKENS=0"}, want: "digest.max_tokens must be at least 1"},
	} {
		path := ""
		if tc.file != "" {
			path = filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		_, err := loadConfig(path, path != "", tc.env)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %q: error %v, want one naming %s", tc.env, tc.file, err, tc.want)
		}
	}
}

// In production, a configuration that needs Firecrawl without a key
// refuses: web.fetcher firecrawl, and the default auto as well. Choosing
// the native fetcher explicitly, or setting the key, is the way out.
func TestProductionNeedsFirecrawlKeyUnlessNative(t *testing.T) {
	for _, c := range []struct {
		env     []string
		wantErr bool
		useFC   bool
	}{
		{env: []string{"FEEDPOLLER_ENV=production", "FEEDPOLLER_WEB_FETCHER=firecrawl"}, wantErr: true},
		{env: []string{"FEEDPOLLER_ENV=production"}, wantErr: true}, // auto
		{env: []string{"FEEDPOLLER_ENV=production", "FEEDPOLLER_WEB_FETCHER=native"}},
		{env: []string{"FEEDPOLLER_ENV=production", "FIRECRAWL_API_KEY=fc-key"}, useFC: true},
		{env: []string{"FEEDPOLLER_ENV=production", "FEEDPOLLER_WEB_FETCHER=native", "FIRECRAWL_API_KEY=fc-key"}},
		{env: []string{"FEEDPOLLER_WEB_FETCHER=firecrawl"}}, // development: native, with a warning
		{env: nil},
	} {
		cfg, err := loadConfig("", false, c.env)
		if err != nil {
			t.Fatal(err)
		}
		use, err := cfg.useFirecrawl()
		if c.wantErr {
			if err == nil || !strings.Contains(err.Error(), "FIRECRAWL_API_KEY") || !strings.Contains(err.Error(), "FEEDPOLLER_WEB_FETCHER=native") {
				t.Errorf("%v: %v, want a refusal naming FIRECRAWL_API_KEY and FEEDPOLLER_WEB_FETCHER=native", c.env, err)
			}
			continue
		}
		if err != nil || use != c.useFC {
			t.Errorf("%v: use Firecrawl %v, %v; want %v", c.env, use, err, c.useFC)
		}
	}
}

// The pool is sized from the workers on PostgreSQL unless configured.
func TestPoolOptionsFollowWorkers(t *testing.T) {
	cfg, err := loadConfig("", false, []string{"FEEDPOLLER_POLLER_WORKERS=16"})
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.poolOptions(store.Postgres); o.MaxOpenConns != 20 || o.MaxIdleConns != 0 {
		t.Fatalf("16 workers on PostgreSQL: %+v, want 20 open, all kept idle", o)
	}
	if o := cfg.poolOptions(store.SQLite); o.MaxOpenConns != 0 {
		t.Fatalf("SQLite: %+v, want the store's default", o)
	}
	cfg, err = loadConfig("", false, []string{"FEEDPOLLER_DATABASE_MAX_OPEN_CONNS=7", "FEEDPOLLER_DATABASE_MAX_IDLE_CONNS=3"})
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.poolOptions(store.Postgres); o.MaxOpenConns != 7 || o.MaxIdleConns != 3 {
		t.Fatalf("configured pool: %+v", o)
	}
	cfg, err = loadConfig("", false, []string{"FEEDPOLLER_DATABASE_STATEMENT_CACHE=-1"})
	if err != nil {
		t.Fatal(err)
	}
	if o := cfg.poolOptions(store.Postgres); o.StatementCache != -1 {
		t.Fatalf("no kept statements: %+v", o)
	}
	if _, err := loadConfig("", false, []string{"FEEDPOLLER_DATABASE_STATEMENT_CACHE=-2"}); err == nil ||
		!strings.Contains(err.Error(), "database_statement_cache") {
		t.Fatalf("a statement cache of -2: %v, want an error naming the key", err)
	}
	if _, err := loadConfig("", false, []string{"FEEDPOLLER_DATABASE_MAX_OPEN_CONNS=-1"}); err == nil ||
		!strings.Contains(err.Error(), "database_max_open_conns") {
		t.Fatalf("negative pool size: %v", err)
	}
}

// Configured values reach the options: the scheduling bounds, the
// service's interval, rules and digest budget, the story options.
func TestConfiguredValuesReachTheOptions(t *testing.T) {
	cfg, err := loadConfig("", false, []string{"FEEDPOLLER_WEB_DEFAULT_INTERVAL_MINUTES=90", "FEEDPOLLER_POLLER_WORKERS=3",
		"FEEDPOLLER_SCHEDULING_FLOOR=2m", "FEEDPOLLER_SCHEDULING_CEILING=12h", "FEEDPOLLER_SCHEDULING_SAFETY_INTERVAL=6h",
		"FEEDPOLLER_SCHEDULING_TARGET=15m", "FEEDPOLLER_SCHEDULING_BALANCE=1h",
		"FEEDPOLLER_RELIABILITY_RULES=example.org=2, *.example.net=4", "FEEDPOLLER_DIGEST_MAX_TOKENS=800",
		"FEEDPOLLER_STORIES_THRESHOLD=0.3", "FEEDPOLLER_STORIES_WINDOW=72h", "FEEDPOLLER_POLLER_SHUTDOWN_GRACE=0"})
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.options()
	po := o.Poller
	if o.Service.WebIntervalMinutes != 90 || po.Workers != 3 || po.Floor != 2*time.Minute ||
		po.Ceiling != 12*time.Hour || po.Safety != 6*time.Hour || po.Target != 15*time.Minute || po.Balance != time.Hour {
		t.Errorf("configured values do not reach the options: %+v", cfg)
	}
	so := o.Service
	if so.DigestMaxTokens != 800 || so.Reliability.Tier("https://news.example.org/") != 2 ||
		so.Reliability.Tier("https://a.example.net/") != 4 || so.Reliability.Tier("https://go.dev/") != 5 {
		t.Errorf("rules and budget do not reach the service: %+v", so)
	}
	if s := po.Pipeline.StoryOptions; s.Threshold != 0.3 || s.Window != 72*time.Hour {
		t.Errorf("story options %+v", s)
	}
	// The configuration's 0 is none, the poller's negative value.
	if po.ShutdownGrace >= 0 {
		t.Errorf("shutdown_grace 0 reached the poller as %v, want none (negative)", po.ShutdownGrace)
	}
}
