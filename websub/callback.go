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
	"github.com/feedpoller/feedpoller/sources/rss"
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
		secs, err := strconv.ParseInt(q.Get("hub.lease_seconds"), 10, 64)
		lease := time.Duration(secs) * time.Second
		if err != nil || secs <= 0 || lease > maxLease {
			lease = min(s.opts.Lease, maxLease)
		}
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

// deliver takes a content distribution. It answers 2xx to everything it
// will not take for its signature (so the hub does not retry) and stores
// only what the subscription's secret signed.
func (s *Subscriber) deliver(w http.ResponseWriter, r *http.Request, token string) {
	arrived := time.Now()
	sub, err := s.opts.Store.SubscriptionByToken(r.Context(), token)
	if err == nil && sub.State != model.SubVerified {
		err = model.ErrNotFound
	}
	if err != nil {
		if errors.Is(err, model.ErrNotFound) {
			s.m.Deliveries.WithLabelValues(OutcomeUnknown).Inc()
			s.log.Warn("websub: delivery to an unknown or unverified subscription refused", "remote", r.RemoteAddr)
		}
		s.notFoundOrFail(w, r, err)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.reject(r.Context(), sub, OutcomeTooLarge, "delivery larger than the limit refused", "limit", s.opts.MaxBodyBytes)
			http.Error(w, "delivery too large", http.StatusRequestEntityTooLarge)
			return
		}
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
	parsed, err := rss.Parse(body, media, strings.ToLower(params["charset"]), sub.TopicURL, s.opts.MaxItems)
	if err != nil {
		s.reject(r.Context(), sub, OutcomeUnparsable, "signed delivery is not a feed, not stored", "err", err)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	src, err := s.opts.Store.GetSource(r.Context(), 0, sub.SourceID)
	if err != nil || !src.IsActive {
		s.m.Deliveries.WithLabelValues(OutcomeUnknown).Inc()
		if err == nil || errors.Is(err, model.ErrNotFound) {
			http.NotFound(w, r)
			return
		}
		s.fail(w, err)
		return
	}
	out, err := s.opts.Pusher.Push(r.Context(), *src, parsed.Items)
	if err != nil {
		s.m.Deliveries.WithLabelValues(OutcomeError).Inc()
		s.fail(w, err) // 5xx: the hub retries
		return
	}
	if err := s.opts.Store.RecordDelivery(r.Context(), sub.ID, true); err != nil {
		s.log.Warn("websub: delivery stored but not counted", "source_id", sub.SourceID, "err", err)
	}
	s.m.Deliveries.WithLabelValues(OutcomeStored).Inc()
	stored := time.Now()
	s.log.Info("websub: delivery stored", "source_id", sub.SourceID, "items", out.ItemsSeen, "new", out.ItemsNew,
		"duplicate", out.ItemsDuplicate, "arrived", arrived.UTC().Format(time.RFC3339Nano),
		"stored", stored.UTC().Format(time.RFC3339Nano), "ms", stored.Sub(arrived).Milliseconds())
	w.WriteHeader(http.StatusNoContent)
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
