package main

import (
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/service"
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

// options lays the configured values over base (the poller's defaults,
// which also carry what is not configurable).
func (c PollerConfig) options(base poller.Options) poller.Options {
	o := base
	o.Schedule, o.Workers, o.BatchSize, o.Lease = c.Schedule, c.Workers, c.BatchSize, c.Lease
	o.ShutdownGrace, o.Jitter, o.MinWords = c.ShutdownGrace, c.Jitter, c.MinWords
	o.MaxArticleFetches, o.MaxBackoff, o.MaxMarkdownBytes = c.MaxArticleFetches, c.MaxBackoff, c.MaxMarkdownBytes
	return o
}

// serviceOptions are the source service's defaults with the configured
// web interval, reliability rules and digest budget.
func (c Config) serviceOptions() service.Options {
	o := service.DefaultOptions()
	o.WebIntervalMinutes = c.Web.DefaultIntervalMinutes
	o.DigestMaxTokens = c.Digest.MaxTokens
	// The rules were checked when the configuration was loaded.
	if cls, err := c.Reliability.classifier(); err == nil {
		o.Reliability = cls
	}
	return o
}
