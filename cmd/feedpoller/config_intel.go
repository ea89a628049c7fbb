package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/analysis/rank"
	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/model"
)

// ReliabilityConfig configures reliability tiers.
type ReliabilityConfig struct {
	// Rules give a source its tier from its URL's domain unless an admin
	// set one (see rank.Classifier); the longest matching domain wins.
	Rules ReliabilityRules `yaml:"rules"`
}

// ReliabilityRules are domain rules. In the environment they are written
// DOMAIN=TIER,DOMAIN=TIER (FEEDPOLLER_RELIABILITY_RULES="*.gov=1,arxiv.org=2"),
// replacing the whole list.
type ReliabilityRules []rank.Rule

// parseRules reads DOMAIN=TIER pairs separated by commas.
func parseRules(val string) (ReliabilityRules, error) {
	rules := ReliabilityRules{}
	for i, part := range strings.Split(val, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		domain, tier, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(strings.TrimSpace(tier))
		if !ok || err != nil {
			return nil, fmt.Errorf("rule %d %q: want DOMAIN=TIER, e.g. *.gov=1,arxiv.org=2", i+1, part)
		}
		rules = append(rules, rank.Rule{Domain: strings.TrimSpace(domain), Tier: model.Tier(n)})
	}
	return rules, nil
}

// classifier is the configured rules' classifier.
func (c ReliabilityConfig) classifier() (*rank.Classifier, error) {
	cls, err := rank.NewClassifier(c.Rules)
	if err != nil {
		return nil, fmt.Errorf("reliability.rules (FEEDPOLLER_RELIABILITY_RULES): %w", err)
	}
	return cls, nil
}

// StoriesConfig configures story detection.
type StoriesConfig struct {
	// Threshold is the similarity to a story's centroid an article needs
	// to join it (see docs/digest.md).
	Threshold float64 `yaml:"threshold" option:"Poller.Pipeline.StoryOptions.Threshold"`
	// Window is how long a story takes new articles; term index entries
	// and document frequencies older than it are pruned.
	Window time.Duration `yaml:"window" option:"Poller.Pipeline.StoryOptions.Window"`
}

// DigestConfig configures digests.
type DigestConfig struct {
	// MaxTokens is the compact format's budget when none is asked for.
	MaxTokens int `yaml:"max_tokens" option:"Service.DigestMaxTokens"`
}

// checkIntelligence names what is wrong with the reliability, stories
// and digest sections.
func (c Config) checkIntelligence() []string {
	var errs []string
	if _, err := c.Reliability.classifier(); err != nil {
		errs = append(errs, err.Error())
	}
	if !(c.Stories.Threshold > 0 && c.Stories.Threshold <= 1) {
		errs = append(errs, fmt.Sprintf("stories.threshold %v must be more than 0 and at most 1", c.Stories.Threshold))
	}
	if c.Stories.Window <= 0 {
		errs = append(errs, "stories.window must be more than 0")
	} else if err := (stories.GroupOptions{Threshold: c.Stories.Threshold, Window: c.Stories.Window}).Check(); err != nil {
		errs = append(errs, "stories: "+err.Error())
	}
	if c.Digest.MaxTokens < 1 {
		errs = append(errs, "digest.max_tokens must be at least 1")
	}
	return errs
}
