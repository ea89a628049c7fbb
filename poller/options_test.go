package poller_test

import (
	"math"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/poller"
)

// TestNewRefusesUnusableOptions: New takes the options it is given or
// says what is wrong with them; it fills in no defaults (those are
// DefaultOptions).
func TestNewRefusesUnusableOptions(t *testing.T) {
	if _, err := poller.New(testOptions(&memStore{}, "ok")); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	_, err := poller.New(poller.Options{Store: &memStore{}})
	for _, want := range []string{`Schedule ""`, "Workers must be more than 0", "BatchSize must be more than 0",
		"Lease must be more than 0", "MaxBackoff must be more than 0", "UnconditionalEvery must be more than 0",
		"MaxMarkdownBytes must be more than 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("zero options: err %v, want it to say %q", err, want)
		}
	}
	tests := []struct {
		name   string
		change func(*poller.Options)
		want   string
	}{
		{"no store", func(o *poller.Options) { o.Store = nil }, "a store is required"},
		{"bad schedule", func(o *poller.Options) { o.Schedule = "every minute" }, `Schedule "every minute"`},
		{"jitter over 1", func(o *poller.Options) { o.Jitter = 1.5 }, "Jitter 1.5 must be between 0 and 1"},
		{"jitter NaN", func(o *poller.Options) { o.Jitter = math.NaN() }, "Jitter NaN must be between 0 and 1"},
		{"negative grace", func(o *poller.Options) { o.ShutdownGrace = -1 }, "ShutdownGrace -1ns is negative"},
		{"negative min words", func(o *poller.Options) { o.MinWords = -1 }, "MinWords -1 is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testOptions(&memStore{}, "x")
			tt.change(&o)
			if _, err := poller.New(o); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
		})
	}
	// Zero is a choice, not a gap, where it means something: no grace,
	// no minimum, no page fetches, no jitter.
	o := testOptions(&memStore{}, "zeros")
	o.ShutdownGrace, o.MinWords, o.MaxArticleFetches, o.Jitter = 0, 0, 0, 0
	if _, err := poller.New(o); err != nil {
		t.Fatalf("zeros that mean something: %v", err)
	}
}
