package mdtext

import "testing"

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
