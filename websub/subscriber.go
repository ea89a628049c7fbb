// Package websub is the WebSub (W3C Recommendation) subscriber: it
// subscribes to the hubs feeds advertise, answers the hubs' verification
// of intent at a per-subscription callback under the API listener, checks
// the signature of every content distribution and hands signed content to
// the same per-item pipeline as a poll. docs/scheduling.md tells how
// subscriptions are made, renewed and dropped.
package websub

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/rss"
)

// Store is what the subscriber needs of the database. *store.Store
// satisfies it.
type Store interface {
	WebSubCandidates(ctx context.Context, limit int) ([]model.FeedSource, error)
	CreateSubscription(ctx context.Context, sub *model.Subscription) error
	DueSubscriptions(ctx context.Context, t time.Time, limit int) ([]model.SubscriptionTask, error)
	ClaimSubscriptionRequest(ctx context.Context, sub model.Subscription, r model.SubscriptionRequest) (bool, error)
	SubscriptionRequestFailed(ctx context.Context, id int64, msg string, retryAt time.Time) error
	SubscriptionByToken(ctx context.Context, token string) (*model.Subscription, error)
	VerifySubscription(ctx context.Context, sub model.Subscription, leaseSeconds int, expires, renewAt time.Time) error
	EndSubscription(ctx context.Context, sub model.Subscription, state, reason string, next time.Time) error
	DeleteSubscription(ctx context.Context, id int64) error
	ExpireSubscriptions(ctx context.Context, t time.Time) (int, error)
	RecordDelivery(ctx context.Context, id int64, stored bool) error
	CountSubscriptions(ctx context.Context) (map[string]int, error)
	GetSource(ctx context.Context, workspaceID, id int64) (*model.FeedSource, error)
}

// Pusher stores a parsed delivery's items through the per-item pipeline.
// *poller.Poller satisfies it.
type Pusher interface {
	Push(ctx context.Context, src model.FeedSource, res *sources.Result) (model.PollOutcome, error)
}

// Options configures a Subscriber. PublicURL, Store, Pusher and Client
// are required; any other zero field takes its default.
type Options struct {
	Store  Store
	Pusher Pusher
	// PublicURL is where hubs reach the API listener from outside
	// (FEEDPOLLER_PUBLIC_URL); callbacks are PublicURL/websub/<token>.
	PublicURL string
	// Client sends subscription requests; the daemon's dials through
	// the fetcher's address policy, so a hub on an internal address is
	// refused unless allowed.
	Client *http.Client
	// Lease is the lease asked of hubs (they may grant another), at least
	// 1m (default 240h).
	Lease time.Duration
	// Interval is how often Run looks for subscriptions to make, renew or
	// drop (default 1m).
	Interval time.Duration
	// MaxBodyBytes bounds a content distribution (larger: 413), at least
	// 1024 (default 10 MiB).
	MaxBodyBytes int64
	// MaxUnverifiedBytes bounds the bodies held at once before their
	// signature is checked, all deliveries together (0: four times
	// MaxBodyBytes). A delivery that does not fit is answered 503.
	MaxUnverifiedBytes int64
	// MaxItems caps the items taken from one delivery (default 1000).
	MaxItems int
	// Unchanged, when set, is the memory of settled entries the feed
	// fetcher keeps (rss.Unchanged): a delivery's entries that a poll or
	// an earlier delivery settled are left unparsed. nil: every delivery
	// is parsed whole.
	Unchanged *rss.Unchanged
	// UserAgent of subscription requests.
	UserAgent string
	Metrics   *Metrics
	Log       *slog.Logger
}

// Defaults of Options' zero fields.
const (
	DefaultLease        = 10 * 24 * time.Hour
	DefaultInterval     = time.Minute
	DefaultMaxBodyBytes = 10 << 20
	DefaultMaxItems     = 1000
)

// DefaultOptions are the subscriber's defaults, without dependencies.
func DefaultOptions() Options { return Options{}.withDefaults() }

// withDefaults fills the zero fields.
func (o Options) withDefaults() Options {
	if o.Lease == 0 {
		o.Lease = DefaultLease
	}
	if o.Interval == 0 {
		o.Interval = DefaultInterval
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.MaxItems == 0 {
		o.MaxItems = DefaultMaxItems
	}
	return o
}

// Subscriber makes, renews and drops subscriptions and serves their
// callbacks.
type Subscriber struct {
	opts   Options
	base   string
	log    *slog.Logger
	m      *Metrics
	wake   chan struct{}
	bodies *bodyBudget
}

// ValidPublicURL says whether raw can be the public URL callbacks are
// made under: absolute http(s) with a host, and no credentials, query or
// fragment (the callback path is appended to it).
func ValidPublicURL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil &&
		u.RawQuery == "" && u.Fragment == ""
}

// New fills in the defaults of opts and builds a Subscriber; it refuses
// what it cannot work with, naming the field.
func New(opts Options) (*Subscriber, error) {
	opts = opts.withDefaults()
	var errs []string
	if !ValidPublicURL(opts.PublicURL) {
		errs = append(errs, fmt.Sprintf("public URL %q is not an absolute http(s) URL without credentials, query or fragment", opts.PublicURL))
	}
	if opts.Store == nil || opts.Pusher == nil || opts.Client == nil {
		errs = append(errs, "a store, a pusher and an HTTP client are required")
	}
	if opts.Lease < time.Minute {
		errs = append(errs, fmt.Sprintf("Lease %s is under 1m", opts.Lease))
	}
	if opts.Interval < 0 {
		errs = append(errs, fmt.Sprintf("Interval %s is negative", opts.Interval))
	}
	if opts.MaxBodyBytes < 1024 {
		errs = append(errs, fmt.Sprintf("MaxBodyBytes %d is under 1024", opts.MaxBodyBytes))
	}
	if opts.MaxItems < 0 {
		errs = append(errs, fmt.Sprintf("MaxItems %d is negative", opts.MaxItems))
	}
	if len(errs) > 0 {
		return nil, errors.New("websub: " + strings.Join(errs, "; "))
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Metrics == nil {
		m, err := NewMetrics(nil)
		if err != nil {
			return nil, err
		}
		opts.Metrics = m
	}
	if opts.MaxUnverifiedBytes <= 0 {
		opts.MaxUnverifiedBytes = 4 * opts.MaxBodyBytes
	}
	opts.MaxUnverifiedBytes = max(opts.MaxUnverifiedBytes, opts.MaxBodyBytes+1)
	return &Subscriber{opts: opts, base: strings.TrimRight(opts.PublicURL, "/"), log: opts.Log, m: opts.Metrics,
		wake: make(chan struct{}, 1), bodies: &bodyBudget{limit: opts.MaxUnverifiedBytes}}, nil
}

// CallbackPath is the route of the callbacks under the API listener.
const CallbackPath = "/websub/"

// callback is the callback URL of a token.
func (s *Subscriber) callback(token string) string { return s.base + CallbackPath + token }

// Run syncs subscriptions every Interval (and when woken by
// SourceChanged) until ctx ends.
func (s *Subscriber) Run(ctx context.Context) {
	s.log.Info("websub subscriber started", "public_url", s.base, "interval", s.opts.Interval)
	for {
		if err := s.Sync(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("websub: sync failed; retrying at the next interval", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		case <-time.After(s.opts.Interval):
		}
	}
}

// SourceChanged hears that a source was paused, resumed or deleted. The
// source service has made its subscription due at once already (whatever
// process changed the source, the CLI included, so that whichever daemon
// syncs next tells the hub); this wakes this daemon's sync to do it now.
func (s *Subscriber) SourceChanged(_ context.Context, _ int64) {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// syncBatch bounds the work of one sync.
const syncBatch = 100

// Sync is one round: leases that ran out are marked expired, sources that
// advertise a hub get a subscription, and every due subscription's request
// is sent (subscribe, renew, retry, unsubscribe).
func (s *Subscriber) Sync(ctx context.Context) error {
	now := time.Now()
	cands, err := s.opts.Store.WebSubCandidates(ctx, syncBatch)
	if err != nil {
		return err
	}
	for _, src := range cands {
		sub := &model.Subscription{SourceID: src.ID, HubURL: src.HubURL, TopicURL: topicOf(src.SelfURL, src.URL),
			CallbackToken: randomHex(24), Secret: randomHex(32), NextRequestAt: now}
		if err := s.opts.Store.CreateSubscription(ctx, sub); err != nil && !errors.Is(err, model.ErrConflict) {
			return err
		}
	}
	due, err := s.opts.Store.DueSubscriptions(ctx, now, syncBatch)
	if err != nil {
		return err
	}
	for _, t := range due {
		if err := s.handle(ctx, t, now); err != nil {
			return err
		}
	}
	if n, err := s.opts.Store.ExpireSubscriptions(ctx, time.Now()); err != nil {
		return err
	} else if n > 0 {
		s.log.Warn("websub: leases ran out before a renewal was verified; sources polled adaptively again", "subscriptions", n)
	}
	return s.countStates(ctx)
}

func (s *Subscriber) countStates(ctx context.Context) error {
	counts, err := s.opts.Store.CountSubscriptions(ctx)
	if err != nil {
		return err
	}
	for _, st := range model.SubscriptionStates() {
		s.m.Subscriptions.WithLabelValues(st).Set(float64(counts[st]))
	}
	return nil
}

// topicOf is the topic to subscribe to: the feed's self URL, else the
// URL it is polled at.
func topicOf(self, feedURL string) string {
	if self != "" {
		return self
	}
	return feedURL
}

// live says whether the hub may be sending for sub.
func live(state string) bool { return state == model.SubPending || state == model.SubVerified }

// handle sends the request a due subscription needs.
func (s *Subscriber) handle(ctx context.Context, t model.SubscriptionTask, now time.Time) error {
	sub := t.Subscription
	want := t.Active && t.SourceHub != ""
	if !want {
		if live(sub.State) && sub.PendingMode == "unsubscribe" && (sub.Failures == 0 || sub.Failures >= maxUnsubscribeTries) {
			// The hub took the unsubscription and never confirmed it, or
			// kept refusing it: stop asking. Its deliveries now find no
			// active subscription (404) and its lease runs out.
			s.log.Warn("websub: the hub did not confirm the unsubscription; the subscription is dropped", "source_id", sub.SourceID, "hub", sub.HubURL)
			if t.SourceURL == "" {
				return s.opts.Store.DeleteSubscription(ctx, sub.ID)
			}
			return s.opts.Store.EndSubscription(ctx, sub, model.SubUnsubscribed, "the hub did not confirm the unsubscription", time.Time{})
		}
		if live(sub.State) {
			return s.send(ctx, sub, model.SubscriptionRequest{Mode: "unsubscribe", HubURL: sub.HubURL, TopicURL: sub.TopicURL,
				CallbackToken: sub.CallbackToken, Secret: sub.Secret}, now)
		}
		if t.SourceURL == "" { // the source is gone and the hub told
			return s.opts.Store.DeleteSubscription(ctx, sub.ID)
		}
		return s.opts.Store.EndSubscription(ctx, sub, sub.State, sub.LastError, time.Time{})
	}
	r := model.SubscriptionRequest{Mode: "subscribe", HubURL: t.SourceHub, TopicURL: topicOf(t.SelfURL, t.SourceURL),
		CallbackToken: sub.CallbackToken, Secret: sub.Secret}
	if !live(sub.State) || r.HubURL != sub.HubURL || r.TopicURL != sub.TopicURL {
		// A fresh subscription gets a fresh callback and secret: what an
		// ended one leaked opens nothing.
		r.CallbackToken, r.Secret = randomHex(24), randomHex(32)
	}
	return s.send(ctx, sub, r, now)
}

// maxUnsubscribeTries bounds the unsubscription requests a refusing hub
// gets.
const maxUnsubscribeTries = 5

// verifyWait is how long a request waits for the hub's verification of
// intent before it is sent again.
const verifyWait = time.Hour

// send claims the request (no other replica sends it too), posts it to
// the hub and records a refusal.
func (s *Subscriber) send(ctx context.Context, sub model.Subscription, r model.SubscriptionRequest, now time.Time) error {
	r.NextRequestAt = now.Add(verifyWait)
	if sub.State == model.SubVerified && sub.LeaseExpiresAt != nil && r.Mode == "subscribe" {
		// A renewal that is not verified is tried again before the lease
		// runs out.
		r.NextRequestAt = minTime(r.NextRequestAt, now.Add(sub.LeaseExpiresAt.Sub(now)/2))
	}
	ok, err := s.opts.Store.ClaimSubscriptionRequest(ctx, sub, r)
	if err != nil || !ok {
		return err
	}
	err = s.post(ctx, r, true)
	if refusedLease(r, err) {
		// hub.lease_seconds is optional (§5.1): a hub that refuses the
		// lease asked (one with a shorter maximum answers 400) is asked
		// again without it, and grants its own.
		s.m.Requests.WithLabelValues(r.Mode, result(err)).Inc()
		s.log.Info("websub: hub refused the lease asked; asking again without one", "source_id", sub.SourceID,
			"hub", r.HubURL, "lease_seconds", int64(s.opts.Lease/time.Second), "err", err)
		err = s.post(ctx, r, false)
	}
	s.m.Requests.WithLabelValues(r.Mode, result(err)).Inc()
	if err != nil {
		retry := now.Add(backoff(sub.Failures + 1))
		s.log.Warn("websub: hub request failed; polling continues", "source_id", sub.SourceID, "mode", r.Mode,
			"hub", r.HubURL, "topic", r.TopicURL, "retry_at", retry.UTC().Format(time.RFC3339), "err", err)
		return s.opts.Store.SubscriptionRequestFailed(ctx, sub.ID, err.Error(), retry)
	}
	s.log.Info("websub: request accepted by the hub, awaiting verification", "source_id", sub.SourceID, "mode", r.Mode,
		"hub", r.HubURL, "topic", r.TopicURL, "renewal", r.Mode == "subscribe" && sub.State == model.SubVerified)
	return nil
}

func result(err error) string {
	if err != nil {
		return "failed"
	}
	return "accepted"
}

// backoff is the wait before the n-th retry of a failed request: 5 min
// doubling, at most a day.
func backoff(n int) time.Duration {
	d := 5 * time.Minute
	for i := 1; i < n && d < 24*time.Hour; i++ {
		d *= 2
	}
	return min(d, 24*time.Hour)
}

// hubRefusal is a hub's non-2xx answer to a subscription request.
type hubRefusal struct {
	mode, host string
	status     int
	body       string
}

func (e *hubRefusal) Error() string {
	return fmt.Sprintf("%s request to hub %s: HTTP %d: %s", e.mode, e.host, e.status, e.body)
}

// refusedLease says whether err is a hub's refusal of a subscription
// request that may be about the lease it asked: 400 or 422, what hubs
// answer a parameter they will not take.
func refusedLease(r model.SubscriptionRequest, err error) bool {
	var hr *hubRefusal
	return r.Mode == "subscribe" && errors.As(err, &hr) &&
		(hr.status == http.StatusBadRequest || hr.status == http.StatusUnprocessableEntity)
}

// post sends one subscription request to the hub; a subscription asks for
// Options.Lease when withLease is set.
func (s *Subscriber) post(ctx context.Context, r model.SubscriptionRequest, withLease bool) error {
	u, err := url.Parse(r.HubURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("hub URL %q is not an absolute http(s) URL", r.HubURL)
	}
	form := url.Values{"hub.mode": {r.Mode}, "hub.topic": {r.TopicURL}, "hub.callback": {s.callback(r.CallbackToken)}}
	if r.Mode == "subscribe" {
		form.Set("hub.secret", r.Secret)
		if withLease {
			form.Set("hub.lease_seconds", fmt.Sprint(int64(s.opts.Lease/time.Second)))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.HubURL, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("%s request to hub %s: %w", r.Mode, u.Host, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if s.opts.UserAgent != "" {
		req.Header.Set("User-Agent", s.opts.UserAgent)
	}
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		return fmt.Errorf("%s request to hub %s: %w", r.Mode, u.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		// A hub may quote the request back: the callback's token and the
		// secret stay out of the error stored and logged.
		text := strings.ToValidUTF8(strings.TrimSpace(string(b)), "")
		for _, secret := range []string{r.CallbackToken, r.Secret} {
			if secret != "" {
				text = strings.ReplaceAll(text, secret, "[redacted]")
			}
		}
		return &hubRefusal{mode: r.Mode, host: u.Host, status: resp.StatusCode, body: text}
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// randomHex is n random bytes, hex-encoded: callback tokens and secrets.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

// renewAt is when a lease granted at now is renewed: at 80 to 90 % of
// it, jittered so that renewals of many subscriptions spread out, and at
// least three sync intervals before it ends (so a sync sees it in time),
// but not before half of it.
func (s *Subscriber) renewAt(now time.Time, lease time.Duration) time.Time {
	margin := max(time.Duration(float64(lease)*(0.1+0.1*mrand.Float64())), 3*s.opts.Interval)
	return now.Add(max(lease-margin, lease/2))
}
