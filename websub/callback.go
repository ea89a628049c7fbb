package websub

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// ServeHTTP serves the callbacks: GET is a hub's verification of intent
// (or its denial), POST a content distribution. The token in the path
// names the subscription; an unknown one is 404.
func (s *Subscriber) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	token := strings.TrimPrefix(r.URL.Path, CallbackPath)
	if token == "" || strings.Contains(token, "/") {
		http.NotFound(w, r)
		return
	}
	switch r.Method {
	case http.MethodGet:
		s.verify(w, r, token)
	case http.MethodPost:
		s.deliver(w, r, token)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// maxLease bounds the lease a hub may grant that is believed: a longer
// one is taken as this, so a subscription is renewed at least yearly.
const maxLease = 365 * 24 * time.Hour

// grantedLease reads the hub.lease_seconds of a verification. The value is
// parsed as a bounded integer before any arithmetic: a count of seconds
// beyond maxLease (up to any number of digits) is maxLease, never a
// duration that wrapped around. A value that is not a positive whole
// number is taken as the lease asked for.
func grantedLease(v string, asked time.Duration) time.Duration {
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange), err == nil && n > uint64(maxLease/time.Second):
		return maxLease
	case err != nil || n == 0:
		return min(asked, maxLease)
	}
	return time.Duration(n) * time.Second
}

// verify answers the hub's verification of intent: the challenge is
// echoed only for the mode and topic this subscriber asked for and still
// awaits; a denial is recorded.
func (s *Subscriber) verify(w http.ResponseWriter, r *http.Request, token string) {
	q := r.URL.Query()
	mode, topic, challenge := q.Get("hub.mode"), q.Get("hub.topic"), q.Get("hub.challenge")
	sub, err := s.opts.Store.SubscriptionByToken(r.Context(), token)
	if err != nil {
		s.notFoundOrFail(w, r, err)
		return
	}
	if topic != sub.TopicURL {
		s.log.Warn("websub: verification for a topic not subscribed refused", "source_id", sub.SourceID, "mode", mode, "topic", topic)
		http.NotFound(w, r)
		return
	}
	now := time.Now()
	switch {
	case mode == "denied" && sub.PendingMode != "subscribe":
		// A denial carries no challenge: taken only as the answer to a
		// subscription request the subscriber sent and still awaits, like
		// a verification, or anyone holding the callback could end it.
		s.log.Warn("websub: denial of a subscription not awaiting the hub refused", "source_id", sub.SourceID,
			"state", sub.State, "awaiting", sub.PendingMode)
		http.NotFound(w, r)
		return
	case mode == "denied":
		reason := strings.TrimSpace("hub denied the subscription " + q.Get("hub.reason"))
		if err := s.opts.Store.EndSubscription(r.Context(), *sub, model.SubDenied, reason, now.Add(24*time.Hour)); err != nil {
			s.fail(w, err)
			return
		}
		s.log.Warn("websub: subscription denied; polling continues", "source_id", sub.SourceID, "topic", topic, "reason", q.Get("hub.reason"))
		w.WriteHeader(http.StatusOK)
		return
	case challenge == "" || mode != sub.PendingMode:
		s.log.Warn("websub: verification not awaited refused", "source_id", sub.SourceID, "mode", mode, "awaiting", sub.PendingMode)
		http.NotFound(w, r)
		return
	case mode == "subscribe":
		lease := grantedLease(q.Get("hub.lease_seconds"), s.opts.Lease)
		expires := now.Add(lease)
		if err := s.opts.Store.VerifySubscription(r.Context(), *sub, int(lease/time.Second), expires, s.renewAt(now, lease)); err != nil {
			s.fail(w, err)
			return
		}
		s.log.Info("websub: subscription verified", "source_id", sub.SourceID, "topic", topic,
			"lease_seconds", int(lease/time.Second), "until", expires.UTC().Format(time.RFC3339), "renewal", sub.State == model.SubVerified)
	case mode == "unsubscribe":
		if err := s.opts.Store.EndSubscription(r.Context(), *sub, model.SubUnsubscribed, "", now); err != nil {
			s.fail(w, err)
			return
		}
		s.log.Info("websub: unsubscription verified", "source_id", sub.SourceID, "topic", topic)
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, challenge)
}

// deliver takes a content distribution. A subscription that ended, or
// whose source was paused or deleted, answers 410 Gone: the
// Recommendation lets a subscriber say so, and the hub then drops it.
// It answers 2xx to everything it will not take for its signature (so
// the hub does not retry), stores only what the subscription's secret
// signed, and acknowledges a delivery it already stored (a hub's retry, a
// replay) without storing anything again.
func (s *Subscriber) deliver(w http.ResponseWriter, r *http.Request, token string) {
	arrived := time.Now()
	sub, err := s.opts.Store.SubscriptionByToken(r.Context(), token)
	if errors.Is(err, model.ErrNotFound) || (err == nil && sub.State == model.SubPending) {
		s.m.Deliveries.WithLabelValues(OutcomeUnknown).Inc()
		s.log.Warn("websub: delivery to an unknown or unverified subscription refused", "remote", r.RemoteAddr)
		http.NotFound(w, r)
		return
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	if sub.State != model.SubVerified {
		s.gone(w, sub, "the subscription "+sub.State)
		return
	}
	src, err := s.opts.Store.GetSource(r.Context(), 0, sub.SourceID)
	switch {
	case errors.Is(err, model.ErrNotFound):
		s.gone(w, sub, "the source was deleted")
		return
	case err != nil:
		s.fail(w, err)
		return
	case !src.IsActive:
		s.gone(w, sub, "the source is paused")
		return
	}
	body, release, err := s.bodies.readBody(r.Body, r.ContentLength, s.opts.MaxBodyBytes)
	defer release()
	switch {
	case errors.Is(err, errTooLarge):
		s.reject(r.Context(), sub, OutcomeTooLarge, "delivery larger than the limit refused", "limit", s.opts.MaxBodyBytes)
		http.Error(w, "delivery too large", http.StatusRequestEntityTooLarge)
		return
	case errors.Is(err, errBudget):
		// Not the hub's fault, and not counted against the subscription:
		// it retries later.
		s.m.Deliveries.WithLabelValues(OutcomeBusy).Inc()
		s.log.Warn("websub: delivery deferred, too many unverified deliveries at once", "source_id", sub.SourceID,
			"limit_bytes", s.bodies.limit)
		w.Header().Set("Retry-After", "60")
		http.Error(w, "too many deliveries at once; retry later", http.StatusServiceUnavailable)
		return
	case err != nil:
		http.Error(w, "could not read the delivery", http.StatusBadRequest)
		return
	}
	switch present, valid := checkSignature(r.Header.Get("X-Hub-Signature"), body, sub.Secret); {
	case !present:
		s.reject(r.Context(), sub, OutcomeUnsigned, "unsigned delivery acknowledged, not stored")
		w.WriteHeader(http.StatusAccepted)
		return
	case !valid:
		s.reject(r.Context(), sub, OutcomeBadSignature, "delivery with a wrong signature acknowledged, not stored")
		w.WriteHeader(http.StatusAccepted)
		return
	}
	media, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	parsed, err := s.opts.Unchanged.Parse(body, media, strings.ToLower(params["charset"]), sub.TopicURL, s.opts.MaxItems,
		src.ID, src.URL)
	if err != nil {
		s.reject(r.Context(), sub, OutcomeUnparsable, "signed delivery is not a feed, not stored", "err", err)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	release() // signed: what is left to do holds the parsed items, not the body
	out, err := s.opts.Pusher.Push(r.Context(), *src, parsed)
	switch {
	case errors.Is(err, model.ErrNotFound):
		s.gone(w, sub, "the source was deleted")
		return
	case err != nil:
		s.m.Deliveries.WithLabelValues(OutcomeError).Inc()
		s.fail(w, err) // 5xx: the hub retries
		return
	}
	if err := s.opts.Store.RecordDelivery(r.Context(), sub.ID, true); err != nil {
		s.log.Warn("websub: delivery taken but not counted", "source_id", sub.SourceID, "err", err)
	}
	stored := time.Now()
	if out.ItemsNew == 0 {
		s.m.Deliveries.WithLabelValues(OutcomeDuplicate).Inc()
		s.log.Info("websub: delivery with nothing new acknowledged", "source_id", sub.SourceID, "items", out.ItemsSeen,
			"duplicate", out.ItemsDuplicate, "ms", stored.Sub(arrived).Milliseconds())
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.m.Deliveries.WithLabelValues(OutcomeStored).Inc()
	s.log.Info("websub: delivery stored", "source_id", sub.SourceID, "items", out.ItemsSeen, "new", out.ItemsNew,
		"duplicate", out.ItemsDuplicate, "arrived", arrived.UTC().Format(time.RFC3339Nano),
		"stored", stored.UTC().Format(time.RFC3339Nano), "ms", stored.Sub(arrived).Milliseconds())
	w.WriteHeader(http.StatusNoContent)
}

// gone answers 410 to a delivery for a subscription that is over: the hub
// is to stop sending.
func (s *Subscriber) gone(w http.ResponseWriter, sub *model.Subscription, why string) {
	s.m.Deliveries.WithLabelValues(OutcomeGone).Inc()
	s.log.Info("websub: delivery for a subscription that is over answered 410", "source_id", sub.SourceID, "why", why)
	http.Error(w, "subscription ended: "+why, http.StatusGone)
}

// reject counts and logs a delivery that is not stored.
func (s *Subscriber) reject(ctx context.Context, sub *model.Subscription, outcome, msg string, args ...any) {
	s.m.Deliveries.WithLabelValues(outcome).Inc()
	s.log.Warn("websub: "+msg, append([]any{"source_id", sub.SourceID, "outcome", outcome}, args...)...)
	if err := s.opts.Store.RecordDelivery(ctx, sub.ID, false); err != nil {
		s.log.Warn("websub: rejected delivery not counted", "source_id", sub.SourceID, "err", err)
	}
}

func (s *Subscriber) notFoundOrFail(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, model.ErrNotFound) {
		http.NotFound(w, r)
		return
	}
	s.fail(w, err)
}

func (s *Subscriber) fail(w http.ResponseWriter, err error) {
	s.log.Error("websub: callback failed", "err", err)
	http.Error(w, "internal error", http.StatusInternalServerError)
}
