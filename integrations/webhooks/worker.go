package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Defaults for the zero values of WorkerOptions.
const (
	DefaultBatch       = 50
	DefaultConcurrency = 4
	DefaultLease       = 2 * time.Minute
	DefaultIdle        = 5 * time.Second
	// markTimeout bounds recording an outcome, which happens even while
	// the worker shuts down.
	markTimeout = 10 * time.Second
)

// classExhausted is a retry past the give-up age: the delivery fails.
const classExhausted model.AttemptClass = "exhausted"

// Poster makes one attempt at a delivery; *Sender is the real one.
type Poster interface {
	Send(ctx context.Context, d model.PendingDelivery) model.DeliveryAttempt
}

// WorkerOptions configure a Worker.
type WorkerOptions struct {
	Outbox Outbox
	Poster Poster
	// Owner names this worker's leases (default: host name, pid and a
	// random suffix, unique per process).
	Owner string
	// Batch is the most deliveries claimed at once (default 50).
	Batch int
	// Concurrency is the most POSTs in flight (default 4).
	Concurrency int
	// Lease is how long a claimed delivery stays this worker's (default
	// 2m); it must outlast an attempt (the sender's timeout). A worker
	// that dies mid-send leaves the row to be sent again once it ends.
	Lease time.Duration
	// Idle is how long Run waits when nothing was due (default 5s); Wake
	// cuts it short.
	Idle    time.Duration
	Backoff Backoff
	// Now is the clock (default time.Now).
	Now     func() time.Time
	Metrics *Metrics
	Log     *slog.Logger
}

// Worker sends due deliveries from an outbox.
type Worker struct {
	opts WorkerOptions
	wake chan struct{}
}

// DefaultWorkerOptions are the worker's defaults, without its
// collaborators.
func DefaultWorkerOptions() WorkerOptions {
	o := WorkerOptions{}.withDefaults()
	o.Backoff.Jitter = nil
	return o
}

// withDefaults fills the zero fields.
func (o WorkerOptions) withDefaults() WorkerOptions {
	if o.Batch == 0 {
		o.Batch = DefaultBatch
	}
	if o.Concurrency == 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.Lease == 0 {
		o.Lease = DefaultLease
	}
	if o.Idle == 0 {
		o.Idle = DefaultIdle
	}
	o.Backoff = o.Backoff.withDefaults()
	return o
}

// NewWorker fills in the defaults of opts and builds a Worker; it refuses
// what it cannot work with, naming the field.
func NewWorker(opts WorkerOptions) (*Worker, error) {
	if opts.Outbox == nil || opts.Poster == nil {
		return nil, errors.New("webhooks: a worker needs an outbox and a poster")
	}
	opts = opts.withDefaults()
	if err := checkPositive("webhooks: worker", []positive{{"Batch", int64(opts.Batch)},
		{"Concurrency", int64(opts.Concurrency)}, {"Lease", int64(opts.Lease)}, {"Idle", int64(opts.Idle)},
		{"Backoff.Base", int64(opts.Backoff.Base)}, {"Backoff.Max", int64(opts.Backoff.Max)},
		{"Backoff.GiveUpAfter", int64(opts.Backoff.GiveUpAfter)}, {"Backoff.MaxRejections", int64(opts.Backoff.MaxRejections)}}); err != nil {
		return nil, err
	}
	if opts.Owner == "" {
		opts.Owner = defaultOwner()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics(nil)
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	return &Worker{opts: opts, wake: make(chan struct{}, 1)}, nil
}

// positive is an option that must be more than 0 once its default is
// filled in.
type positive struct {
	name string
	val  int64
}

// checkPositive names every option of what that is not more than 0.
func checkPositive(what string, opts []positive) error {
	var errs []string
	for _, o := range opts {
		if o.val <= 0 {
			errs = append(errs, fmt.Sprintf("%s %d is negative", o.name, o.val))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s: %s", what, strings.Join(errs, "; "))
	}
	return nil
}

func defaultOwner() string {
	host, _ := os.Hostname()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b))
}

// Wake makes a waiting Run look for due deliveries now; the promotion path
// calls it after committing, so a delivery need not wait for Idle.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run sends due deliveries until ctx ends; POSTs in flight then finish
// (within the sender's timeout) and are recorded. Outbox failures (the
// database is away) are logged and retried after Idle; Run returns only
// when ctx ends.
func (w *Worker) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		n, err := w.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			w.opts.Log.Error("webhooks: claim due deliveries", "err", err)
		}
		if err == nil && n == w.opts.Batch {
			continue // more may be due
		}
		t := time.NewTimer(w.opts.Idle)
		select {
		case <-ctx.Done():
		case <-w.wake:
		case <-t.C:
		}
		t.Stop()
	}
	return nil
}

// RunOnce claims one batch of due deliveries, sends them and records each
// outcome. It returns how many it claimed.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	batch, err := w.opts.Outbox.ClaimDue(ctx, w.opts.Owner, w.opts.Now(), w.opts.Batch, w.opts.Lease)
	if err != nil {
		w.opts.Metrics.OutboxErrors.Inc()
		return 0, fmt.Errorf("claim webhook deliveries: %w", err)
	}
	// Sends and records outlive a shutdown's cancel: a POST cut off halfway
	// would be sent again anyway, so letting it finish saves a duplicate.
	sendCtx := context.WithoutCancel(ctx)
	sem := make(chan struct{}, w.opts.Concurrency)
	var wg sync.WaitGroup
	for _, d := range batch {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			w.deliver(sendCtx, d)
		}()
	}
	wg.Wait()
	return len(batch), nil
}

// deliver makes one attempt at d and records what it means.
func (w *Worker) deliver(ctx context.Context, d model.PendingDelivery) {
	m := w.opts.Metrics
	m.InFlight.Inc()
	a := w.opts.Poster.Send(ctx, d)
	m.InFlight.Dec()
	m.Attempts.WithLabelValues(string(a.Class)).Inc()
	m.AttemptDuration.Observe(a.Duration.Seconds())

	mctx, cancel := context.WithTimeout(ctx, markTimeout)
	defer cancel()
	log := w.opts.Log.With("delivery", d.ID, "webhook", d.WebhookID, "attempt", a.Number)
	var err error
	switch outcome, reason, next := w.decide(d, a); outcome {
	case model.AttemptDelivered:
		if err = w.opts.Outbox.MarkDelivered(mctx, w.opts.Owner, d.ID, a); err == nil {
			m.Deliveries.WithLabelValues("delivered").Inc()
			m.DeliveryLag.Observe(w.opts.Now().Sub(d.CreatedAt).Seconds())
		}
	case model.AttemptRetry:
		log.Info("webhooks: delivery will be retried", "next_attempt_at", next, "err", a.Error)
		err = w.opts.Outbox.MarkRetry(mctx, w.opts.Owner, d.ID, next, a)
	default:
		log.Warn("webhooks: delivery failed", "reason", reason)
		if err = w.opts.Outbox.MarkFailed(mctx, w.opts.Owner, d.ID, a, reason); err == nil {
			m.Deliveries.WithLabelValues("failed").Inc()
		}
		if err == nil && a.Class == model.AttemptGone {
			err = w.opts.Outbox.DisableWebhook(mctx, d.WebhookID, reason)
		}
	}
	switch {
	case errors.Is(err, model.ErrDeliveryLeaseLost):
		log.Info("webhooks: lease lost before the outcome was recorded; another attempt will follow", "err", err)
	case err != nil:
		m.OutboxErrors.Inc()
		log.Error("webhooks: record delivery outcome; it will be sent again when its lease ends", "err", err)
	}
}

// decide turns an attempt into the delivery's next step: delivered, retry
// at next, or failed (any other Class) with reason.
func (w *Worker) decide(d model.PendingDelivery, a model.DeliveryAttempt) (outcome model.AttemptClass, reason string, next time.Time) {
	b := w.opts.Backoff
	switch a.Class {
	case model.AttemptDelivered:
		return model.AttemptDelivered, "", time.Time{}
	case model.AttemptGone:
		return model.AttemptGone, a.Error + "; the webhook is disabled until it is enabled again", time.Time{}
	case model.AttemptRefused:
		return model.AttemptRefused, a.Error, time.Time{}
	case model.AttemptRejected:
		if a.Number >= b.MaxRejections {
			return model.AttemptRejected, fmt.Sprintf("gave up after %d attempts: %s", a.Number, a.Error), time.Time{}
		}
	}
	now := w.opts.Now()
	next = now.Add(b.Delay(a.Number))
	if ra := now.Add(a.RetryAfter); ra.After(next) {
		next = ra
	}
	if deadline := d.CreatedAt.Add(b.GiveUpAfter); next.After(deadline) {
		return classExhausted, fmt.Sprintf("gave up after %d attempts: the next would be later than %v after the event; last: %s",
			a.Number, b.GiveUpAfter, a.Error), time.Time{}
	}
	return model.AttemptRetry, "", next
}
