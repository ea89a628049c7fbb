package main

import (
	"context"
	"log/slog"
	"time"
)

// searchIndexer computes the search vectors that articles lack (on
// PostgreSQL: those stored before the daemon computed them, or written
// by an older binary).
type searchIndexer interface {
	IndexSearchText(ctx context.Context) (int64, error)
}

// indexSearchText indexes at once, then every interval until ctx ends.
// Until an older article is done, its vector is PostgreSQL's own, which
// finds it by most words; nothing pending costs one look at an empty
// index. A failure is logged and tried again at the next round.
func indexSearchText(ctx context.Context, ix searchIndexer, every time.Duration, log *slog.Logger) {
	everyInterval(ctx, every, func(ctx context.Context) {
		n, err := ix.IndexSearchText(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("index search text", "err", err, "articles_done", n)
		case n > 0:
			log.Info("search vectors computed", "articles", n)
		}
	})
}
