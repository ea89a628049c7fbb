package poller_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// The story placement counters count what the polls' saves did: a feed
// carrying two reports of one event and one of another starts two stories
// and joins one article; a second feed's copy of the first report joins
// its story.
func TestStoryPlacementMetrics(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			m, err := poller.NewMetrics(nil)
			if err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, dialect, model.RelevanceProfile{})
			e.poller = newPoller(t, e.store, "metrics", func(o *poller.Options, _ *fetch.Options) { o.Metrics = m })
			e.feeds.set("/a", rssDoc("A",
				entry{"1", "https://news.example/release", "Kestrel 4.2 released with faster garbage collection", body("the Kestrel 4.2 release and its garbage collector")},
				entry{"2", "https://news.example/release-notes", "Kestrel 4.2 is out: garbage collection rewritten", body("the Kestrel 4.2 release and its garbage collector")},
				entry{"3", "https://news.example/harvest", "Orchard harvest in Valdemoro hit by hail", body("the hail over the Valdemoro orchards")}))
			e.feeds.set("/b", rssDoc("B",
				entry{"1", "https://other.example/kestrel", "Kestrel 4.2 released", body("the Kestrel 4.2 release and its garbage collector")}))
			e.pollNow(e.addSource("/a"))
			e.pollNow(e.addSource("/b"))
			for result, want := range map[string]float64{"started": 2, "joined": 2, "merged": 0, "rejoined": 0} {
				if n := testutil.ToFloat64(m.StoryPlacements.WithLabelValues(result)); n != want {
					t.Errorf("story placements %s: %v, want %v", result, n, want)
				}
			}
			// Two saves, a small workspace: on PostgreSQL each reads the
			// frequencies from the table (no copy under 1 000 articles);
			// SQLite counts none.
			table, copied := testutil.ToFloat64(m.StoryFrequencyReads.WithLabelValues("table")),
				testutil.ToFloat64(m.StoryFrequencyReads.WithLabelValues("copy"))
			if wantTable := map[string]bool{"postgres": true}[dialect]; (table >= 2) != wantTable || copied != 0 ||
				testutil.ToFloat64(m.StoryFrequencyCopyLoads) != 0 {
				t.Errorf("frequency reads: %v from the table, %v from a copy, %v copies read", table, copied,
					testutil.ToFloat64(m.StoryFrequencyCopyLoads))
			}
		})
	}
}
