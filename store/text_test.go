package store

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTruncateKeepsRunes: a cut never splits a character, whatever byte
// the limit falls on, and never grows past the limit.
func TestTruncateKeepsRunes(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exact", 5, "exact"},
		{"abcdef", 3, "abc"},
		{"aé", 2, "a"},                 // é is 2 bytes: the limit falls inside it
		{"a€b", 3, "a"},                // € is 3 bytes
		{"a€b", 4, "a€"},               // the limit falls right after it
		{"漢字", 5, "漢"},                 // inside the second character
		{"🙂x", 3, ""},                  // inside a 4-byte character at the start
		{"é", 0, ""},                   // nothing fits
		{"\xff\xfeab", 3, "\xff\xfea"}, // invalid bytes are no rune to keep whole
	}
	for _, c := range cases {
		got := truncate(c.s, c.n)
		if got != c.want || len(got) > c.n {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
	// Every cut of a text mixing 1- to 4-byte characters stays valid.
	mixed := strings.Repeat("aé€🙂", 50)
	for n := 0; n <= len(mixed); n++ {
		if got := truncate(mixed, n); !utf8.ValidString(got) || len(got) > n || !strings.HasPrefix(mixed, got) {
			t.Fatalf("truncate(mixed, %d) = %q: not a valid prefix within the limit", n, got)
		}
	}
}

// TestClipKeepsRunes: what a refusal of `feedpoller sql` quotes of the
// query is cut on a character boundary too.
func TestClipKeepsRunes(t *testing.T) {
	long := strings.Repeat("a", 39) + "éé"
	got := clip(long)
	if !utf8.ValidString(got) || got != strings.Repeat("a", 39)+"…" {
		t.Errorf("clip(%q) = %q", long, got)
	}
	err := checkReadQuery(SQLite, "SELECT 1; "+long)
	if err == nil || !utf8.ValidString(err.Error()) {
		t.Errorf("refusal %q is not valid UTF-8", err)
	}
}
