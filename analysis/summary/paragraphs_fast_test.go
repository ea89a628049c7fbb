package summary

import (
	"strings"
	"testing"
)

// teaserCutSlow is how trimTeaser found a teaser marker before it searched
// the paragraph's tail only: the last occurrence in the whole text,
// followed by at most 8 words.
func teaserCutSlow(p, marker string) int {
	if i := strings.LastIndex(p, marker); i >= 0 && len(strings.Fields(p[i:])) <= 8 {
		return i
	}
	return -1
}

// TestTailSearchesAgreeWithWholeText: the space collapse (OneLine) equals
// strings.Join(strings.Fields(s), " ") and the tail search finds the
// marker the search of the whole paragraph found, for texts with Unicode
// spaces, invalid UTF-8, markers glued to words and markers just outside
// the last eight words.
func TestTailSearchesAgreeWithWholeText(t *testing.T) {
	texts := []string{
		"", " ", "one", "  lead  and\ttrail \n", "a\u00a0b\u2003c\u3000d", "bad \xff\xfe byte \xe2\x80 cut",
		"a real \ufffd replacement", "The council met on Tuesday. It voted to close the bridge […]",
		"The council met. It voted on one two three four five six seven eight… Read more",
		"word… one two three four five six seven eight", "word … one two three four five six seven eight",
		"… one two three four five six seven eight nine", "Read more Read more Read more",
		"x...y... and so on", "Continue reading\u00a0→", "\u0085next", "a\u2028b", "a\u1680b", "tab\tin", "cr\rin", strings.Repeat("long paragraph text ", 200) + "[...] Keep reading",
	}
	for _, s := range texts {
		if got, want := OneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", s, got, want)
		}
		for _, e := range teaserEnds {
			if got, want := teaserCut(s, tailWords(s, 8), e), teaserCutSlow(s, e); got != want {
				t.Errorf("marker %q in %q: tail search found %d, the whole text %d", e, s, got, want)
			}
		}
	}
}
