package extract

import (
	"bytes"
	"html"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	xhtml "golang.org/x/net/html"
)

// TestSpecialCharactersRoundTrip renders the Markdown with a CommonMark
// renderer and checks that a reader sees exactly the page's text: "<",
// ">" and "&" neither lost to markup nor shown as entities or backslashes.
func TestSpecialCharactersRoundTrip(t *testing.T) {
	cases := []struct {
		name, text string
		// literal is what the Markdown must contain verbatim: the
		// character written as it is, not as an entity.
		literal string
	}{
		{"less than before a space", "1 < 2", "1 < 2"},
		{"less than before a digit", "x <3 y", "x <3 y"},
		{"greater than mid-line", "3 > 2", "3 > 2"},
		{"arrow", "x <- y -> z", "x <- y -> z"},
		{"ampersand", "AT&T & Co", "AT&T & Co"},
		{"tag-like text", "use <div> here", ""},
		{"closing tag", "end with </p> now", ""},
		{"comment-like", "a <!-- b --> c", ""},
		{"processing instruction", "a <?php ?> b", ""},
		{"autolink-like", "see <https://example.org> now", ""},
		{"email autolink-like", "mail <1news@example.org> now", ""},
		{"entity-like", "write &copy; or &#169; or &#xA9;", ""},
		{"escaped entity", "&amp; stays", ""},
		{"quote at line start", "> not a quote", ""},
		{"generics", "Map<K, V> & Set<T>", ""},
		{"backslash before lt", `a \<b`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			md, err := FragmentToMarkdown("<p>"+html.EscapeString(c.text)+"</p>", "")
			if err != nil {
				t.Fatal(err)
			}
			if c.literal != "" && md != c.literal {
				t.Errorf("Markdown %q, want %q", md, c.literal)
			}
			if strings.Contains(md, "&lt;") || strings.Contains(md, "&gt;") || strings.Contains(md, "&amp;amp;") {
				t.Errorf("Markdown %q writes a character as an entity", md)
			}
			if got := renderedText(t, md); got != c.text {
				t.Errorf("Markdown %q reads as %q, want %q", md, got, c.text)
			}
		})
	}
}

// renderedText renders md as CommonMark and returns its visible text.
func renderedText(t *testing.T, md string) string {
	t.Helper()
	var out bytes.Buffer
	if err := goldmark.Convert([]byte(md), &out); err != nil {
		t.Fatalf("render %q: %v", md, err)
	}
	doc, err := xhtml.Parse(&out)
	if err != nil {
		t.Fatalf("parse rendered %q: %v", out.String(), err)
	}
	return textContent(doc)
}

// TestSpecialCharactersHostile: long runs of the special characters
// convert in linear time and still read back as the page's text.
func TestSpecialCharactersHostile(t *testing.T) {
	for _, text := range []string{
		strings.Repeat(">", 5000),
		strings.Repeat("<a", 5000),
		strings.Repeat("&", 5000) + "amp;",
		"> " + strings.Repeat("> x ", 1000) + "end",
	} {
		md, err := FragmentToMarkdown("<p>"+html.EscapeString(text)+"</p>", "")
		if err != nil {
			t.Fatal(err)
		}
		if got := renderedText(t, md); got != text {
			t.Errorf("text of %d bytes reads back as %d bytes: %.40q…", len(text), len(got), got)
		}
	}
}

// TestHidingShortcutsAgree checks the byte scans that let text skip the
// replacers against what they stand for: needsHiding is false only where
// hideSpecials changes nothing, and hasSentinel agrees with looking for
// each hidden character.
func TestHidingShortcutsAgree(t *testing.T) {
	sentinels := string([]rune{sentinelLT, sentinelGT, sentinelAmp, sentinelStar})
	pieces := []string{"a", " ", "é", "<", ">", "&", "*", "\uFDD0", "\uFDD3", "\uFDCF", "\uFDD4", "\uFFFD",
		"\uFF0C", "\xef", "\xef\xb7", "\xb7\x90", "\xff", "\n", "字"}
	var check func(s string, depth int)
	check = func(s string, depth int) {
		if !needsHiding(s) && hideSpecials.Replace(s) != s {
			t.Errorf("needsHiding(%q) = false, but hideSpecials changes it", s)
		}
		if got, want := hasSentinel(s), strings.ContainsAny(s, sentinels); got != want {
			t.Errorf("hasSentinel(%q) = %v, want %v", s, got, want)
		}
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			check(s+p, depth-1)
		}
	}
	check("", 3)
}

// TestPlainSentenceMatchesConversion holds the shortcut for one line of
// plain prose to what the full conversion gives, Markdown and text, on
// random lines of the bytes it accepts and of a few it must refuse.
func TestPlainSentenceMatchesConversion(t *testing.T) {
	accepted := []string{"a", "Z", "q", "0", "7", "2026", " ", "  ", ",", ".", ";", ":", "?", "%", "/", "@",
		"1.", "1. ", "http://x.org/a", "a@b.c", "Mr.", "-", "--", " - ", "---", "'", "\"", "(", ")", "1)", " 1) ", "!",
		"+", " + ", "=", "==", "$", "(1)", "a-b", "don't", "é", "É", "ß", "’", "‘", "“", "”", "–", "—", "…", "«»",
		"東京", "Ａ", "٣", "Ω"}
	refused := []string{"#", "\n", "*", "<", "&", "\t", "_", "[", "]", "`", "\\", "\r", "\x00", "|", ">", "~",
		"\u00a0", "\u2003", "\u200b", "\ufdd0", "\ufdd3", "\ufeff", "\xff", "\xe2\x80", "©", "•"}
	rng := rand.New(rand.NewPCG(5, 6))
	took := 0
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(25) {
			if rng.IntN(50) == 0 {
				b.WriteString(refused[rng.IntN(len(refused))])
			} else {
				b.WriteString(accepted[rng.IntN(len(accepted))])
			}
		}
		s := b.String()
		plain, ok := plainSentence(s)
		if !ok {
			continue
		}
		took++
		md, text, err := convertParsed(s, "https://example.org/a/")
		if err != nil {
			t.Fatal(err)
		}
		if md != plain || text != plain {
			t.Fatalf("plainSentence(%q) = %q; the conversion gives Markdown %q, text %q", s, plain, md, text)
		}
	}
	if took < 2000 {
		t.Fatalf("only %d of the random lines took the shortcut", took)
	}
}
