package poller_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/poller"
	"github.com/feedpoller/feedpoller/poller/pipeline"
)

// TestNewOptions: a zero field takes its default, a negative one means
// none where none is a setting, and the rest is refused naming the field.
func TestNewOptions(t *testing.T) {
	if _, err := poller.New(testOptions(&memStore{}, "ok")); err != nil {
		t.Fatalf("the defaults: %v", err)
	}
	if _, err := poller.New(poller.Options{Store: &memStore{}}); err != nil {
		t.Fatalf("zero options take the defaults: %v", err)
	}
	def := poller.DefaultOptions()
	if def.Workers != poller.DefaultWorkers || def.Lease != poller.DefaultLease || def.Pipeline.MinWords != pipeline.DefaultMinWords {
		t.Errorf("DefaultOptions %+v", def)
	}
	tests := []struct {
		name   string
		change func(*poller.Options)
		want   string
	}{
		{"no store", func(o *poller.Options) { o.Store = nil }, "a store is required"},
		{"bad schedule", func(o *poller.Options) { o.Schedule = "every minute" }, `Schedule "every minute"`},
		{"jitter over 1", func(o *poller.Options) { o.Jitter = 1.5 }, "Jitter 1.5 is above 1"},
		{"jitter NaN", func(o *poller.Options) { o.Jitter = math.NaN() }, "Jitter NaN is above 1"},
		{"negative workers", func(o *poller.Options) { o.Workers = -1 }, "Workers -1 is negative"},
		{"ceiling below floor", func(o *poller.Options) { o.Floor, o.Ceiling = time.Hour, time.Minute }, "Ceiling 1m0s is below Floor 1h0m0s"},
		{"pipeline", func(o *poller.Options) { o.Pipeline.MaxMarkdownBytes = -1 }, "MaxMarkdownBytes -1 is negative"},
		{"stories", func(o *poller.Options) { o.Pipeline.StoryOptions.Threshold = 2 }, "Threshold 2 is outside (0, 1]"},
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
	// None is a choice where it means something: no grace, no minimum,
	// no page fetches, no jitter.
	o := testOptions(&memStore{}, "none")
	o.ShutdownGrace, o.Pipeline.MinWords, o.Pipeline.MaxArticleFetches, o.Jitter = -1, -1, -1, -1
	if _, err := poller.New(o); err != nil {
		t.Fatalf("negatives that mean none: %v", err)
	}
}
