package webhookstest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/integrations/webhooks"
	"github.com/feedpoller/feedpoller/model"
)

// State is what the delivery log shows of one delivery.
type State struct {
	Status    string
	Attempts  int
	LastError string
	Reason    string
}

// Fixture is an Outbox under test with the means to set it up: the
// store's test implements it on a fresh database of each dialect.
type Fixture interface {
	webhooks.Outbox
	// AddWebhook creates an enabled webhook and returns its id.
	AddWebhook(workspaceID int64, url, secret string) int64
	// Enqueue writes a pending delivery as the promotion would.
	Enqueue(webhookID int64, id, event string, payload []byte, createdAt, nextAt time.Time)
	// State reads a delivery's state.
	State(id string) State
}

// State implements Fixture.
func (o *MemoryOutbox) State(id string) State {
	r, _ := o.Row(id)
	s := State{Status: r.Status, Attempts: len(r.History), Reason: r.Reason}
	if n := len(r.History); n > 0 {
		s.LastError = r.History[n-1].Error
	}
	return s
}

// TestOutbox checks the behaviour every Outbox must have for at-least-once
// delivery without loss: due rows only, one owner per lease, a lease that
// runs out makes the row claimable again with the same id, ended rows are
// never claimed again, a stale owner cannot record over a newer one,
// disabled webhooks are not claimed, and concurrent claims never share a
// row. Call it from the implementation's test with a fresh fixture per run.
func TestOutbox(t *testing.T, newFixture func(t *testing.T) Fixture) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	body := []byte(`{"delivery_id":"x"}`)
	setup := func(t *testing.T, n int) (Fixture, int64) {
		f := newFixture(t)
		hook := f.AddWebhook(1, "https://receiver.example/hook", "s3cret")
		for i := range n {
			f.Enqueue(hook, fmt.Sprintf("d%02d", i), webhooks.EventContentItemPromoted, body, t0, t0.Add(time.Duration(i)*time.Second))
		}
		return f, hook
	}
	ids := func(ds []model.PendingDelivery) []string {
		var out []string
		for _, d := range ds {
			out = append(out, d.ID)
		}
		return out
	}
	attempt := func(n int, msg string) model.DeliveryAttempt {
		return model.DeliveryAttempt{Number: n, At: t0, Class: model.AttemptRetry, StatusCode: 503, Error: msg}
	}

	t.Run("claims only due rows, oldest first, up to the limit, with target and secret", func(t *testing.T) {
		f, _ := setup(t, 5)
		got, err := f.ClaimDue(ctx, "a", t0.Add(2*time.Second), 2, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(ids(got)) != "[d00 d01]" {
			t.Fatalf("claimed %v, want [d00 d01]", ids(got))
		}
		d := got[0]
		if d.URL != "https://receiver.example/hook" || d.Secret != "s3cret" || d.WorkspaceID != 1 || string(d.Payload) != string(body) ||
			d.Event != webhooks.EventContentItemPromoted || d.Attempts != 0 || !d.CreatedAt.Equal(t0) {
			t.Errorf("claimed delivery %+v", d)
		}
		got, _ = f.ClaimDue(ctx, "b", t0.Add(2*time.Second), 10, time.Minute)
		if fmt.Sprint(ids(got)) != "[d02]" {
			t.Errorf("second claim %v, want [d02]: leased rows are not due, later ones not yet", ids(got))
		}
	})

	t.Run("a lease that runs out makes the row claimable again with the same id", func(t *testing.T) {
		f, _ := setup(t, 1)
		if got, _ := f.ClaimDue(ctx, "a", t0, 10, time.Minute); len(got) != 1 {
			t.Fatalf("claimed %d", len(got))
		}
		if got, _ := f.ClaimDue(ctx, "b", t0.Add(59*time.Second), 10, time.Minute); len(got) != 0 {
			t.Fatalf("claimed %v inside a's lease", ids(got))
		}
		got, _ := f.ClaimDue(ctx, "b", t0.Add(61*time.Second), 10, time.Minute)
		if fmt.Sprint(ids(got)) != "[d00]" {
			t.Fatalf("after the lease: %v", ids(got))
		}
		if err := f.MarkRetry(ctx, "a", "d00", t0.Add(time.Hour), attempt(1, "late")); !errors.Is(err, model.ErrDeliveryLeaseLost) {
			t.Errorf("stale owner's MarkRetry: %v, want ErrLeaseLost", err)
		}
		if err := f.MarkDelivered(ctx, "b", "d00", model.DeliveryAttempt{Number: 1, Class: model.AttemptDelivered, StatusCode: 200}); err != nil {
			t.Fatal(err)
		}
		if err := f.MarkDelivered(ctx, "a", "d00", model.DeliveryAttempt{Number: 1, Class: model.AttemptDelivered}); !errors.Is(err, model.ErrDeliveryLeaseLost) {
			t.Errorf("MarkDelivered of an ended row: %v, want ErrLeaseLost", err)
		}
		if s := f.State("d00"); s.Status != StatusDelivered || s.Attempts != 1 {
			t.Errorf("state %+v", s)
		}
	})

	t.Run("a retry releases the row until its next attempt and counts the attempt", func(t *testing.T) {
		f, _ := setup(t, 1)
		if _, err := f.ClaimDue(ctx, "a", t0, 10, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := f.MarkRetry(ctx, "a", "d00", t0.Add(10*time.Minute), attempt(1, "receiver answered 503")); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.ClaimDue(ctx, "a", t0.Add(9*time.Minute), 10, time.Minute); len(got) != 0 {
			t.Errorf("claimed before the next attempt: %v", ids(got))
		}
		got, _ := f.ClaimDue(ctx, "b", t0.Add(10*time.Minute), 10, time.Minute)
		if len(got) != 1 || got[0].Attempts != 1 || got[0].ID != "d00" {
			t.Fatalf("claimed %+v, want d00 with 1 attempt", got)
		}
		if s := f.State("d00"); s.Status != StatusPending || s.Attempts != 1 || s.LastError != "receiver answered 503" {
			t.Errorf("state %+v", s)
		}
	})

	t.Run("a failed delivery keeps its reason and is never claimed again", func(t *testing.T) {
		f, _ := setup(t, 1)
		if _, err := f.ClaimDue(ctx, "a", t0, 10, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := f.MarkFailed(ctx, "a", "d00", attempt(7, "receiver answered 500"), "gave up after 7 attempts"); err != nil {
			t.Fatal(err)
		}
		if got, _ := f.ClaimDue(ctx, "a", t0.Add(48*time.Hour), 10, time.Minute); len(got) != 0 {
			t.Errorf("claimed a failed row: %v", ids(got))
		}
		if s := f.State("d00"); s.Status != StatusFailed || s.Reason != "gave up after 7 attempts" || s.Attempts != 1 {
			t.Errorf("state %+v", s)
		}
	})

	t.Run("deliveries of a disabled webhook are not claimed", func(t *testing.T) {
		f, hook := setup(t, 2)
		other := f.AddWebhook(1, "https://other.example/hook", "x")
		f.Enqueue(other, "o1", webhooks.EventContentItemPromoted, body, t0, t0)
		if err := f.DisableWebhook(ctx, hook, "receiver answered 410 Gone"); err != nil {
			t.Fatal(err)
		}
		got, _ := f.ClaimDue(ctx, "a", t0.Add(time.Hour), 10, time.Minute)
		if fmt.Sprint(ids(got)) != "[o1]" {
			t.Errorf("claimed %v, want only the enabled webhook's [o1]", ids(got))
		}
		if s := f.State("d00"); s.Status != StatusPending {
			t.Errorf("a disabled webhook's delivery is %+v, want it kept pending", s)
		}
	})

	t.Run("concurrent claims never share a row", func(t *testing.T) {
		f, _ := setup(t, 40)
		var mu sync.Mutex
		seen := map[string]string{}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				owner := fmt.Sprintf("w%d", w)
				for {
					got, err := f.ClaimDue(ctx, owner, t0.Add(time.Minute), 3, time.Hour)
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					dup := false
					for _, d := range got {
						if prev, ok := seen[d.ID]; ok {
							t.Errorf("%s claimed by %s and %s", d.ID, prev, owner)
							dup = true
						}
						seen[d.ID] = owner
					}
					mu.Unlock()
					if dup { // a leased row came back: stop rather than claim it forever
						return
					}
				}
			}()
		}
		wg.Wait()
		if len(seen) != 40 {
			t.Errorf("%d of 40 rows claimed", len(seen))
		}
	})
}
