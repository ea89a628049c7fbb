package main

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/bench/internal/proc"
)

func TestOwnProcessCPUAndMemory(t *testing.T) {
	// Burn CPU until /proc shows it: the same readers measure the daemon.
	// The loop ends on the CPU counter, not on a clock, so a busy machine
	// only makes it take longer; the deadline only guards against a
	// reader that never moves.
	before, err := proc.CPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	x := 0.0
	deadline := time.Now().Add(5 * time.Minute)
	for {
		for i := 0; i < 1_000_000; i++ {
			x += math.Sqrt(x + 1)
		}
		after, err := proc.CPU(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if after-before >= 2*proc.ClockTick {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the process's CPU stayed at %v through minutes of a busy loop (%v)", after, x)
		}
	}
	m, err := readMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.hwmKB < m.rssKB || m.rssKB <= 0 {
		t.Fatalf("memory %+v: peak below current", m)
	}
}

func TestHistogramQuantile(t *testing.T) {
	const exposition = `# TYPE feedpoller_scheduler_lag_seconds histogram
feedpoller_scheduler_lag_seconds_bucket{le="0.1"} 10
feedpoller_scheduler_lag_seconds_bucket{le="0.5"} 50
feedpoller_scheduler_lag_seconds_bucket{le="1"} 90
feedpoller_scheduler_lag_seconds_bucket{le="5"} 100
feedpoller_scheduler_lag_seconds_bucket{le="+Inf"} 100
feedpoller_scheduler_lag_seconds_sum 42
feedpoller_scheduler_lag_seconds_count 100
`
	h, err := parseHistogram(strings.NewReader(exposition), "feedpoller_scheduler_lag_seconds")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, want float64 }{
		{0.05, 0.05}, // halfway through the first bucket
		{0.5, 0.5},   // exactly the 0.5 bound
		{0.7, 0.75},  // halfway from 0.5 to 1
		{0.99, 4.6},  // nine tenths of the way from 1 to 5
		{1.0, 5},
	} {
		if got := h.quantile(c.q); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("q%.2f = %v, want %v", c.q, got, c.want)
		}
	}
	earlier, _ := parseHistogram(strings.NewReader(strings.ReplaceAll(exposition, "} 100", "} 90")), "feedpoller_scheduler_lag_seconds")
	d := h.minus(earlier)
	if d.counts[len(d.counts)-1] != 10 || !math.IsNaN(histogram{}.quantile(0.5)) {
		t.Fatalf("difference %+v", d)
	}
	if got := d.quantile(0.5); got < 1 || got > 5 {
		t.Fatalf("median of the ten new observations (all in 1..5] is %v", got)
	}
	if _, err := parseHistogram(strings.NewReader("other_metric 1\n"), "feedpoller_scheduler_lag_seconds"); err == nil {
		t.Fatal("missing histogram parsed")
	}
}

func TestSumCounter(t *testing.T) {
	text := `# HELP feedpoller_polls_total Polls by source type and outcome.
# TYPE feedpoller_polls_total counter
feedpoller_polls_total{outcome="ok",source_type="rss"} 120
feedpoller_polls_total{outcome="not_modified",source_type="rss"} 30.5
feedpoller_polls_totally_other 7
feedpoller_poll_duration_seconds_count{source_type="rss"} 150
`
	got, err := sumCounter(strings.NewReader(text), "feedpoller_polls_total")
	if err != nil || got != 150.5 {
		t.Fatalf("sum %v, %v; want 150.5", got, err)
	}
}
