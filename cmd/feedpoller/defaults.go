package main

import (
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/integrations/webhooks"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/sources/firecrawl"
	"github.com/feedpoller/feedpoller/websub"
)

// packageOptions are the Options of the packages the configuration sets.
//
// A configuration key tagged option:"Poller.Workers" is that field of
// them (several fields when the tag names several): its built-in default
// is the package's (defaultConfig reads it from DefaultOptions) and its
// configured value is handed back in that field (Config.options), so a
// default is written once, in the package that uses it, and a key cannot
// name an option that does not exist (TestConfigKeysAreThePackagesOptions
// checks every key and every option). A key also tagged none:"" keeps the
// configuration's own meaning of 0, none, which the packages say with a
// negative value (their 0 is "the default").
type packageOptions struct {
	Poller    poller.Options
	Fetch     fetch.Options
	Firecrawl firecrawl.Options
	Sender    webhooks.SenderOptions
	Webhooks  webhooks.WorkerOptions
	WebSub    websub.Options
	Service   service.Options
}

// defaultPackageOptions are the packages' defaults.
func defaultPackageOptions() packageOptions {
	return packageOptions{Poller: poller.DefaultOptions(), Fetch: fetch.DefaultOptions(),
		Firecrawl: firecrawl.DefaultOptions(), Sender: webhooks.DefaultSenderOptions(),
		Webhooks: webhooks.DefaultWorkerOptions(), WebSub: websub.DefaultOptions(), Service: service.DefaultOptions()}
}

// eachOptionKey calls fn for every configuration field bound to options:
// its key (poller.workers), the field and its value.
func eachOptionKey(v reflect.Value, prefix string, fn func(key string, f reflect.StructField, fv reflect.Value)) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		key := f.Tag.Get("yaml")
		if prefix != "" {
			key = prefix + "." + key
		}
		switch {
		case f.Type.Kind() == reflect.Struct:
			eachOptionKey(v.Field(i), key, fn)
		case f.Tag.Get("option") != "":
			fn(key, f, v.Field(i))
		}
	}
}

// optionField is the field at path (Poller.Pipeline.MinWords) of o, a
// struct value.
func optionField(o reflect.Value, path string) reflect.Value {
	for name := range strings.SplitSeq(path, ".") {
		o = o.FieldByName(name)
	}
	return o
}

// setOptionDefaults sets every option key of c to the value of the first
// option it is bound to in o: the built-in configuration's defaults.
func (c *Config) setOptionDefaults(o packageOptions) {
	ov := reflect.ValueOf(o)
	eachOptionKey(reflect.ValueOf(c).Elem(), "", func(_ string, f reflect.StructField, cv reflect.Value) {
		v := optionField(ov, strings.Fields(f.Tag.Get("option"))[0])
		switch {
		case v.Kind() == reflect.Slice && v.IsNil():
			v = reflect.MakeSlice(v.Type(), 0, 0)
		case hasNone(f) && v.Comparable() && isNegative(v):
			v = reflect.Zero(v.Type())
		}
		cv.Set(v)
	})
}

// options lays the configured values over the packages' defaults.
func (c Config) options() packageOptions {
	o := defaultPackageOptions()
	ov := reflect.ValueOf(&o).Elem()
	eachOptionKey(reflect.ValueOf(c), "", func(_ string, f reflect.StructField, cv reflect.Value) {
		v := cv
		if hasNone(f) && v.IsZero() {
			v = reflect.ValueOf(-1).Convert(v.Type())
		}
		for _, path := range strings.Fields(f.Tag.Get("option")) {
			optionField(ov, path).Set(v)
		}
	})
	// What no key carries one to one: the daemon's name, the longest
	// Retry-After (no longer than the scheduler honours one for a source)
	// and the reliability rules (checked when the configuration was
	// loaded).
	o.Fetch.UserAgent, o.WebSub.UserAgent = c.Fetch.UserAgent, c.Fetch.UserAgent
	o.Fetch.MaxRateLimitWait = max(c.Scheduling.Ceiling, c.Poller.MaxBackoff)
	if cls, err := c.Reliability.classifier(); err == nil {
		o.Service.Reliability = cls
	}
	return o
}

func hasNone(f reflect.StructField) bool { _, ok := f.Tag.Lookup("none"); return ok }

func isNegative(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		return v.Int() < 0
	case reflect.Float64:
		return v.Float() < 0
	}
	return false
}

// problems names each webhook setting out of range. The lease must
// outlast an attempt, or a slow receiver's delivery would be claimed and
// sent again while the first attempt still runs.
func (c WebhooksConfig) problems() []string {
	var errs []string
	if c.Timeout <= 0 || c.Timeout > 5*time.Minute {
		errs = append(errs, "webhooks.timeout must be more than 0 and at most 5m")
	}
	if c.Lease <= c.Timeout {
		errs = append(errs, fmt.Sprintf("webhooks.lease (%v) must be longer than webhooks.timeout (%v)", c.Lease, c.Timeout))
	}
	if c.GiveUpAfter < time.Minute {
		errs = append(errs, "webhooks.give_up_after must be at least 1m")
	}
	if c.Concurrency < 1 || c.Concurrency > 256 {
		errs = append(errs, "webhooks.concurrency must be 1..256")
	}
	return errs
}

// webSubProblems names the websub settings that cannot work.
func (c Config) webSubProblems() []string {
	var errs []string
	if c.PublicURL != "" && !websub.ValidPublicURL(c.PublicURL) {
		errs = append(errs, fmt.Sprintf("public_url (FEEDPOLLER_PUBLIC_URL) %q is not an absolute http(s) URL without credentials, query or fragment", c.PublicURL))
	}
	if c.WebSub.Lease < time.Minute || c.WebSub.Lease > 365*24*time.Hour {
		errs = append(errs, "websub.lease must be 1m..8760h")
	}
	if c.WebSub.SyncInterval < time.Second || c.WebSub.SyncInterval > time.Hour {
		errs = append(errs, "websub.sync_interval must be 1s..1h")
	}
	if c.WebSub.MaxBodyBytes < 1024 {
		errs = append(errs, "websub.max_body_bytes must be at least 1024")
	}
	return errs
}
