package fakeclock_test

import (
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/fakeclock"
)

func TestClockMovesOnlyWhenMoved(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := fakeclock.New(t0)
	if !c.Now().Equal(t0) {
		t.Fatalf("Now %v, want %v", c.Now(), t0)
	}
	c.Advance(time.Minute)
	if got := <-c.After(30 * time.Second); !got.Equal(t0.Add(90 * time.Second)) {
		t.Errorf("After gave %v, want 1m30s later", got)
	}
	if !c.Now().Equal(t0.Add(90 * time.Second)) {
		t.Errorf("Now %v after After, want 1m30s later", c.Now())
	}
	c.Set(t0)
	if !c.Now().Equal(t0) {
		t.Errorf("Set: Now %v, want %v", c.Now(), t0)
	}
}
