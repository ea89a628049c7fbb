package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/webhooks"
	"github.com/feedpoller/feedpoller/webhooks/webhookstest"
)

// outboxFixture is the store's outbox on a fresh database, with the
// set-up the contract test asks for written as the daemon writes it.
type outboxFixture struct {
	*store.Outbox
	t  *testing.T
	s  *store.Store
	ws map[int64]int64 // the contract's workspace ids → stored ones
}

func (f *outboxFixture) workspace(id int64) int64 {
	if got, ok := f.ws[id]; ok {
		return got
	}
	w, err := f.s.CreateWorkspace(context.Background(), fmt.Sprintf("outbox-%d", id), model.RelevanceProfile{})
	if err != nil {
		f.t.Fatal(err)
	}
	f.ws[id] = w.ID
	return w.ID
}

func (f *outboxFixture) AddWebhook(workspaceID int64, url, secret string) int64 {
	w, err := f.s.CreateWebhook(context.Background(), f.workspace(workspaceID), url, secret, []string{webhooks.EventContentItemPromoted}, 0)
	if err != nil {
		f.t.Fatal(err)
	}
	return w.ID
}

func (f *outboxFixture) Enqueue(webhookID int64, id, event string, payload []byte, createdAt, nextAt time.Time) {
	_, err := f.s.DB().Exec(f.s.DB().Rebind(`INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, event, payload,
		next_attempt_at, created_at) VALUES (?, ?, (SELECT workspace_id FROM webhooks WHERE id = ?), ?, ?, ?, ?)`),
		id, webhookID, webhookID, event, string(payload), nextAt.UTC(), createdAt.UTC())
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *outboxFixture) State(id string) webhookstest.State {
	var r struct {
		Status   string `db:"status"`
		Attempts int    `db:"attempts"`
		Last     string `db:"last_error"`
		Reason   string `db:"failure_reason"`
	}
	if err := f.s.DB().Get(&r, f.s.DB().Rebind(`SELECT status, attempts, last_error, failure_reason FROM webhook_deliveries WHERE id = ?`), id); err != nil {
		f.t.Fatal(err)
	}
	return webhookstest.State{Status: r.Status, Attempts: r.Attempts, LastError: r.Last, Reason: r.Reason}
}

// The store's outbox has the behaviour at-least-once delivery needs, on
// both databases: the same contract the in-memory outbox passes.
func TestOutboxContract(t *testing.T) {
	for _, d := range testdb.Dialects {
		t.Run(d, func(t *testing.T) {
			webhookstest.TestOutbox(t, func(t *testing.T) webhookstest.Fixture {
				s := testdb.Store(t, d)
				return &outboxFixture{Outbox: s.Outbox(), t: t, s: s, ws: map[int64]int64{}}
			})
		})
	}
}

// storedDelivery is a webhook_deliveries row as the tests read it.
type storedDelivery struct {
	ID            string `db:"id"`
	WebhookID     int64  `db:"webhook_id"`
	ContentItemID int64  `db:"content_item_id"`
	Payload       string `db:"payload"`
	Status        string `db:"status"`
}

func deliveries(t *testing.T, s *store.Store) []storedDelivery {
	t.Helper()
	var out []storedDelivery
	if err := s.DB().Select(&out, `SELECT id, webhook_id, content_item_id, payload, status FROM webhook_deliveries ORDER BY content_item_id, webhook_id`); err != nil {
		t.Fatal(err)
	}
	return out
}

// A poll's promotions queue one delivery per content item and subscribed,
// enabled webhook of the workspace, in the poll's transaction: none for a
// content duplicate, a disabled webhook, another workspace's webhook, or a
// poll that lost its lease; each payload is the content item with its
// source, signed later exactly as stored.
func TestSavePollQueuesDeliveries(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, srcs := seed(t, s, "https://hooks.example/feed")
		other, _ := s.CreateWorkspace(ctx, "other", model.RelevanceProfile{})
		h1, _ := s.CreateWebhook(ctx, ws.ID, "https://r1.example/hook", "s1", []string{webhooks.EventContentItemPromoted}, 0)
		h2, _ := s.CreateWebhook(ctx, ws.ID, "https://r2.example/hook", "s2", []string{webhooks.EventContentItemPromoted}, 0)
		off, _ := s.CreateWebhook(ctx, ws.ID, "https://off.example/hook", "s3", []string{webhooks.EventContentItemPromoted}, 0)
		if _, err := s.SetWebhookActive(ctx, ws.ID, off.ID, false, "turned off"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateWebhook(ctx, ws.ID, "https://story.example/hook", "s4", []string{"story.created"}, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateWebhook(ctx, other.ID, "https://other.example/hook", "s5", []string{webhooks.EventContentItemPromoted}, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().Exec(s.DB().Rebind(`UPDATE feed_sources SET title = 'Hooks Feed' WHERE id = ?`), srcs[0].ID); err != nil {
			t.Fatal(err)
		}
		save := func(owner string, arts ...model.NewArticle) (model.SaveCounts, error) {
			published := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
			for i := range arts {
				arts[i].Article.Summary = "summary of " + arts[i].Article.ExternalURL
				arts[i].Article.PublishedAt = &published
			}
			return s.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[0].ID, Owner: owner, Articles: arts,
				Source: model.SourceUpdate{Status: model.StatusOK, Reset: true, NextPollAt: time.Now().Add(-time.Second)},
				Run:    model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK, ItemsSeen: len(arts)}})
		}
		if got, _ := s.ClaimDue(ctx, "me", 10, time.Minute); len(got) != 1 {
			t.Fatalf("claimed %d", len(got))
		}
		c, err := save("me", article("https://hooks.example/1", "h1", true), article("https://hooks.example/2", "h2", true),
			article("https://hooks.example/3", "h1", true), article("https://hooks.example/4", "h4", false))
		if err != nil {
			t.Fatal(err)
		}
		if c.Promoted != 2 || c.Deliveries != 4 {
			t.Fatalf("counts %+v: want 2 promoted (one content duplicate), 4 deliveries (2 items × 2 webhooks)", c)
		}
		got := deliveries(t, s)
		if len(got) != 4 {
			t.Fatalf("%d deliveries stored, want 4: %+v", len(got), got)
		}
		var items []int64
		if err := s.DB().Select(&items, `SELECT id FROM content_items ORDER BY id`); err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for i, d := range got {
			wantItem, wantHook := items[i/2], []int64{h1.ID, h2.ID}[i%2]
			if d.ContentItemID != wantItem || d.WebhookID != wantHook || d.Status != model.DeliveryPending || ids[d.ID] {
				t.Errorf("delivery %d: %+v, want item %d to webhook %d, pending, a new id", i, d, wantItem, wantHook)
			}
			ids[d.ID] = true
			var p webhooks.Payload
			if err := json.Unmarshal([]byte(d.Payload), &p); err != nil {
				t.Fatalf("payload %s: %v", d.Payload, err)
			}
			ci := p.ContentItem
			if p.DeliveryID != d.ID || p.Event != webhooks.EventContentItemPromoted || p.WorkspaceID != ws.ID || ci == nil ||
				ci.ID != wantItem || ci.Summary == "" || ci.Relevance != 0.9 || ci.PublishedAt == nil || ci.PromotedAt.IsZero() ||
				ci.Source != (webhooks.Source{ID: srcs[0].ID, Title: "Hooks Feed", URL: "https://hooks.example/feed"}) {
				t.Errorf("payload %s", d.Payload)
			}
		}

		// A poll that lost its lease keeps nothing: no promotion, no delivery.
		if _, err := save("someone-else", article("https://hooks.example/5", "h5", true)); !errors.Is(err, model.ErrLeaseLost) {
			t.Fatalf("save without the lease: %v", err)
		}
		if n := len(deliveries(t, s)); n != 4 {
			t.Errorf("%d deliveries after a lost lease, want still 4", n)
		}
	})
}

// A delivery is written in the promotion's transaction: when the
// transaction fails after promoting (the outbox insert itself refused, or
// the poll's last write after it), neither the content item nor any
// delivery is kept.
func TestDeliveriesRollBackWithThePromotion(t *testing.T) {
	for _, table := range []string{"webhook_deliveries", "poll_runs"} {
		t.Run("refused "+table, func(t *testing.T) {
			testdb.EachStore(t, func(t *testing.T, s *store.Store) {
				ctx := context.Background()
				ws, srcs := seed(t, s, "https://rollback.example/feed")
				if _, err := s.CreateWebhook(ctx, ws.ID, "https://r.example/hook", "s", []string{webhooks.EventContentItemPromoted}, 0); err != nil {
					t.Fatal(err)
				}
				// Make the table refuse rows, as a full disk or a bad value would.
				if s.Dialect() == store.Postgres {
					if _, err := s.DB().Exec(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$`); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := s.DB().Exec(`CREATE TRIGGER refuse_rows BEFORE INSERT ON ` + table + ` FOR EACH ROW ` + refuseBody(s.Dialect())); err != nil {
					t.Fatal(err)
				}
				if got, _ := s.ClaimDue(ctx, "me", 10, time.Minute); len(got) != 1 {
					t.Fatalf("claimed %d", len(got))
				}
				_, err := s.SavePoll(ctx, model.PollSave{WorkspaceID: ws.ID, SourceID: srcs[0].ID, Owner: "me",
					Articles: []model.NewArticle{article("https://rollback.example/1", "r1", true)},
					Source:   model.SourceUpdate{Status: model.StatusOK, Reset: true, NextPollAt: time.Now()},
					Run:      model.PollRun{StartedAt: time.Now(), Outcome: model.StatusOK}})
				if err == nil {
					t.Fatal("the poll was saved although one of its writes was refused")
				}
				for _, table := range []string{"content_items", "feed_articles", "webhook_deliveries", "poll_runs"} {
					var n int
					if err := s.DB().Get(&n, "SELECT COUNT(*) FROM "+table); err != nil || n != 0 {
						t.Errorf("%s holds %d rows (%v) after the failed save, want 0", table, n, err)
					}
				}
			})
		})
	}
}

func refuseBody(dialect string) string {
	if dialect == store.Postgres {
		return `EXECUTE FUNCTION refuse()`
	}
	return `BEGIN SELECT RAISE(ABORT, 'refused'); END`
}

// Webhooks are kept per workspace, listed without their secrets, turned
// off and on, and deleted with their delivery log; a page of the log
// filters by status and pages by id.
func TestWebhookRowsAndDeliveryLog(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		other, _ := s.CreateWorkspace(ctx, "other", model.RelevanceProfile{})
		h, err := s.CreateWebhook(ctx, ws.ID, "https://r.example/hook", "sekrit", []string{webhooks.EventContentItemPromoted}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetWebhook(ctx, other.ID, h.ID); !errors.Is(err, model.ErrNotFound) {
			t.Errorf("another workspace's webhook: %v, want ErrNotFound", err)
		}
		list, err := s.ListWebhooks(ctx, ws.ID)
		// The listing never reads the secret: only the outbox's claim does.
		if err != nil || len(list) != 1 || list[0].Secret != "" || fmt.Sprint(list[0].Events) != "[content_item.promoted]" {
			t.Fatalf("list %+v %v", list, err)
		}
		if b, _ := json.Marshal(list[0]); string(b) == "" || strings.Contains(string(b), "sekrit") {
			t.Errorf("a webhook's JSON shows its secret: %s", b)
		}
		off, err := s.SetWebhookActive(ctx, ws.ID, h.ID, false, "receiver answered 410 Gone")
		if err != nil || off.IsActive || off.DisabledReason != "receiver answered 410 Gone" {
			t.Fatalf("disable: %+v %v", off, err)
		}
		on, err := s.SetWebhookActive(ctx, ws.ID, h.ID, true, "")
		if err != nil || !on.IsActive || on.DisabledReason != "" {
			t.Fatalf("enable: %+v %v", on, err)
		}
		f := &outboxFixture{Outbox: s.Outbox(), t: t, s: s}
		t0 := time.Now().UTC()
		for i := range 5 {
			f.Enqueue(h.ID, fmt.Sprintf("id-%d", i), webhooks.EventContentItemPromoted, []byte(`{}`), t0, t0)
		}
		claimed, _ := s.Outbox().ClaimDue(ctx, "w", t0.Add(time.Second), 2, time.Minute)
		for _, d := range claimed {
			if err := s.Outbox().MarkFailed(ctx, "w", d.ID, model.DeliveryAttempt{Number: 1, At: t0, StatusCode: 400, Error: "receiver answered 400"}, "gave up"); err != nil {
				t.Fatal(err)
			}
		}
		page, err := s.ListDeliveries(ctx, ws.ID, h.ID, model.DeliveryFilter{Limit: 2})
		if err != nil || len(page) != 2 || page[0].ID != "id-4" || page[1].ID != "id-3" {
			t.Fatalf("first page %+v %v", page, err)
		}
		page, _ = s.ListDeliveries(ctx, ws.ID, h.ID, model.DeliveryFilter{Limit: 10, Before: "id-3"})
		if len(page) != 3 || page[0].ID != "id-2" {
			t.Fatalf("second page %+v", page)
		}
		failed, _ := s.ListDeliveries(ctx, ws.ID, h.ID, model.DeliveryFilter{Status: model.DeliveryFailed})
		if len(failed) != 2 || failed[0].FailureReason != "gave up" || failed[0].LastStatusCode == nil || *failed[0].LastStatusCode != 400 ||
			failed[0].Attempts != 1 || failed[0].FailedAt == nil {
			t.Fatalf("failed %+v", failed)
		}
		if _, err := s.ListDeliveries(ctx, other.ID, h.ID, model.DeliveryFilter{}); !errors.Is(err, model.ErrNotFound) {
			t.Errorf("log through another workspace: %v", err)
		}
		if err := s.DeleteWebhook(ctx, ws.ID, h.ID); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := s.DB().Get(&n, `SELECT COUNT(*) FROM webhook_deliveries`); err != nil || n != 0 {
			t.Errorf("%d deliveries left after the webhook was deleted (%v)", n, err)
		}
		if err := s.DeleteWebhook(ctx, ws.ID, h.ID); !errors.Is(err, model.ErrNotFound) {
			t.Errorf("second delete: %v", err)
		}
	})
}

// The failure gauges' counts: failing sources (active, some failures,
// below the limit) and disabled ones (inactive or at the limit), by type.
func TestCountUnhealthySources(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://u.example/ok", "https://u.example/failing", "https://u.example/limit", "https://u.example/off")
		set := func(id int64, failures int, active bool) {
			if _, err := s.DB().Exec(s.DB().Rebind(`UPDATE feed_sources SET consecutive_failures = ?, is_active = ? WHERE id = ?`), failures, active, id); err != nil {
				t.Fatal(err)
			}
		}
		set(srcs[1].ID, 3, true)
		set(srcs[2].ID, model.MaxConsecutiveFailures, true)
		set(srcs[3].ID, 0, false)
		web := &model.FeedSource{WorkspaceID: ws.ID, URL: "https://u.example/page", SourceType: model.SourceWeb, IsActive: true, PollingIntervalMinutes: 360}
		if err := s.CreateSource(context.Background(), web); err != nil {
			t.Fatal(err)
		}
		set(web.ID, 1, true)
		got, err := s.CountUnhealthySources(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(got, func(i, j int) bool { return got[i].SourceType < got[j].SourceType })
		want := []model.SourceHealth{{SourceType: "rss", Failing: 1, Disabled: 2}, {SourceType: "web", Failing: 1}}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("counts %+v, want %+v", got, want)
		}
	})
}

// A source keeps the category it was created with.
func TestSourceCategory(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, _ := seed(t, s)
		src := &model.FeedSource{WorkspaceID: ws.ID, URL: "https://c.example/feed", SourceType: model.SourceRSS, IsActive: true,
			PollingIntervalMinutes: 30, Category: "Databases/PostgreSQL"}
		if err := s.CreateSource(ctx, src); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetSource(ctx, ws.ID, src.ID)
		if err != nil || got.Category != "Databases/PostgreSQL" {
			t.Fatalf("read back %+v %v", got, err)
		}
	})
}

// Pushed items are saved as a poll's are: each new article is placed in a
// story and each promotion queues its webhook deliveries, in the push's
// own transaction.
func TestSavePushPlacesStoriesAndQueuesDeliveries(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		ws, srcs := seed(t, s, "https://push.example/feed")
		if _, err := s.CreateWebhook(ctx, ws.ID, "https://r.example/hook", "s", []string{webhooks.EventContentItemPromoted}, 0); err != nil {
			t.Fatal(err)
		}
		c, err := s.SavePush(ctx, model.PushSave{WorkspaceID: ws.ID, SourceID: srcs[0].ID,
			Articles: []model.NewArticle{article("https://push.example/1", "p1", true), article("https://push.example/2", "p2", false)},
			Run:      model.PollRun{StartedAt: time.Now(), Outcome: model.StatusPushed, ItemsSeen: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if c.New != 2 || c.Promoted != 1 || c.Deliveries != 1 || len(deliveries(t, s)) != 1 {
			t.Errorf("counts %+v, %d deliveries stored: want 2 new, 1 promoted, 1 delivery", c, len(deliveries(t, s)))
		}
		var storyless int
		if err := s.DB().Get(&storyless, `SELECT COUNT(*) FROM feed_articles WHERE story_id IS NULL`); err != nil {
			t.Fatal(err)
		}
		if storyless != 0 {
			t.Errorf("%d pushed articles without a story", storyless)
		}
	})
}
