package poller_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/store"
)

// Each tick refreshes the failure gauges from the database: failing
// sources (active, some failures, below the limit) and disabled ones
// (inactive or at the limit), by source type, 0 for a type with none.
func TestTickRefreshesFailureGauges(t *testing.T) {
	testdb.EachWorkspace(t, "gauges", func(t *testing.T, st *store.Store, ws *model.Workspace) {
		ctx := context.Background()
		later := time.Now().Add(time.Hour).UTC()
		for i, c := range []struct {
			typ      string
			failures int
			active   bool
		}{{"rss", 0, true}, {"rss", 2, true}, {"rss", 5, true}, {"rss", model.MaxConsecutiveFailures, true}, {"web", 0, false}, {"web", 1, true}} {
			src := &model.FeedSource{WorkspaceID: ws.ID, URL: "https://g.example/" + string(rune('a'+i)), SourceType: c.typ,
				IsActive: true, PollingIntervalMinutes: 30}
			if err := st.CreateSource(ctx, src); err != nil {
				t.Fatal(err)
			}
			if _, err := st.DB().Exec(st.DB().Rebind(`UPDATE feed_sources SET consecutive_failures = ?, is_active = ?, next_poll_at = ? WHERE id = ?`),
				c.failures, c.active, later, src.ID); err != nil {
				t.Fatal(err)
			}
		}
		m, err := poller.NewMetrics(nil)
		if err != nil {
			t.Fatal(err)
		}
		o := testOptions(st, "gauges")
		o.Schedule, o.Metrics = "@every 1h", m
		p, err := poller.New(o)
		if err != nil {
			t.Fatal(err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); _ = p.Run(runCtx) }()
		deadline := time.Now().Add(time.Minute) // a hang guard: the first tick runs at once
		for time.Now().Before(deadline) && testutil.ToFloat64(m.SourcesFailing.WithLabelValues("rss")) != 2 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		wg.Wait()
		for _, c := range []struct {
			typ               string
			failing, disabled float64
		}{{"rss", 2, 1}, {"web", 1, 1}, {"api", 0, 0}} {
			if f, dis := testutil.ToFloat64(m.SourcesFailing.WithLabelValues(c.typ)), testutil.ToFloat64(m.SourcesDisabled.WithLabelValues(c.typ)); f != c.failing || dis != c.disabled {
				t.Errorf("%s: failing %v disabled %v, want %v and %v", c.typ, f, dis, c.failing, c.disabled)
			}
		}
	})
}
