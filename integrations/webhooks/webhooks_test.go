package webhooks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/feedpoller/feedpoller/integrations/webhooks"
	"github.com/feedpoller/feedpoller/integrations/webhooks/webhookstest"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

func TestSignAndVerify(t *testing.T) {
	body := []byte(`{"delivery_id":"0195","event":"content_item.promoted"}`)
	sig := webhooks.Sign("s3cret", body)
	// The value a receiver computes with any HMAC library: sha256= and
	// the lower-case hex digest.
	if !strings.HasPrefix(sig, "sha256=") || len(sig) != len("sha256=")+64 {
		t.Fatalf("signature %q", sig)
	}
	cases := []struct {
		name   string
		secret string
		body   []byte
		header string
		want   bool
	}{
		{"the secret", "s3cret", body, sig, true},
		{"surrounding space", "s3cret", body, " " + sig + " ", true},
		{"upper-case hex", "s3cret", body, "sha256=" + strings.ToUpper(strings.TrimPrefix(sig, "sha256=")), true},
		{"another secret", "other", body, sig, false},
		{"a changed body", "s3cret", append([]byte(nil), append(body, ' ')...), sig, false},
		{"no prefix", "s3cret", body, strings.TrimPrefix(sig, "sha256="), false},
		{"sha1 prefix", "s3cret", body, "sha1=" + strings.TrimPrefix(sig, "sha256="), false},
		{"not hex", "s3cret", body, "sha256=zz", false},
		{"empty", "s3cret", body, "", false},
	}
	for _, c := range cases {
		if got := webhooks.Verify(c.secret, c.body, c.header); got != c.want {
			t.Errorf("%s: Verify = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestMemoryOutbox(t *testing.T) {
	webhookstest.TestOutbox(t, func(*testing.T) webhookstest.Fixture { return webhookstest.NewMemoryOutbox() })
}

// A receiver that fails three times and then succeeds gets the delivery
// four times with one delivery id and valid signatures; the attempts are
// spaced by the backoff.
func TestRetriesUntilDelivered(t *testing.T) {
	recv := webhookstest.NewReceiver(t, "s3cret")
	recv.Fail(3, http.StatusServiceUnavailable, "")
	r := newRig(t, loopbackPolicy(t), webhooks.Backoff{Base: 30 * time.Second, Max: time.Hour})
	hook := r.outbox.AddWebhook(1, recv.URL+"/hook", "s3cret")
	r.enqueue(t, hook, "d-1")

	row := r.drive(t, "d-1", 10)
	if row.Status != webhookstest.StatusDelivered {
		t.Fatalf("row %+v", row)
	}
	if got := recv.Count("d-1"); got != 4 {
		t.Errorf("receiver got delivery d-1 %d times, want 4", got)
	}
	if ids := recv.IDs(); len(ids) != 1 || recv.BadSignatures() != 0 {
		t.Errorf("ids %v, %d bad signatures", ids, recv.BadSignatures())
	}
	// Base 30s doubling, jitter 0.5: 3/4 of 30s, 60s, 120s.
	wantGaps := []time.Duration{22500 * time.Millisecond, 45 * time.Second, 90 * time.Second}
	for i, want := range wantGaps {
		if got := row.History[i+1].At.Sub(row.History[i].At); got != want {
			t.Errorf("gap after attempt %d = %v, want %v", i+1, got, want)
		}
	}
	for i, a := range row.History {
		if a.Number != i+1 {
			t.Errorf("attempt %d numbered %d", i+1, a.Number)
		}
	}
	if a := row.History[0]; a.Class != model.AttemptRetry || a.StatusCode != 503 || !strings.Contains(a.Error, "503 Service Unavailable: try again later") {
		t.Errorf("first attempt %+v", a)
	}
	h := recv.LastHeader()
	if h.Get(webhooks.HeaderEvent) != webhooks.EventContentItemPromoted || h.Get(webhooks.HeaderTimestamp) == "" ||
		!strings.HasPrefix(h.Get("User-Agent"), "feedpoller-webhooks/") || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", h)
	}
	p := recv.Payload("d-1")
	if p.Event != webhooks.EventContentItemPromoted || p.WorkspaceID != 1 || p.ContentItem == nil || p.ContentItem.Title != "Go 1.26 is out" ||
		p.ContentItem.Source.Title != "The Go Blog" || p.ContentItem.Relevance != 0.83 || !p.Timestamp.Equal(t0) {
		t.Errorf("payload %+v", p)
	}
	m := r.metrics
	if testutil.ToFloat64(m.Attempts.WithLabelValues("retry")) != 3 || testutil.ToFloat64(m.Attempts.WithLabelValues("delivered")) != 1 ||
		testutil.ToFloat64(m.Deliveries.WithLabelValues("delivered")) != 1 {
		t.Errorf("metrics: retry %v, delivered attempts %v, deliveries %v", testutil.ToFloat64(m.Attempts.WithLabelValues("retry")),
			testutil.ToFloat64(m.Attempts.WithLabelValues("delivered")), testutil.ToFloat64(m.Deliveries.WithLabelValues("delivered")))
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	cases := []struct {
		name       string
		status     int
		retryAfter string
		wantWait   time.Duration
	}{
		{"429 seconds longer than the backoff", http.StatusTooManyRequests, "3600", time.Hour},
		{"503 HTTP date", http.StatusServiceUnavailable, t0.Add(2 * time.Hour).Format(http.TimeFormat), 2 * time.Hour},
		{"shorter than the backoff: the backoff stands", http.StatusTooManyRequests, "5", 22500 * time.Millisecond},
		{"unreadable: the backoff stands", http.StatusServiceUnavailable, "soon", 22500 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recv := webhookstest.NewReceiver(t, "k")
			recv.Fail(1, c.status, c.retryAfter)
			r := newRig(t, loopbackPolicy(t), webhooks.Backoff{Base: 30 * time.Second})
			r.enqueue(t, r.outbox.AddWebhook(1, recv.URL, "k"), "d")
			if _, err := r.worker.RunOnce(context.Background()); err != nil {
				t.Fatal(err)
			}
			row, _ := r.outbox.Row("d")
			if got := row.NextAt.Sub(t0); row.Status != webhookstest.StatusPending || got != c.wantWait {
				t.Fatalf("status %s, next attempt after %v, want %v", row.Status, got, c.wantWait)
			}
			// Nothing is sent before then.
			r.clock.Set(row.NextAt.Add(-time.Second))
			if n, _ := r.worker.RunOnce(context.Background()); n != 0 || recv.Count("d") != 1 {
				t.Fatalf("sent before the wait was over: claimed %d, received %d", n, recv.Count("d"))
			}
			r.clock.Set(row.NextAt)
			if row := r.drive(t, "d", 1); row.Status != webhookstest.StatusDelivered || recv.Count("d") != 2 {
				t.Errorf("after the wait: %s, received %d", row.Status, recv.Count("d"))
			}
		})
	}
}

// A receiver that never recovers is given up on once the next attempt
// would fall past the give-up age, and the reason is recorded.
func TestGivesUpAfterBoundedTime(t *testing.T) {
	recv := webhookstest.NewReceiver(t, "k")
	recv.Fail(1000, http.StatusInternalServerError, "")
	b := webhooks.Backoff{Base: time.Minute, Max: 16 * time.Minute, GiveUpAfter: 2 * time.Hour}
	r := newRig(t, loopbackPolicy(t), b)
	r.enqueue(t, r.outbox.AddWebhook(1, recv.URL, "k"), "d")
	row := r.drive(t, "d", 100)
	if row.Status != webhookstest.StatusFailed {
		t.Fatalf("row %+v", row)
	}
	// Waits of 3/4 of 1, 2, 4, 8, 16, 16, … minutes: attempts at 0, 0:45,
	// 2:15, 5:15, 11:15, 23:15, 35:15, … 1:59:15 (14 of them); the next
	// would be past 2h.
	if n := len(row.History); n != 14 {
		t.Errorf("%d attempts, want 14", n)
	}
	last := row.History[len(row.History)-1]
	if last.At.After(t0.Add(2 * time.Hour)) {
		t.Errorf("an attempt at %v, after the give-up age", last.At.Sub(t0))
	}
	for _, want := range []string{"gave up after 14 attempts", "later than 2h0m0s after the event", "500 Internal Server Error"} {
		if !strings.Contains(row.Reason, want) {
			t.Errorf("reason %q does not say %q", row.Reason, want)
		}
	}
	if got := testutil.ToFloat64(r.metrics.Deliveries.WithLabelValues("failed")); got != 1 {
		t.Errorf("failed deliveries metric %v", got)
	}
}

func TestClientErrorsAndGone(t *testing.T) {
	cases := []struct {
		name     string
		status   int
		attempts int
		reason   string
		disabled bool
	}{
		{"404 is retried a few times, then given up", http.StatusNotFound, 5, "gave up after 5 attempts: receiver answered 404 Not Found", false},
		{"410 gives up at once and disables the webhook", http.StatusGone, 1, "410 Gone: try again later; the webhook is disabled", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			recv := webhookstest.NewReceiver(t, "k")
			recv.Fail(1000, c.status, "")
			r := newRig(t, loopbackPolicy(t), webhooks.Backoff{})
			hook := r.outbox.AddWebhook(1, recv.URL, "k")
			r.enqueue(t, hook, "d")
			row := r.drive(t, "d", 20)
			if row.Status != webhookstest.StatusFailed || len(row.History) != c.attempts || !strings.Contains(row.Reason, c.reason) {
				t.Errorf("row: %s after %d attempts, reason %q; want failed after %d, %q", row.Status, len(row.History), row.Reason, c.attempts, c.reason)
			}
			if h := r.outbox.Hook(hook); h.Disabled != c.disabled {
				t.Errorf("webhook disabled = %v, want %v", h.Disabled, c.disabled)
			}
			if c.disabled {
				r.enqueue(t, hook, "later")
				if n, _ := r.worker.RunOnce(context.Background()); n != 0 {
					t.Errorf("a disabled webhook's delivery was claimed")
				}
			}
		})
	}
}

// An internal target is refused by the address policy before any
// connection: by literal address, by a name that resolves inward, and by
// a name that passed when the webhook was created and rebinds inward.
func TestInternalTargetsAreNeverConnected(t *testing.T) {
	c := newCanary(t)
	res := &seqResolver{answers: map[string][]string{
		"inward.example":  {"127.0.0.1"},
		"rebinds.example": {"93.184.216.34", "127.0.0.1"},
	}}
	policy, err := fetch.NewPolicy(fetch.Options{Resolver: res, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if err := policy.CheckURL(context.Background(), "http://rebinds.example:"+c.port()+"/hook"); err != nil {
		t.Fatalf("the rebinding name must pass the creation-time check: %v", err)
	}
	for _, target := range []string{"http://127.0.0.1:" + c.port() + "/hook", "http://[::ffff:127.0.0.1]:" + c.port() + "/hook",
		"http://inward.example:" + c.port() + "/hook", "http://rebinds.example:" + c.port() + "/hook"} {
		t.Run(target, func(t *testing.T) {
			r := newRig(t, policy, webhooks.Backoff{})
			r.enqueue(t, r.outbox.AddWebhook(1, target, "k"), "d")
			row := r.drive(t, "d", 1)
			if row.Status != webhookstest.StatusFailed || row.History[0].Class != model.AttemptRefused || !strings.Contains(row.Reason, "is not allowed") {
				t.Errorf("row %s, attempt %+v, reason %q", row.Status, row.History[0], row.Reason)
			}
			if got := testutil.ToFloat64(r.metrics.Attempts.WithLabelValues("refused")); got != 1 {
				t.Errorf("refused attempts metric %v", got)
			}
		})
	}
	if n := c.conns.Load(); n != 0 {
		t.Errorf("the internal listener accepted %d connections", n)
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	var hits atomic.Int64
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer target.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/elsewhere?token=abc", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	r := newRig(t, loopbackPolicy(t), webhooks.Backoff{MaxRejections: 2})
	r.enqueue(t, r.outbox.AddWebhook(1, redirector.URL, "k"), "d")
	row := r.drive(t, "d", 5)
	if hits.Load() != 0 {
		t.Errorf("the redirect target got %d requests", hits.Load())
	}
	a := row.History[0]
	if a.Class != model.AttemptRejected || a.StatusCode != 307 || !strings.Contains(a.Error, "redirects are not followed") ||
		!strings.Contains(a.Error, target.URL+"/elsewhere") || strings.Contains(a.Error, "token=abc") {
		t.Errorf("attempt %+v", a)
	}
	if row.Status != webhookstest.StatusFailed || len(row.History) != 2 {
		t.Errorf("row %s after %d attempts", row.Status, len(row.History))
	}
}

// A worker killed after sending and before recording leaves the row
// leased; once the lease runs out another worker sends it again with the
// same delivery id, and the receiver can tell it is the same delivery.
func TestLeaseExpiryResendsWithSameID(t *testing.T) {
	recv := webhookstest.NewReceiver(t, "k")
	r := newRig(t, loopbackPolicy(t), webhooks.Backoff{})
	r.enqueue(t, r.outbox.AddWebhook(1, recv.URL, "k"), "d")

	// The first daemon claims and sends, then dies before MarkDelivered.
	claimed, err := r.outbox.ClaimDue(context.Background(), "dead", t0, 10, time.Minute)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v, %d", err, len(claimed))
	}
	if a := r.sender.Send(context.Background(), claimed[0]); a.Class != model.AttemptDelivered {
		t.Fatalf("first send %+v", a)
	}
	r.clock.Set(t0.Add(59 * time.Second))
	if n, _ := r.worker.RunOnce(context.Background()); n != 0 {
		t.Fatalf("claimed %d inside the dead worker's lease", n)
	}
	r.clock.Set(t0.Add(61 * time.Second))
	if row := r.drive(t, "d", 1); row.Status != webhookstest.StatusDelivered {
		t.Fatalf("row %+v", row)
	}
	if got := recv.Count("d"); got != 2 || len(recv.IDs()) != 1 {
		t.Errorf("receiver got %d requests of %v, want the same id twice", got, recv.IDs())
	}
}

// Run delivers when woken and returns when its context ends.
func TestRunWakesAndStops(t *testing.T) {
	recv := webhookstest.NewReceiver(t, "k")
	outbox := webhookstest.NewMemoryOutbox()
	sender, _ := webhooks.NewSender(webhooks.SenderOptions{Policy: loopbackPolicy(t)})
	w, _ := webhooks.NewWorker(webhooks.WorkerOptions{Outbox: outbox, Poster: sender, Idle: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	body, _ := webhooks.PromotedBody("d", 1, webhooks.ContentItem{ID: 1, Title: "t", URL: "https://a.example/", PromotedAt: time.Now()})
	outbox.Enqueue(outbox.AddWebhook(1, recv.URL, "k"), "d", webhooks.EventContentItemPromoted, body, time.Now(), time.Now())
	w.Wake()
	for i := 0; recv.Count("d") == 0; i++ {
		if i > 1000 {
			t.Fatal("the woken worker did not deliver")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run returned %v", err)
	}
}

func TestPromotedBody(t *testing.T) {
	pub := time.Date(2026, 2, 28, 8, 0, 0, 0, time.UTC)
	body, err := webhooks.PromotedBody("0195-abc", 3, webhooks.ContentItem{ID: 42, Title: "T", URL: "https://a.example/p", Summary: "S",
		Relevance: 0.5, PublishedAt: &pub, PromotedAt: time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("", 3600)),
		Source: webhooks.Source{ID: 7, Title: "Blog", URL: "https://a.example/feed"}})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	want := `{"content_item":{"id":42,"promoted_at":"2026-03-01T12:00:00+01:00","published_at":"2026-02-28T08:00:00Z","relevance":0.5,` +
		`"source":{"id":7,"title":"Blog","url":"https://a.example/feed"},"summary":"S","title":"T","url":"https://a.example/p"},` +
		`"delivery_id":"0195-abc","event":"content_item.promoted","timestamp":"2026-03-01T11:00:00Z","workspace_id":3}`
	if norm, _ := json.Marshal(got); string(norm) != want {
		t.Errorf("body\n got %s\nwant %s", norm, want)
	}
	if a, b := webhooks.NewDeliveryID(), webhooks.NewDeliveryID(); a == b || len(a) != 36 {
		t.Errorf("delivery ids %q %q", a, b)
	}
}

func TestValidateURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://hooks.example/x":        "",
		"http://hooks.example:8080/x?a=": "",
		"ftp://hooks.example/":           "scheme must be http or https",
		"https:///path":                  "has no host",
		"https://user:pw@hooks.example/": "carries credentials",
		"hooks.example/x":                "scheme must be http or https",
	} {
		err := webhooks.ValidateURL(raw)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("ValidateURL(%q) = %v, want %q", raw, err, want)
		}
	}
}
