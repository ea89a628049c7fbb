package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/store"
)

// applyReliabilityTiers gives the sources whose tier was not set by hand
// the configured rules' tier, so a changed rule reaches every such source
// (and SQL users read the tier the daemon ranks with).
func applyReliabilityTiers(ctx context.Context, cfg Config, st *store.Store, log *slog.Logger) error {
	cls, err := cfg.Reliability.classifier()
	if err != nil {
		return err
	}
	n, err := st.ApplyReliabilityTiers(ctx, func(url string) int { return int(cls.Tier(url)) })
	if err != nil {
		return err
	}
	log.Info("reliability tiers applied from the domain rules", "rules", len(cfg.Reliability.Rules), "sources_changed", n)
	return nil
}

// termPruner deletes story term index entries and document frequencies
// older than the story window.
type termPruner interface {
	PruneStoryTerms(ctx context.Context, before, freqBefore time.Time) (int64, error)
}

// pruneEvery is how often serve prunes the story term index: the window
// is days, so an hour's extra rows cost nothing.
const pruneEvery = time.Hour

// pruneStoryTerms prunes at once and then every interval until ctx ends:
// no new article can join a story through terms reported before the
// window, document frequencies cover the last 30 days (or the window if
// longer: stories.DefaultDocFreqWindow), and both tables
// stay the size of one window. A failure is logged and tried again at the
// next round.
func pruneStoryTerms(ctx context.Context, p termPruner, window, every time.Duration, log *slog.Logger) {
	everyInterval(ctx, every, func(ctx context.Context) {
		now := time.Now()
		n, err := p.PruneStoryTerms(ctx, now.Add(-window), now.Add(-max(window, stories.DefaultDocFreqWindow)))
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("prune story terms", "err", err)
		case n > 0:
			log.Info("story terms pruned", "rows", n, "window", window.String())
		}
	})
}
