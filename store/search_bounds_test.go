package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// hostileArticles are the articles of the hostile searches: three of
// 20 KB full of stop words, one of a megabyte of one word, as any
// publisher can plant them.
func hostileArticles() []model.NewArticle {
	prose := strings.Repeat("the history of the web and the people of the net ", 20<<10/50)
	arts := []model.NewArticle{}
	for i := range 3 {
		arts = append(arts, model.NewArticle{Article: model.FeedArticle{ExternalURL: fmt.Sprintf("https://hostile.example/the/%d", i),
			Title: "The article " + fmt.Sprint(i), ContentMarkdown: prose, ContentTextHash: fmt.Sprint("the", i)}})
	}
	arts = append(arts, model.NewArticle{Article: model.FeedArticle{ExternalURL: "https://hostile.example/alpha",
		Title: "A megabyte of alpha", ContentMarkdown: strings.Repeat("alpha ", 1<<20/6), ContentTextHash: "alpha"}})
	return arts
}

// hostileQueries are the searches that stalled the daemon.
var hostileQueries = map[string]string{
	"the×32":   strings.TrimSpace(strings.Repeat("the ", 32)),
	"alpha×4":  strings.TrimSpace(strings.Repeat("alpha ", 4)),
	"alpha×32": strings.TrimSpace(strings.Repeat("alpha ", 32)),
}

// TestSearchWorkIsBounded: the hostile searches find their articles with
// a highlighted snippet, and the text their snippets are built from is a
// window of each result, never its whole body: a megabyte article costs
// what a 16 KB one does. Counted in bytes, not time.
func TestSearchWorkIsBounded(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://hostile.example/feed")
		saveThroughPoll(t, s, ws, srcs[0], hostileArticles())
		for name, in := range hostileQueries {
			before := s.SearchBytesExamined()
			hits := search(t, s, ws.ID, in, model.SearchFilter{Limit: 50})
			examined := s.SearchBytesExamined() - before
			want := 3
			if strings.HasPrefix(name, "alpha") {
				want = 1
			}
			if s.Dialect() == store.Postgres && name == "the×32" {
				want = 0 // PostgreSQL's english configuration ignores stop words
			}
			if len(hits) != want {
				t.Fatalf("%s: %d hits, want %d", name, len(hits), want)
			}
			// Two windows of 16 000 characters and one more, and the title.
			bound := int64(len(hits)) * (2*16001 + 100)
			if examined > bound || (len(hits) > 0 && examined == 0) {
				t.Errorf("%s: snippets read %d bytes for %d hits, want at most %d", name, examined, len(hits), bound)
			}
			for _, h := range hits {
				if !strings.Contains(h.Snippet, "**") || len(h.Snippet) > 1000 {
					t.Errorf("%s: snippet %.200q, want a short passage with the match highlighted", name, h.Snippet)
				}
			}
		}
	})
}

// TestSearchDeadlineStopsTheStatement: a search statement that runs past
// the search deadline is stopped in the database itself (SQLite
// interrupts it, PostgreSQL cancels it on the server), its connection is
// free again, and the caller is told why. The statements would run for
// hours; the test ends because they are stopped.
func TestSearchDeadlineStopsTheStatement(t *testing.T) {
	slow := map[string]string{
		store.SQLite:   `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000000000) SELECT count(*) FROM n`,
		store.Postgres: `SELECT pg_sleep(3600)`,
	}
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			s := openWith(t, dialect, store.Options{MaxOpenConns: 2, SearchTimeout: 200 * time.Millisecond})
			err := s.Searching(ctx, func(ctx context.Context) error {
				_, err := s.DB().ExecContext(ctx, slow[dialect])
				return err
			})
			if !errors.Is(err, model.ErrSearchTimeout) {
				t.Fatalf("a statement past the deadline: %v, want ErrSearchTimeout", err)
			}
			if st := s.PoolStats(); st.InUse != 0 {
				t.Errorf("%d connections still in use after the deadline", st.InUse)
			}
			if dialect == store.Postgres {
				// The server is told at once; allow it the moment it takes to
				// end the statement.
				var active int
				for range 100 {
					if err := s.DB().GetContext(ctx, &active, `SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'`); err != nil {
						t.Fatal(err)
					}
					if active == 0 {
						break
					}
					time.Sleep(50 * time.Millisecond)
				}
				if active != 0 {
					t.Errorf("the statement still runs on the server after the deadline")
				}
			}
			// A caller that leaves ends the statement as well, and is not
			// told it was a timeout.
			// It leaves once the statement runs: a cancellation that reaches
			// PostgreSQL before the statement has started cancels nothing
			// (the server ends only what is running), and the statement
			// would then run its hour.
			// Its own store has a deadline far away, so that on a loaded
			// machine the deadline cannot fire before the caller leaves.
			s = openWith(t, dialect, store.Options{MaxOpenConns: 2, SearchTimeout: time.Hour})
			cctx, cancel := context.WithCancel(ctx)
			started := make(chan struct{})
			go func() {
				<-started
				if dialect == store.Postgres {
					for range 200 {
						var running int
						if s.DB().GetContext(ctx, &running, `SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%' AND state = 'active'`) == nil && running > 0 {
							break
						}
						time.Sleep(10 * time.Millisecond)
					}
				} else {
					time.Sleep(50 * time.Millisecond)
				}
				cancel()
			}()
			err = s.Searching(cctx, func(ctx context.Context) error {
				close(started)
				_, err := s.DB().ExecContext(ctx, slow[dialect])
				return err
			})
			if !errors.Is(err, context.Canceled) || errors.Is(err, model.ErrSearchTimeout) {
				t.Errorf("a caller that left: %v, want context.Canceled", err)
			}
		})
	}
}

// TestSearchesLeaveConnectionsForOthers: searches take at most half the
// connection pool, so while as many searches as there are connections
// are running, the daemon's other requests still get a connection (the
// hostile searches held all four of SQLite's). Shown by completion:
// the searches are held until the other request has been answered.
func TestSearchesLeaveConnectionsForOthers(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			s := openWith(t, dialect, store.Options{MaxOpenConns: 4, SearchTimeout: time.Minute})
			release := make(chan struct{})
			var wg sync.WaitGroup
			holding := make(chan struct{}, 4)
			errs := make(chan error, 4)
			for range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs <- s.Searching(ctx, func(ctx context.Context) error {
						conn, err := s.DB().Conn(ctx)
						if err != nil {
							return err
						}
						defer conn.Close()
						holding <- struct{}{}
						<-release
						return nil
					})
				}()
			}
			<-holding
			<-holding
			// Two searches hold connections; the others wait for a slot, not
			// for a connection. A plain request is answered meanwhile.
			guard, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if _, err := s.ListWorkspaces(guard); err != nil {
				t.Fatalf("a request beside four searches: %v (the searches took every connection)", err)
			}
			if len(holding) != 0 {
				t.Errorf("more than half the pool went to searches")
			}
			close(release)
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Errorf("a search waiting for a slot: %v", err)
				}
			}
		})
	}
}

// TestReadyReportsAnExhaustedPool: while every connection of the pool
// is held (as four hostile searches held SQLite's four), readiness says
// so by name instead of "ready", and is ready again once they are free.
func TestReadyReportsAnExhaustedPool(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx := context.Background()
			s := openWith(t, dialect, store.Options{MaxOpenConns: 3})
			var held []interface{ Close() error }
			for range 3 {
				c, err := s.DB().Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, c)
			}
			guard, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if err := s.Ready(guard); err == nil || !strings.Contains(err.Error(), "connection pool exhausted: all 3 connections") {
				t.Errorf("ready with every connection held: %v, want the pool named exhausted", err)
			}
			for _, c := range held {
				_ = c.Close()
			}
			if err := s.Ready(ctx); err != nil {
				t.Errorf("ready once the connections are free: %v", err)
			}
		})
	}
}

// openWith opens a fresh, migrated database of the dialect with opts,
// closed when the test ends.
func openWith(t *testing.T, dialect string, opts store.Options) *store.Store {
	t.Helper()
	return openURL(t, testdb.URL(t, dialect), opts)
}

// openURL opens the database at u with opts and migrates it, closed when
// the test ends.
func openURL(t *testing.T, u string, opts store.Options) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.OpenWith(ctx, u, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}
