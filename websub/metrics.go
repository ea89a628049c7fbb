package websub

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedpoller/feedpoller/model"
)

// Delivery outcomes, the label of Metrics.Deliveries.
const (
	OutcomeStored       = "stored"
	OutcomeUnsigned     = "unsigned"
	OutcomeBadSignature = "bad_signature"
	OutcomeUnknown      = "unknown"
	OutcomeTooLarge     = "too_large"
	OutcomeUnparsable   = "unparsable"
	OutcomeError        = "error"
	// OutcomeDuplicate: signed, and every item already stored (a hub's
	// retry, a replay): acknowledged, nothing written.
	OutcomeDuplicate = "duplicate"
	// OutcomeGone: the subscription ended, or its source was paused or
	// deleted: answered 410, so the hub drops it.
	OutcomeGone = "gone"
	// OutcomeBusy: too many unverified bodies held at once: answered 503,
	// the hub retries.
	OutcomeBusy = "busy"
)

// Metrics are the subscriber's Prometheus collectors.
type Metrics struct {
	// Subscriptions by state, as counted at the last sync.
	Subscriptions *prometheus.GaugeVec
	// Deliveries by outcome.
	Deliveries *prometheus.CounterVec
	// Requests to hubs by mode and result.
	Requests *prometheus.CounterVec
}

// NewMetrics creates the collectors, every label value at 0, and
// registers them on reg (nil: nowhere).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		Subscriptions: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "feedpoller_websub_subscriptions",
			Help: "WebSub subscriptions by state (pending, verified, denied, expired, unsubscribed)."}, []string{"state"}),
		Deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "feedpoller_websub_deliveries_total",
			Help: "WebSub content distributions by outcome: stored, or why not (duplicate, unsigned, bad_signature, unknown, gone, too_large, busy, unparsable, error)."},
			[]string{"outcome"}),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "feedpoller_websub_requests_total",
			Help: "Subscription requests sent to hubs by mode and result (accepted, failed)."}, []string{"mode", "result"}),
	}
	for _, st := range model.SubscriptionStates() {
		m.Subscriptions.WithLabelValues(st)
	}
	for _, o := range []string{OutcomeStored, OutcomeDuplicate, OutcomeUnsigned, OutcomeBadSignature, OutcomeUnknown,
		OutcomeGone, OutcomeTooLarge, OutcomeBusy, OutcomeUnparsable, OutcomeError} {
		m.Deliveries.WithLabelValues(o)
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.Subscriptions, m.Deliveries, m.Requests} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register websub metrics: %w", err)
		}
	}
	return m, nil
}
