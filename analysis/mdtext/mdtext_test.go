package mdtext

import (
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testpages"
)

func TestIsListItem(t *testing.T) {
	for line, want := range map[string]bool{
		"- a": true, "* a": true, "+ a": true, "1. a": true, "12) a": true,
		"-a": false, "1.5 million": false, "2025. Then": true, "text": false, "1.": false,
	} {
		if got := IsListItem(line); got != want {
			t.Errorf("IsListItem(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestSkipParens(t *testing.T) {
	s := "[a](https://x.example/p_(b)) rest"
	if got := SkipParens(s, 3); s[got:] != " rest" {
		t.Errorf("SkipParens left %q", s[got:])
	}
	if got := SkipParens("(open", 0); got != 5 {
		t.Errorf("unclosed: %d", got)
	}
}

// OneLine returns most text as it is; whatever it returns must be what
// splitting at every Unicode space and joining with one space gives,
// for Unicode spaces, control characters, invalid UTF-8 and the lines of
// real pages.
func TestOneLineIsFieldsJoined(t *testing.T) {
	texts := []string{"", " ", "one", "two words", " lead", "trail ", "a  b", "tab\tin", "cr\rin", "nl\nin",
		"a\u00a0b", "a\u2003b", "a\u3000b", "a\u1680b", "a\u2028b", "\u0085next", "bad \xff\xfe byte \xe2\x80 cut",
		"a real \ufffd replacement", "Å and … and ü", "x\x7fy", "end\u202f",
		"“Quoted” — dash", "à la carte", "a\u200ab", "\u2009lead", "trail\u00a0", "ok\xc2", "\xe2\x80"}
	for _, text := range testpages.Read(t, "../..", testpages.Pages) {
		texts = append(texts, text)
		for l := range strings.Lines(text) {
			texts = append(texts, l, strings.TrimSpace(l))
		}
	}
	for _, s := range texts {
		if got, want := OneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("OneLine(%.60q) = %.60q, want %.60q", s, got, want)
		}
	}
}
