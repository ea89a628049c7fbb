package main

import (
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/webhooks"
	"github.com/feedpoller/feedpoller/websub"
)

// The built-in configuration takes its defaults from the packages'
// options and hands the configured values back in them, so each default
// is written once: in the package that uses it.

// pollerConfig is the poller section of the built-in configuration.
func pollerConfig(o poller.Options) PollerConfig {
	return PollerConfig{Schedule: o.Schedule, Workers: o.Workers, BatchSize: o.BatchSize, Lease: o.Lease,
		ShutdownGrace: o.ShutdownGrace, Jitter: o.Jitter, MinWords: o.MinWords, FetchArticles: true,
		MaxArticleFetches: o.MaxArticleFetches, MaxBackoff: o.MaxBackoff, MaxMarkdownBytes: o.MaxMarkdownBytes}
}

// schedulingConfig is the scheduling section of the built-in
// configuration.
func schedulingConfig(o poller.Options) SchedulingConfig {
	return SchedulingConfig{Floor: o.Floor, Ceiling: o.Ceiling, SafetyInterval: o.Safety, Target: o.Target, Balance: o.Balance}
}

// pollerOptions lays the configured poller and scheduling values over
// base (the poller's defaults, which also carry what is not
// configurable).
func (c Config) pollerOptions(base poller.Options) poller.Options {
	o := base
	p, s := c.Poller, c.Scheduling
	o.Schedule, o.Workers, o.BatchSize, o.Lease = p.Schedule, p.Workers, p.BatchSize, p.Lease
	o.ShutdownGrace, o.Jitter, o.MinWords = p.ShutdownGrace, p.Jitter, p.MinWords
	o.MaxArticleFetches, o.MaxBackoff, o.MaxMarkdownBytes = p.MaxArticleFetches, p.MaxBackoff, p.MaxMarkdownBytes
	o.Floor, o.Ceiling, o.Safety, o.Target, o.Balance = s.Floor, s.Ceiling, s.SafetyInterval, s.Target, s.Balance
	return o
}

// serviceOptions are the source service's defaults with the configured
// web interval, reliability rules and digest budget; an OPML import
// spaces its validation fetches per host as the fetcher spaces requests
// per domain.
func (c Config) serviceOptions() service.Options {
	o := service.DefaultOptions()
	o.WebIntervalMinutes = c.Web.DefaultIntervalMinutes
	o.DigestMaxTokens = c.Digest.MaxTokens
	o.ImportHostGap = gapOption(c.Fetch.PerDomainGap)
	// The rules were checked when the configuration was loaded.
	if cls, err := c.Reliability.classifier(); err == nil {
		o.Reliability = cls
	}
	return o
}

// webhooksConfig is the webhooks section of the built-in configuration.
func webhooksConfig() WebhooksConfig {
	return WebhooksConfig{Timeout: webhooks.DefaultTimeout, GiveUpAfter: webhooks.DefaultGiveUpAfter,
		Lease: webhooks.DefaultLease, Concurrency: webhooks.DefaultConcurrency}
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

// webSubConfig is the websub section of the built-in configuration.
func webSubConfig(o websub.Options) WebSubConfig {
	return WebSubConfig{Lease: o.Lease, SyncInterval: o.Interval, MaxBodyBytes: o.MaxBodyBytes}
}

// webSubOptions lays the configured values over the subscriber's defaults.
func (c Config) webSubOptions() websub.Options {
	o := websub.DefaultOptions()
	o.PublicURL, o.Lease, o.Interval, o.MaxBodyBytes = c.PublicURL, c.WebSub.Lease, c.WebSub.SyncInterval, c.WebSub.MaxBodyBytes
	o.MaxItems, o.UserAgent = c.Fetch.MaxItems, c.Fetch.UserAgent
	return o
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
