package main

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// ownKeys are the configuration keys bound to no package option, and why:
// the daemon uses them itself or derives an option from them.
var ownKeys = map[string]string{
	"env": "the daemon's mode", "listen": "the daemon's listener", "database_url": "opens the store",
	"database_max_open_conns": "sized from the workers (poolOptions)", "database_max_idle_conns": "poolOptions",
	"database_statement_cache": "poolOptions",
	"sql_database_url":         "the sql command's", "admin_token": "stored at start", "log_level": "the daemon's logger",
	"log_format": "the daemon's logger", "mcp_allowed_hosts": "the listener's Host check",
	"poller.fetch_articles": "chooses whether the pipeline gets a page fetcher",
	"fetch.user_agent":      "the binary's version; options() hands it to the fetcher and the subscriber",
	"fetch.respect_robots":  "the web fetcher's, which has no Options",
	"web.fetcher":           "chooses the web sources' fetcher",
	"reliability.rules":     "compiled into the service's classifier by options()",
}

// notConfigurable are the package options no key sets, and why.
var notConfigurable = map[string]string{
	"Poller.UnconditionalEvery": "a protocol constant of conditional requests", "Poller.Owner": "unique per process",
	"Fetch.MaxRedirects": "tuning", "Fetch.ConnectTimeout": "tuning", "Fetch.ResponseHeaderTimeout": "tuning",
	"Fetch.RetryBaseDelay": "tuning", "Fetch.MaxRetryAfterWait": "tuning", "Fetch.BreakerFailures": "tuning",
	"Fetch.BreakerWindow": "tuning", "Fetch.BreakerOpenFor": "tuning", "Fetch.BreakerCloseAfter": "tuning",
	"Fetch.RateLimitHits": "tuning", "Fetch.RateLimitWindow": "tuning", "Fetch.RateLimitPause": "tuning",
	"Fetch.MaxRateLimitWait": "derived from scheduling.ceiling and poller.max_backoff", "Fetch.MaxDomains": "tuning",
	"Fetch.UserAgent":        "fetch.user_agent (own key)",
	"Firecrawl.MaxBodyBytes": "tuning", "Firecrawl.Attempts": "tuning", "Firecrawl.RetryBaseDelay": "tuning",
	"Sender.UserAgent": "the documented delivery format's", "Webhooks.Owner": "unique per process",
	"Webhooks.Batch": "tuning", "Webhooks.Idle": "tuning", "Webhooks.Backoff.Base": "tuning",
	"Webhooks.Backoff.Max": "tuning", "Webhooks.Backoff.MaxRejections": "tuning",
	"WebSub.MaxUnverifiedBytes": "follows websub.max_body_bytes", "WebSub.UserAgent": "fetch.user_agent (own key)",
	"Service.RSSIntervalMinutes": "the API's default", "Service.DefaultThreshold": "the API's default",
	"Service.ValidateTimeout":                       "tuning",
	"Poller.Pipeline.PlaceStories":                  "always on in the daemon",
	"Poller.Pipeline.StoryOptions.MergeThreshold":   "tuned with the grouping (docs/digest.md)",
	"Poller.Pipeline.StoryOptions.IndexTerms":       "tuned with the grouping (docs/digest.md)",
	"Poller.Pipeline.StoryOptions.PerTermLimit":     "tuned with the grouping (docs/digest.md)",
	"Poller.Pipeline.StoryOptions.SizeMargin":       "tuned with the grouping (docs/digest.md)",
	"Poller.Pipeline.StoryOptions.MaxCompared":      "tuned with the grouping (docs/digest.md)",
	"Poller.Pipeline.StoryOptions.LateJoins":        "an alternative grouping measured on ECB+, off in the daemon (docs/digest.md)",
	"Poller.Pipeline.StoryOptions.ReexamineMembers": "tuned with the grouping (docs/digest.md); the benchmark turns it off to compare",
	"Poller.Pipeline.StoryDocFreqWindow":            "tuned with the grouping (docs/digest.md)",
}

// TestConfigKeysAreThePackagesOptions keeps the configuration and the
// packages' Options from drifting: every key is bound to options of the
// same type or is the daemon's own; every settable option is bound to a
// key or said not to be configurable; each key's built-in default is its
// options' default; and a configured value reaches every option it is
// bound to.
func TestConfigKeysAreThePackagesOptions(t *testing.T) {
	defaults := reflect.ValueOf(defaultPackageOptions())
	cfg := defaultConfig()
	bound := map[string]bool{}
	eachOptionKey(reflect.ValueOf(cfg), "", func(key string, f reflect.StructField, cv reflect.Value) {
		if _, own := ownKeys[key]; own {
			t.Errorf("%s is bound to options and listed as the daemon's own", key)
		}
		for _, path := range strings.Fields(f.Tag.Get("option")) {
			bound[path] = true
			ov := optionFieldOK(t, defaults, path)
			if !ov.IsValid() {
				t.Errorf("%s names option %s, which does not exist", key, path)
				continue
			}
			if ov.Type() != cv.Type() {
				t.Errorf("%s is a %s, option %s a %s", key, cv.Type(), path, ov.Type())
				continue
			}
			if want := configValue(f, ov); !reflect.DeepEqual(cv.Interface(), want) {
				t.Errorf("%s defaults to %v, option %s to %v", key, cv.Interface(), path, want)
			}
		}
		// A value other than the default reaches every option.
		c := defaultConfig()
		changed := changeField(t, key, optionKeyValue(&c, key))
		got := reflect.ValueOf(c.options())
		for _, path := range strings.Fields(f.Tag.Get("option")) {
			if ov := optionFieldOK(t, got, path); ov.IsValid() && !reflect.DeepEqual(ov.Interface(), changed) {
				t.Errorf("%s set to %v gives option %s %v", key, changed, path, ov.Interface())
			}
		}
	})
	eachLeafKey(reflect.ValueOf(cfg), "", func(key string, f reflect.StructField) {
		if _, own := ownKeys[key]; !own && f.Tag.Get("option") == "" {
			t.Errorf("key %s is bound to no option: tag it option:\"…\" or list it in ownKeys", key)
		}
	})
	eachOption(defaults, "", func(path string) {
		if _, not := notConfigurable[path]; !bound[path] && !not {
			t.Errorf("option %s has no key: bind one (option tag) or list it in notConfigurable", path)
		}
		if bound[path] && notConfigurable[path] != "" {
			t.Errorf("option %s is bound to a key and listed as not configurable", path)
		}
	})
}

// TestNoneKeysKeepTheirMeaning: a key whose 0 means none hands the
// package its negative "none", not 0 (the package's "default").
func TestNoneKeysKeepTheirMeaning(t *testing.T) {
	c := defaultConfig()
	c.Poller.ShutdownGrace, c.Poller.Jitter, c.Poller.MinWords, c.Poller.MaxArticleFetches, c.Fetch.PerDomainGap = 0, 0, 0, 0, 0
	o := c.options()
	if o.Poller.ShutdownGrace >= 0 || o.Poller.Jitter >= 0 || o.Poller.Pipeline.MinWords >= 0 ||
		o.Poller.Pipeline.MaxArticleFetches >= 0 || o.Fetch.PerDomainGap >= 0 || o.Service.ImportHostGap >= 0 {
		t.Fatalf("zeros that mean none reached the options as %+v / %+v", o.Poller, o.Fetch)
	}
}

func optionFieldOK(t *testing.T, o reflect.Value, path string) reflect.Value {
	t.Helper()
	for name := range strings.SplitSeq(path, ".") {
		if o.Kind() != reflect.Struct {
			return reflect.Value{}
		}
		o = o.FieldByName(name)
		if !o.IsValid() {
			return o
		}
	}
	return o
}

// configValue is how the configuration writes option value ov.
func configValue(f reflect.StructField, ov reflect.Value) any {
	if ov.Kind() == reflect.Slice && ov.IsNil() {
		return reflect.MakeSlice(ov.Type(), 0, 0).Interface()
	}
	if hasNone(f) && isNegative(ov) {
		return reflect.Zero(ov.Type()).Interface()
	}
	return ov.Interface()
}

// optionKeyValue is the settable field of key in c.
func optionKeyValue(c *Config, key string) reflect.Value {
	var found reflect.Value
	eachOptionKey(reflect.ValueOf(c).Elem(), "", func(k string, _ reflect.StructField, v reflect.Value) {
		if k == key {
			found = v
		}
	})
	return found
}

// changeField sets v to a valid value other than its default and returns it.
func changeField(t *testing.T, key string, v reflect.Value) any {
	t.Helper()
	switch x := v.Interface().(type) {
	case time.Duration:
		v.SetInt(int64(x + time.Minute))
	case int, int64:
		v.SetInt(v.Int() + 1)
	case float64:
		v.SetFloat(x / 2)
	case bool:
		v.SetBool(!x)
	case string:
		v.SetString(x + "x")
	case []string:
		v.Set(reflect.ValueOf(append(x, "example.org")))
	default:
		t.Fatalf("%s: no change for a %T", key, x)
	}
	return v.Interface()
}

// eachLeafKey calls fn for every configuration key that is not a section.
func eachLeafKey(v reflect.Value, prefix string, fn func(key string, f reflect.StructField)) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		key := f.Tag.Get("yaml")
		if prefix != "" {
			key = prefix + "." + key
		}
		if f.Type.Kind() == reflect.Struct {
			eachLeafKey(v.Field(i), key, fn)
			continue
		}
		fn(key, f)
	}
}

// eachOption calls fn for every option a configuration could set: the
// exported fields of plain kinds, nested structs walked (collaborators,
// functions and interfaces are wiring, not settings).
func eachOption(v reflect.Value, prefix string, fn func(path string)) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		path := f.Name
		if prefix != "" {
			path = prefix + "." + f.Name
		}
		switch f.Type.Kind() {
		case reflect.Struct:
			eachOption(v.Field(i), path, fn)
		case reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64, reflect.String:
			fn(path)
		case reflect.Slice:
			if f.Type.Elem().Kind() == reflect.String {
				fn(path)
			}
		}
	}
}
