package feedfarm

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

// body renders the HTML body of item k of feed n.
func body(f *Farm, n, k int) string {
	var buf bytes.Buffer
	f.writeBody(&buf, "http://farm.test", n, k)
	return buf.String()
}

// wordsOf splits text into its words, markup and digits aside.
func wordsOf(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
}

// names are the capitalised words of s that do not open a sentence.
func names(s string) map[string]bool {
	out := map[string]bool{}
	ws := strings.Fields(s)
	for i, w := range ws {
		if i == 0 || strings.HasSuffix(ws[i-1], ".") || strings.HasSuffix(ws[i-1], ">") {
			continue
		}
		w = strings.TrimRight(w, ".")
		if w != "" && unicode.IsUpper(rune(w[0])) && !strings.ContainsAny(w, "<>") {
			out[w] = true
		}
	}
	return out
}

// textOf is the text of an HTML body less its markup and the link
// sentence every item has.
func textOf(html string) string {
	var b strings.Builder
	in := false
	for _, r := range html {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.ReplaceAll(b.String(), "See the earlier report and a related story.", "")
}

// shingles are the runs of five words of the prose of an HTML body.
func shingles(html string) map[string]bool {
	ws := wordsOf(textOf(html))
	out := map[string]bool{}
	for i := 0; i+5 <= len(ws); i++ {
		out[strings.Join(ws[i:i+5], " ")] = true
	}
	return out
}

func shared(a, b map[string]bool) int {
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return n
}

// TestNewsEventsSharedAcrossFeeds checks the event model on a farm of
// 2 000 feeds: a few events are reported by many feeds, most by one or
// two; reports of one event are published close together, share the
// event's names and hardly any word sequence; reports of other events of
// the same hours do not have those names.
func TestNewsEventsSharedAcrossFeeds(t *testing.T) {
	f := New(Options{Feeds: 2000, Seed: 3, Text: TextNews})
	type report struct{ n, k int }
	reports := map[eventKey][]report{}
	for n := range 2000 {
		for k := range 20 {
			key := f.eventKeyOf(n, k)
			reports[key] = append(reports[key], report{n, k})
		}
	}
	var sizes []int
	small := 0
	var biggest eventKey
	for key, rs := range reports {
		sizes = append(sizes, len(rs))
		if len(rs) <= 2 {
			small++
		}
		if len(rs) > len(reports[biggest]) {
			biggest = key
		}
		first, last := f.published(rs[0].n, rs[0].k), f.published(rs[0].n, rs[0].k)
		for _, r := range rs[1:] {
			p := f.published(r.n, r.k)
			if p.Before(first) {
				first = p
			}
			if p.After(last) {
				last = p
			}
		}
		if last.Sub(first) >= eventLife {
			t.Fatalf("event %v reported from %v to %v, longer than %v", key, first, last, eventLife)
		}
	}
	slices.Sort(sizes)
	t.Logf("%d events for %d items; reports of the largest: %v; of one or two: %d", len(reports), 2000*20,
		sizes[len(sizes)-10:], small)
	if big := sizes[len(sizes)-1]; big < 20 {
		t.Errorf("the largest event has %d reports, want a few events reported by many feeds (20 or more)", big)
	}
	if small*2 < len(reports) {
		t.Errorf("%d of %d events have one or two reports, want most", small, len(reports))
	}

	// Two reports of the biggest event from different feeds, and a report
	// of another event of the same slot.
	rs := reports[biggest]
	a := rs[0]
	var b report
	for _, r := range rs[1:] {
		if r.n != a.n {
			b = r
			break
		}
	}
	var other report
	found := false
	for key, ors := range reports {
		if key.slot == biggest.slot && key != biggest {
			other, found = ors[0], true
			break
		}
	}
	if !found {
		t.Fatal("no other event in the biggest event's slot")
	}
	ba, bb, bo := body(f, a.n, a.k), body(f, b.n, b.k), body(f, other.n, other.k)
	na, nb, no := names(ba), names(bb), names(bo)
	if s := shared(na, nb); s < 3 {
		t.Errorf("two reports of one event share %d names (%v and %v), want its names", s, na, nb)
	}
	if s, so := shared(na, nb), shared(na, no); so*3 > s {
		t.Errorf("reports of different events share %d names, of one event %d: want far fewer", so, s)
	}
	sa, sb := shingles(ba), shingles(bb)
	if s := shared(sa, sb); s*50 > len(sa) {
		t.Errorf("two write-ups of one event share %d of %d five-word sequences, want few", s, len(sa))
	}
}

// TestNewsWordsFollowZipf fits the rank/frequency law of the general words
// of 400 bodies: log frequency against log rank, ranks 10 to 2 000, has a
// slope near −1; "the" is a few per cent of the words; the vocabulary is
// large.
func TestNewsWordsFollowZipf(t *testing.T) {
	f := New(Options{Feeds: 200, Seed: 11, Text: TextNews})
	counts := map[string]int{}
	total := 0
	for n := range 200 {
		for k := range 2 {
			for _, w := range wordsOf(body(f, n, k)) {
				if unicode.IsUpper(rune(w[0])) {
					continue // names and sentence openings
				}
				counts[w]++
				total++
			}
		}
	}
	freq := make([]int, 0, len(counts))
	for _, c := range counts {
		freq = append(freq, c)
	}
	slices.Sort(freq)
	slices.Reverse(freq)
	var sx, sy, sxx, sxy, m float64
	for rank := 10; rank <= 2000 && rank <= len(freq); rank++ {
		x, y := math.Log(float64(rank)), math.Log(float64(freq[rank-1]))
		sx, sy, sxx, sxy, m = sx+x, sy+y, sxx+x*x, sxy+x*y, m+1
	}
	slope := (m*sxy - sx*sy) / (m*sxx - sx*sx)
	the := float64(counts["the"]) / float64(total)
	t.Logf("%d words, %d distinct; slope %.2f; \"the\" %.1f %%", total, len(counts), slope, the*100)
	if slope < -1.3 || slope > -0.7 {
		t.Errorf("rank/frequency slope %.2f, want about −1", slope)
	}
	if the < 0.03 || the > 0.09 {
		t.Errorf("\"the\" is %.1f %% of words, want a few per cent", the*100)
	}
	if len(counts) < 8000 {
		t.Errorf("%d distinct words, want a vocabulary of tens of thousands", len(counts))
	}
}

// TestPseudoWordsAreDistinct checks that every general word has its own
// spelling, so the Zipf law is over as many words as it says.
func TestPseudoWordsAreDistinct(t *testing.T) {
	seen := make(map[string]int, newsVocab)
	for i := range newsVocab {
		w := string(appendGeneral(nil, i))
		if j, ok := seen[w]; ok {
			t.Fatalf("words %d and %d are both %q", j, i, w)
		}
		seen[w] = i
	}
}

// TestEventsScaleWithTheFarm checks that a farm publishing more items an
// hour gets more events an hour, so that reports per event do not depend
// on the number of feeds.
func TestEventsScaleWithTheFarm(t *testing.T) {
	small := eventsPerSlot(Options{Feeds: 200, ItemsPerFeed: 20, DateSpread: 30 * 24 * time.Hour})
	big := eventsPerSlot(Options{Feeds: 2000, ItemsPerFeed: 20, DateSpread: 30 * 24 * time.Hour})
	recent := eventsPerSlot(Options{Feeds: 2000, ItemsPerFeed: 20, DateSpread: 24 * time.Hour})
	if !(small < big && big < recent) || big < 9*small || big > 11*small {
		t.Errorf("events per slot: 200 feeds %d, 2 000 feeds %d, 2 000 feeds over a day %d", small, big, recent)
	}
	if one := eventsPerSlot(Options{Feeds: 1, ItemsPerFeed: 1, DateSpread: 30 * 24 * time.Hour}); one != 1 {
		t.Errorf("a farm of one item has %d events per slot, want 1", one)
	}
}
