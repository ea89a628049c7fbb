package memo

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestWordsRemembersAndStartsOver(t *testing.T) {
	calls := 0
	upper := func(s string) string { calls++; return strings.ToUpper(s) }
	w := NewWords(2)
	for _, word := range []string{"a", "b", "a", "b"} {
		if got := w.Of(word, upper); got != strings.ToUpper(word) {
			t.Fatalf("Of(%q) = %q", word, got)
		}
	}
	if calls != 2 {
		t.Errorf("%d calls for two words asked twice, want 2", calls)
	}
	w.Of("c", upper) // full: starts over with c
	w.Of("a", upper)
	if calls != 4 || len(w.words) != 2 {
		t.Errorf("after starting over: %d calls, %d words remembered", calls, len(w.words))
	}
	var none *Words[string]
	if got := none.Of("x", upper); got != "X" || calls != 5 {
		t.Errorf("nil Words: %q after %d calls", got, calls)
	}
}

func TestWordsConcurrentUse(t *testing.T) {
	w := NewWords(8)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				word := string(rune('a' + (g+i)%20))
				if got := w.Of(word, strings.ToUpper); got != strings.ToUpper(word) {
					t.Errorf("Of(%q) = %q", word, got)
				}
			}
		})
	}
	wg.Wait()
}

func TestOfManyIsOfForEach(t *testing.T) {
	calls := 0
	upper := func(s string) string { calls++; return strings.ToUpper(s) }
	w := NewWords(3)
	w.Of("a", upper)
	got := w.OfMany([]string{"a", "b", "c", "d", "b"}, upper)
	if want := []string{"A", "B", "C", "D", "B"}; !slices.Equal(got, want) {
		t.Fatalf("OfMany = %q, want %q", got, want)
	}
	// a was remembered; b, c, d, b computed (b twice: it was not yet
	// remembered when asked again within one call).
	if calls != 5 {
		t.Errorf("%d calls, want 5", calls)
	}
	if len(w.words) > 3 {
		t.Errorf("%d words remembered, the bound is 3", len(w.words))
	}
	var none *Words[string]
	if got := none.OfMany([]string{"x"}, upper); !slices.Equal(got, []string{"X"}) {
		t.Errorf("nil Words: %q", got)
	}
}

func TestOfBytesAsOf(t *testing.T) {
	calls := 0
	upper := func(s string) string { calls++; return strings.ToUpper(s) }
	w := NewWords(10)
	buf := []byte("ab")
	if got := w.OfBytes(buf, upper); got != "AB" || calls != 1 {
		t.Fatalf("OfBytes(ab) = %q after %d calls", got, calls)
	}
	copy(buf, "cd") // the word remembered is a copy of the buffer's
	if got := w.Of("ab", upper); got != "AB" || calls != 1 {
		t.Errorf("Of(ab) after OfBytes(ab) = %q after %d calls, want it remembered", got, calls)
	}
	if got := w.OfBytes(buf, upper); got != "CD" || calls != 2 {
		t.Errorf("OfBytes(cd) = %q after %d calls", got, calls)
	}
	var none *Words[string]
	if got := none.OfBytes([]byte("x"), upper); got != "X" {
		t.Errorf("nil Words: %q", got)
	}
}
