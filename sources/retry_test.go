package sources

import (
	"math"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	cases := []struct {
		base, limit time.Duration
		n           int
		want        time.Duration
	}{
		{time.Second, time.Minute, 0, time.Second},
		{time.Second, time.Minute, 3, 8 * time.Second},
		{time.Second, time.Minute, 6, time.Minute},
		{time.Second, time.Minute, 1000, time.Minute},
		{time.Hour, time.Minute, 2, time.Minute},
		{0, time.Minute, 3, 0},
	}
	for _, c := range cases {
		if got := Backoff(c.base, c.limit, c.n); got != c.want || got < 0 {
			t.Errorf("Backoff(%v, %v, %d) = %v, want %v", c.base, c.limit, c.n, got, c.want)
		}
	}
	// Without a real cap it stops doubling before it overflows.
	if got := Backoff(time.Second, math.MaxInt64, 100); got < math.MaxInt64/4 {
		t.Errorf("uncapped: %v, want a positive wait near the largest", got)
	}
}

// A retry waits half to one and a half times the doubled base, never
// more than one and a half times the cap.
func TestRetryWaitBounds(t *testing.T) {
	for attempt := 1; attempt <= 40; attempt++ {
		d := Backoff(100*time.Millisecond, MaxRetryBackoff, attempt-1)
		for range 50 {
			if w := RetryWait(100*time.Millisecond, attempt); w < d/2 || w > d*3/2 {
				t.Fatalf("attempt %d: wait %v outside [%v, %v]", attempt, w, d/2, d*3/2)
			}
		}
	}
	if w := RetryWait(-1, 3); w != 0 {
		t.Errorf("no base: wait %v, want none", w)
	}
}
