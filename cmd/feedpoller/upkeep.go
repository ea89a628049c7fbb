package main

import (
	"context"
	"time"
)

// everyInterval runs round at once and then every interval until ctx
// ends. A round logs its own outcome: a failed one is simply tried again
// at the next tick, so upkeep never stops the daemon.
func everyInterval(ctx context.Context, every time.Duration, round func(context.Context)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		round(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
