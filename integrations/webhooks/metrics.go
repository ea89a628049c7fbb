package webhooks

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the webhook worker's Prometheus collectors.
type Metrics struct {
	// Attempts counts POSTs by class (delivered, retry, rejected, gone,
	// refused).
	Attempts *prometheus.CounterVec
	// Deliveries counts deliveries that ended, by outcome (delivered,
	// failed).
	Deliveries *prometheus.CounterVec
	// AttemptDuration is the time of one POST.
	AttemptDuration prometheus.Histogram
	// DeliveryLag is the time from the event to its successful delivery.
	DeliveryLag prometheus.Histogram
	// InFlight is the POSTs running now.
	InFlight prometheus.Gauge
	// OutboxErrors counts outbox reads and writes that failed.
	OutboxErrors prometheus.Counter
}

// NewMetrics creates the collectors and registers them on reg (nil: not
// registered, for tests that only read them).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedpoller_webhook_attempts_total", Help: "Webhook POSTs by class: delivered, retry, rejected, gone, refused.",
		}, []string{"class"}),
		Deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feedpoller_webhook_deliveries_total", Help: "Webhook deliveries that ended, by outcome: delivered, failed.",
		}, []string{"outcome"}),
		AttemptDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "feedpoller_webhook_attempt_duration_seconds", Help: "Time of one webhook POST, connect to the end of the answer.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
		}),
		DeliveryLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "feedpoller_webhook_delivery_lag_seconds", Help: "Time from the event to its successful webhook delivery.",
			Buckets: []float64{0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 24 * 3600},
		}),
		InFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "feedpoller_webhook_sends_in_flight", Help: "Webhook POSTs running now.",
		}),
		OutboxErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "feedpoller_webhook_outbox_errors_total", Help: "Webhook outbox reads and writes that failed on the database.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.Attempts, m.Deliveries, m.AttemptDuration, m.DeliveryLag, m.InFlight, m.OutboxErrors)
	}
	return m
}
