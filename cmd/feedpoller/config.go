package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/feedpoller/feedpoller/analysis/rank"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/store"
)

// Config is the effective configuration: built-in defaults (the same as the
// documented config.yaml), then a config file, then environment variables.
type Config struct {
	// Env is "development" or "production".
	Env         string `yaml:"env"`
	Listen      string `yaml:"listen"`
	DatabaseURL string `yaml:"database_url" secret:"url"`
	// DatabaseMaxOpenConns caps the connection pool; 0 sizes it from the
	// workers (see poolOptions). DatabaseMaxIdleConns is how many stay
	// open while idle; 0 keeps all of them.
	DatabaseMaxOpenConns int `yaml:"database_max_open_conns"`
	DatabaseMaxIdleConns int `yaml:"database_max_idle_conns"`
	// DatabaseStatementCache is how many prepared statements each
	// connection keeps (store.Options.StatementCache): 0 the store's
	// default, -1 none.
	DatabaseStatementCache int `yaml:"database_statement_cache"`
	// SQLDatabaseURL is where `feedpoller sql` connects instead of
	// DatabaseURL when set: a database role that may only read.
	SQLDatabaseURL string `yaml:"sql_database_url" secret:"url"`
	AdminToken     string `yaml:"admin_token" secret:"true"`
	LogLevel       string `yaml:"log_level"`
	LogFormat      string `yaml:"log_format"`
	// PublicURL is where hubs reach the API listener from outside; empty:
	// no WebSub subscriptions.
	PublicURL string `yaml:"public_url" option:"WebSub.PublicURL"`
	// MCPAllowedHosts are the Host names /mcp answers on a loopback
	// listener besides the loopback ones (a reverse proxy's public host).
	MCPAllowedHosts []string `yaml:"mcp_allowed_hosts"`

	Poller     PollerConfig     `yaml:"poller"`
	Scheduling SchedulingConfig `yaml:"scheduling"`
	Fetch      FetchConfig      `yaml:"fetch"`
	Web        WebConfig        `yaml:"web"`
	Firecrawl  FirecrawlConfig  `yaml:"firecrawl"`
	Webhooks   WebhooksConfig   `yaml:"webhooks"`
	WebSub     WebSubConfig     `yaml:"websub"`

	Reliability ReliabilityConfig `yaml:"reliability"`
	Stories     StoriesConfig     `yaml:"stories"`
	Digest      DigestConfig      `yaml:"digest"`
}

// WebSubConfig configures the WebSub subscriber (active when public_url
// is set).
type WebSubConfig struct {
	// Lease is the subscription lease asked of hubs.
	Lease time.Duration `yaml:"lease" option:"WebSub.Lease"`
	// SyncInterval is how often subscriptions are made, renewed and dropped.
	SyncInterval time.Duration `yaml:"sync_interval" option:"WebSub.Interval"`
	// MaxBodyBytes bounds a content distribution.
	MaxBodyBytes int64 `yaml:"max_body_bytes" option:"WebSub.MaxBodyBytes"`
}

// PollerConfig configures scheduling and the per-poll pipeline.
type PollerConfig struct {
	Schedule          string        `yaml:"schedule" option:"Poller.Schedule"`
	Workers           int           `yaml:"workers" option:"Poller.Workers"`
	BatchSize         int           `yaml:"batch_size" option:"Poller.BatchSize"`
	Lease             time.Duration `yaml:"lease" option:"Poller.Lease"`
	ShutdownGrace     time.Duration `yaml:"shutdown_grace" option:"Poller.ShutdownGrace" none:""`
	Jitter            float64       `yaml:"jitter" option:"Poller.Jitter" none:""`
	MinWords          int           `yaml:"min_words" option:"Poller.Pipeline.MinWords" none:""`
	FetchArticles     bool          `yaml:"fetch_articles"`
	MaxArticleFetches int           `yaml:"max_article_fetches" option:"Poller.Pipeline.MaxArticleFetches" none:""`
	MaxBackoff        time.Duration `yaml:"max_backoff" option:"Poller.MaxBackoff"`
	MaxMarkdownBytes  int           `yaml:"max_markdown_bytes" option:"Poller.Pipeline.MaxMarkdownBytes"`
}

// SchedulingConfig bounds and tunes when sources are polled next (see
// docs/scheduling.md); the poller's jitter and max_backoff apply too.
type SchedulingConfig struct {
	// Floor and Ceiling: no adaptive interval or publisher hint places a
	// next poll sooner than Floor or later than Ceiling.
	Floor   time.Duration `yaml:"floor" option:"Poller.Floor"`
	Ceiling time.Duration `yaml:"ceiling" option:"Poller.Ceiling"`
	// SafetyInterval is how often a source whose items are pushed by
	// WebSub is still polled.
	SafetyInterval time.Duration `yaml:"safety_interval" option:"Poller.Safety"`
	// Target is the detection latency aimed at for busy sources; Balance
	// the waiting beyond it that one request is worth.
	Target  time.Duration `yaml:"target" option:"Poller.Target"`
	Balance time.Duration `yaml:"balance" option:"Poller.Balance"`
}

// FetchConfig configures the hardened HTTP fetcher.
type FetchConfig struct {
	Timeout              time.Duration `yaml:"timeout" option:"Fetch.Timeout"`
	MaxBodyBytes         int64         `yaml:"max_body_bytes" option:"Fetch.MaxBodyBytes"`
	UserAgent            string        `yaml:"user_agent"`
	AllowPrivateNetworks bool          `yaml:"allow_private_networks" option:"Fetch.AllowPrivateNetworks"`
	Allow                []string      `yaml:"allow" option:"Fetch.Allow"`
	MaxItems             int           `yaml:"max_items" option:"WebSub.MaxItems"`
	Attempts             int           `yaml:"attempts" option:"Fetch.Attempts"`
	PerDomainConcurrency int           `yaml:"per_domain_concurrency" option:"Fetch.PerDomainConcurrency"`
	PerDomainGap         time.Duration `yaml:"per_domain_gap" option:"Fetch.PerDomainGap Service.ImportHostGap" none:""`
	RespectRobots        bool          `yaml:"respect_robots"`
}

// WebConfig configures web sources.
type WebConfig struct {
	// Fetcher is "auto" (Firecrawl when a key is set, else native),
	// "native" or "firecrawl".
	Fetcher                string `yaml:"fetcher"`
	DefaultIntervalMinutes int    `yaml:"default_interval_minutes" option:"Service.WebIntervalMinutes"`
}

// FirecrawlConfig configures the Firecrawl client.
type FirecrawlConfig struct {
	APIKey  string        `yaml:"api_key" secret:"true" env:"FIRECRAWL_API_KEY" option:"Firecrawl.APIKey"`
	APIURL  string        `yaml:"api_url" env:"FIRECRAWL_API_URL" option:"Firecrawl.APIURL"`
	Timeout time.Duration `yaml:"timeout" option:"Firecrawl.Timeout"`
}

// WebhooksConfig configures webhook deliveries.
type WebhooksConfig struct {
	// Timeout bounds one delivery attempt.
	Timeout time.Duration `yaml:"timeout" option:"Sender.Timeout"`
	// GiveUpAfter is how long after its event a delivery is retried
	// before it fails.
	GiveUpAfter time.Duration `yaml:"give_up_after" option:"Webhooks.Backoff.GiveUpAfter"`
	// Lease is how long a claimed delivery stays this daemon's; a
	// daemon that dies mid-send leaves it to be sent again after it.
	Lease time.Duration `yaml:"lease" option:"Webhooks.Lease"`
	// Concurrency bounds the deliveries in flight.
	Concurrency int `yaml:"concurrency" option:"Webhooks.Concurrency"`
}

// Version is set at build time with -ldflags "-X main.Version=…".
var Version = "0.1.0-dev"

// defaultConfig is the built-in configuration: the option keys hold the
// packages' defaults, the rest the daemon's own.
func defaultConfig() Config {
	c := Config{
		Env:             "development",
		Listen:          "127.0.0.1:8080",
		LogLevel:        "info",
		MCPAllowedHosts: []string{},
		LogFormat:       "text",
		Poller:          PollerConfig{FetchArticles: true},
		Fetch:           FetchConfig{UserAgent: "feedpoller/" + Version + " (+https://github.com/feedpoller/feedpoller)", RespectRobots: true},
		Web:             WebConfig{Fetcher: "auto"},
		Reliability:     ReliabilityConfig{Rules: rank.DefaultRules()},
	}
	c.setOptionDefaults(defaultPackageOptions())
	return c
}

// loadConfig reads defaults, then path (if it exists, or if it was asked
// for explicitly), then the environment.
func loadConfig(path string, explicit bool, environ []string) (Config, error) {
	cfg := defaultConfig()
	if path != "" {
		data, err := os.ReadFile(path)
		switch {
		case err == nil:
			dec := yaml.NewDecoder(strings.NewReader(string(data)))
			dec.KnownFields(true)
			if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
				return cfg, fmt.Errorf("config file %s: %w", path, err)
			}
		case explicit || !errors.Is(err, os.ErrNotExist):
			return cfg, fmt.Errorf("read config file: %w", err)
		}
	}
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	if err := applyEnv(reflect.ValueOf(&cfg).Elem(), "FEEDPOLLER", env); err != nil {
		return cfg, err
	}
	return cfg, cfg.validate()
}

// envName is the variable overriding a key: FEEDPOLLER_ plus the key path in
// upper case, e.g. poller.workers → FEEDPOLLER_POLLER_WORKERS.
func envName(prefix, key string) string { return prefix + "_" + strings.ToUpper(key) }

// applyEnv walks the config struct and overrides each field from its
// variable (and from its conventional alias, such as FIRECRAWL_API_KEY).
func applyEnv(v reflect.Value, prefix string, env map[string]string) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key := f.Tag.Get("yaml")
		name := envName(prefix, key)
		fv := v.Field(i)
		if f.Type.Kind() == reflect.Struct {
			if err := applyEnv(fv, name, env); err != nil {
				return err
			}
			continue
		}
		val, ok := env[name]
		if alias := f.Tag.Get("env"); alias != "" {
			if a, aok := env[alias]; aok && !ok {
				val, ok, name = a, true, alias
			}
		}
		if !ok {
			continue
		}
		if err := setField(fv, val); err != nil {
			return fmt.Errorf("environment variable %s=%q: %w", name, redactIf(f, val), err)
		}
	}
	return nil
}

func redactIf(f reflect.StructField, val string) string {
	if f.Tag.Get("secret") != "" {
		return "xxxxx"
	}
	return val
}

func setField(fv reflect.Value, val string) error {
	switch fv.Interface().(type) {
	case string:
		fv.SetString(val)
	case bool:
		b, err := strconv.ParseBool(val)
		if err != nil {
			return fmt.Errorf("want true or false")
		}
		fv.SetBool(b)
	case int, int64:
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return fmt.Errorf("want a whole number")
		}
		fv.SetInt(n)
	case float64:
		x, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return fmt.Errorf("want a number")
		}
		fv.SetFloat(x)
	case time.Duration:
		d, err := time.ParseDuration(val)
		if err != nil {
			return fmt.Errorf("want a duration such as 30s or 5m")
		}
		fv.SetInt(int64(d))
	case ReliabilityRules:
		rules, err := parseRules(val)
		if err != nil {
			return err
		}
		fv.Set(reflect.ValueOf(rules))
	case []string:
		var parts []string
		for _, p := range strings.Split(val, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		fv.Set(reflect.ValueOf(parts))
	default:
		return fmt.Errorf("unsupported setting type %s", fv.Type())
	}
	return nil
}

func (c Config) validate() error {
	var errs []string
	for _, u := range []struct{ key, val string }{{"database_url (FEEDPOLLER_DATABASE_URL)", c.DatabaseURL},
		{"sql_database_url (FEEDPOLLER_SQL_DATABASE_URL)", c.SQLDatabaseURL}} {
		if u.val == "" {
			continue
		}
		if _, _, err := store.ParseURL(u.val); err != nil {
			errs = append(errs, u.key+": "+err.Error())
		}
	}
	if u := c.Firecrawl.APIURL; u != "" {
		// Checked here so that no later error repeats the URL with its
		// credentials.
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			errs = append(errs, fmt.Sprintf("firecrawl.api_url (FIRECRAWL_API_URL) %s is not an absolute http(s) URL", store.RedactURL(u)))
		}
	}
	if c.DatabaseMaxOpenConns < 0 || c.DatabaseMaxOpenConns > 10000 {
		errs = append(errs, "database_max_open_conns must be 0 (sized from poller.workers) or 1..10000")
	}
	if c.DatabaseMaxIdleConns < 0 {
		errs = append(errs, "database_max_idle_conns must be 0 (as many as open) or more")
	}
	if c.DatabaseStatementCache < -1 || c.DatabaseStatementCache > 10000 {
		errs = append(errs, "database_statement_cache must be -1 (keep no prepared statements), 0 (the default) or 1..10000")
	}
	if c.Env != "development" && c.Env != "production" {
		errs = append(errs, fmt.Sprintf("env (FEEDPOLLER_ENV) is %q: want development or production", c.Env))
	}
	if c.Poller.Workers < 1 || c.Poller.Workers > 1024 {
		errs = append(errs, "poller.workers must be 1..1024")
	}
	if c.Poller.BatchSize < 1 || c.Poller.BatchSize > 10000 {
		errs = append(errs, "poller.batch_size must be 1..10000")
	}
	if c.Poller.MaxMarkdownBytes < 4096 {
		errs = append(errs, "poller.max_markdown_bytes must be at least 4096")
	}
	errs = append(errs, c.Scheduling.problems()...)
	errs = append(errs, c.webSubProblems()...)
	if c.Fetch.Timeout <= 0 || c.Fetch.Timeout > 60*time.Second {
		errs = append(errs, "fetch.timeout must be more than 0 and at most 60s")
	}
	if c.Fetch.MaxBodyBytes < 1024 {
		errs = append(errs, "fetch.max_body_bytes must be at least 1024")
	}
	switch c.Web.Fetcher {
	case "auto", "native", "firecrawl":
	default:
		errs = append(errs, fmt.Sprintf("web.fetcher is %q: want auto, native or firecrawl", c.Web.Fetcher))
	}
	if c.Web.DefaultIntervalMinutes < service.MinIntervalMinutes || c.Web.DefaultIntervalMinutes > service.MaxIntervalMinutes {
		errs = append(errs, fmt.Sprintf("web.default_interval_minutes must be %d..%d", service.MinIntervalMinutes, service.MaxIntervalMinutes))
	}
	errs = append(errs, c.checkIntelligence()...)
	errs = append(errs, c.Webhooks.problems()...)
	if len(errs) > 0 {
		return fmt.Errorf("invalid configuration: %s", strings.Join(errs, "; "))
	}
	return nil
}

// maxSchedule is the longest a scheduling setting may be: the longest
// polling interval a source may have.
const maxSchedule = time.Duration(service.MaxIntervalMinutes) * time.Minute

// problems names each scheduling setting that makes no sense, with its
// key and variable.
func (c SchedulingConfig) problems() []string {
	var errs []string
	bad := func(key string, d time.Duration, want string) {
		errs = append(errs, fmt.Sprintf("scheduling.%s (%s) is %s: %s", key, envName("FEEDPOLLER_SCHEDULING", key), d, want))
	}
	if c.Floor < time.Minute || c.Floor > 24*time.Hour {
		bad("floor", c.Floor, "want 1m..24h")
	}
	if c.Ceiling < c.Floor || c.Ceiling > maxSchedule {
		bad("ceiling", c.Ceiling, fmt.Sprintf("want at least scheduling.floor (%s) and at most %s", c.Floor, maxSchedule))
	}
	if c.SafetyInterval < c.Floor || c.SafetyInterval > maxSchedule {
		bad("safety_interval", c.SafetyInterval, fmt.Sprintf("want at least scheduling.floor (%s) and at most %s", c.Floor, maxSchedule))
	}
	if c.Target < time.Minute || c.Target > c.Ceiling {
		bad("target", c.Target, fmt.Sprintf("want at least 1m and at most scheduling.ceiling (%s)", c.Ceiling))
	}
	if c.Balance <= 0 || c.Balance > maxSchedule {
		bad("balance", c.Balance, fmt.Sprintf("want more than 0 and at most %s", maxSchedule))
	}
	return errs
}

// useFirecrawl decides the web fetcher. In production, a configuration that
// needs Firecrawl (web.fetcher firecrawl, or the default auto) without a
// key refuses to start: production pages are fetched through Firecrawl
// unless the native fetcher is chosen explicitly.
func (c Config) useFirecrawl() (bool, error) {
	if c.Web.Fetcher == "native" {
		return false, nil
	}
	if c.Firecrawl.APIKey != "" {
		return true, nil
	}
	if c.Env == "production" {
		return false, fmt.Errorf("FEEDPOLLER_ENV is production and web.fetcher is %s, but FIRECRAWL_API_KEY is not set: "+
			"set FIRECRAWL_API_KEY, or choose the native fetcher explicitly with FEEDPOLLER_WEB_FETCHER=native", c.Web.Fetcher)
	}
	return false, nil
}

// poolOptions sizes the database pool: by default one connection per
// worker plus a few for the scheduler's claims, the API and the metrics,
// all kept open while idle, so a polling round opens no new sessions.
// SQLite keeps its small pool: it has one writer at a time.
func (c Config) poolOptions(dialect string) store.Options {
	o := store.Options{MaxOpenConns: c.DatabaseMaxOpenConns, MaxIdleConns: c.DatabaseMaxIdleConns,
		StatementCache: c.DatabaseStatementCache}
	if o.MaxOpenConns == 0 && dialect == store.Postgres {
		o.MaxOpenConns = c.Poller.Workers + poolSpare
	}
	return o
}

// poolSpare is the connections beyond the workers': a claim, two API
// requests and a metrics scrape at once.
const poolSpare = 4

// redacted renders the configuration as YAML with secrets hidden.
func (c Config) redacted() (string, error) {
	cp := c
	if cp.AdminToken != "" {
		cp.AdminToken = "(set, hidden)"
	}
	if cp.Firecrawl.APIKey != "" {
		cp.Firecrawl.APIKey = "(set, hidden)"
	}
	cp.DatabaseURL = store.RedactURL(cp.DatabaseURL)
	cp.SQLDatabaseURL = store.RedactURL(cp.SQLDatabaseURL)
	cp.Firecrawl.APIURL = store.RedactURL(cp.Firecrawl.APIURL)
	out, err := yaml.Marshal(cp)
	return string(out), err
}
