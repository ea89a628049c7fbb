package main

import (
	"math"
	"testing"
)

// Four articles of event A and two of B in three stories: {a1 a2 b1}
// {a3 a4} {b2}. Pairs: 2 true of 4 predicted, 2 of 7 true pairs found;
// B³ as worked out by hand.
func TestScore(t *testing.T) {
	ev := []string{"A", "A", "B", "A", "A", "B"}
	arts := make([]article, len(ev))
	for i, e := range ev {
		arts[i].Event = e
	}
	story := []int64{1, 1, 1, 2, 2, 3}
	s := score(arts, story, func(int) bool { return true })
	want := scores{TP: 2, FP: 2, FN: 5}
	if s.TP != want.TP || s.FP != want.FP || s.FN != want.FN {
		t.Fatalf("pairs tp=%d fp=%d fn=%d, want tp=%d fp=%d fn=%d", s.TP, s.FP, s.FN, want.TP, want.FP, want.FN)
	}
	// B³ precision: a1, a2: 2/3; b1: 1/3; a3, a4: 1; b2: 1 → 5.6667/6.
	// B³ recall: a1, a2: 2/4; b1: 1/2; a3, a4: 2/4; b2: 1/2 → 3/6.
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"B³ precision", s.B3P, (2.0/3*2 + 1.0/3 + 3) / 6}, {"B³ recall", s.B3R, 0.5}, {"pairwise precision", s.P, 0.5}, {"pairwise recall", s.R, 2.0 / 7}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %.4f, want %.4f", c.name, c.got, c.want)
		}
	}
	// Scored on event B alone, the story that mixes b1 with A counts its
	// A articles as false pairs of B.
	b := score(arts, story, func(i int) bool { return ev[i] == "B" })
	if b.FP != 2 || b.TP != 0 || b.FN != 1 {
		t.Errorf("split B: tp=%d fp=%d fn=%d, want tp=0 fp=2 fn=1", b.TP, b.FP, b.FN)
	}
}
