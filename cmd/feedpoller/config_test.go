package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
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
		{file: "poller:\n  wrokers: 3\n", want: "wrokers"},
	} {
		path := ""
		if tc.file != "" {
			path = filepath.Join(t.TempDir(), "c.yaml")
			os.WriteFile(path, []byte(tc.file), 0o600)
		}
		_, err := loadConfig(path, path != "", tc.env)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %q: error %v, want one naming %s", tc.env, tc.file, err, tc.want)
		}
	}
}

func TestProductionNeedsFirecrawlKeyOnlyWhenSelected(t *testing.T) {
	cfg, _ := loadConfig("", false, []string{"FEEDPOLLER_ENV=production", "FEEDPOLLER_WEB_FETCHER=firecrawl"})
	if _, err := cfg.useFirecrawl(); err == nil || !strings.Contains(err.Error(), "FIRECRAWL_API_KEY") {
		t.Fatalf("production with firecrawl and no key: %v, want an error naming FIRECRAWL_API_KEY", err)
	}
	cfg, _ = loadConfig("", false, []string{"FEEDPOLLER_ENV=production"})
	if use, err := cfg.useFirecrawl(); err != nil || use {
		t.Fatalf("production without firecrawl selected: use=%v err=%v, want native", use, err)
	}
}
