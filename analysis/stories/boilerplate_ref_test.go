package stories

import (
	"slices"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/analysis/mdtext"
)

// The furniture tests as first written, lower-casing each line to
// compare it: the reference the faster comparisons must agree with.

func referenceIsFurniture(line string) bool {
	if line == "" || moreWordsThan(line, maxFurnitureWords) {
		return false
	}
	l := strings.ToLower(strings.TrimLeft(line, "#>*_ "))
	if l == "…" || l == "[…]" || l == "[...]" || l == "..." {
		return true
	}
	for _, p := range boilerplatePrefixes {
		if strings.HasPrefix(l, p) {
			if (p == "by " || p == "updated " || p == "published " || p == "posted ") && moreWordsThan(l, 12) {
				continue
			}
			return true
		}
	}
	for _, c := range boilerplateContains {
		if strings.Contains(l, c) {
			return true
		}
	}
	return false
}

func referenceOpensRelatedBox(line string) bool {
	if moreWordsThan(line, 8) {
		return false
	}
	l := strings.ToLower(strings.TrimLeft(line, "#>*_ "))
	for _, p := range relatedPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

func referenceStripFurniture(markdown string) []string {
	var out []string
	inRelated := false
	for raw := range strings.Lines(markdown) {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if inRelated {
			if mdtext.IsListItem(line) {
				continue
			}
			inRelated = false
		}
		if referenceOpensRelatedBox(line) {
			inRelated = true
			continue
		}
		if referenceIsFurniture(line) {
			continue
		}
		out = append(out, line)
	}
	return out
}

// furnitureCorners are lines at the edges of the furniture tests: each
// pattern in other cases, at other places, with accents and letters whose
// lower case is longer or not ASCII.
var furnitureCorners = func() []string {
	var lines []string
	for _, ps := range [][]string{boilerplatePrefixes, boilerplateContains, relatedPrefixes} {
		for _, p := range ps {
			lines = append(lines, p, strings.ToUpper(p), strings.ToTitle(p[:1])+p[1:], "## "+p+" Tail",
				"> _"+strings.ToUpper(p)+" x", "Before "+p, "İ "+p, p+" Café", strings.TrimSpace(p),
				p+strings.Repeat(" word", 12), p+strings.Repeat(" word", 40))
		}
	}
	lines = append(lines, "…", "[…]", "[...]", "...", "..", "....", "* ...", "KİTAP", "ẞ share this",
		"Share\u0301 this", "SHARE THIS\xff", "\xffshare this", "#", "", "By", "BY JANE DOE", "Updated 3 March")
	// Lines about the size of the lower-case buffer, ASCII or not, short
	// or long in words; heads of markers that count as words; patterns
	// at the ends of a line and cut short there.
	for _, n := range []int{300, 340, 341, 342, 500, lowerBuffer - 1, lowerBuffer, lowerBuffer + 1, 3000} {
		for _, p := range []string{"Share this ", "All Rights Reserved ", "x ", ""} {
			long := p + strings.Repeat("X", n)
			lines = append(lines, long, long+" é", "é "+long, long[:len(long)-1]+"\xff", "## "+long)
		}
	}
	for _, n := range []int{7, 8, 9, 11, 12, 13, 39, 40, 41} {
		words := strings.Repeat(" word", n)
		lines = append(lines, "By"+words, "Related"+words, "# # #"+words, "#_#"+words, "* *"+words,
			"Word"+words+" all rights reserved", "Word"+words+" é", "Related"+words+"\tÉ", "###"+words,
			"# # # # # Share this"+words, "* _ # Related"+words, "> > Share this"+words+" é")
	}
	return append(lines, "all rights reserve", "ll rights reserved", "x all rights reserved", "in your inbo",
		"IN YOUR INBOX", "in your inbox", "editorial policy.", "may earn a commission", "may not be published, broadcas",
		"reserved all rights", "vvvv", "yyyy may", "© 2024", "©", "\xc2",
		// A capital whose lower case is ASCII (the Kelvin sign's is "k").
		"CLIC\u212A HERE", "Please clic\u212A here now", "Clic\u212A",
		// Runes that are their own lower case, or are not.
		"“Share this” — ‘now’", "\u00a9 2024 ALL RIGHTS RESERVED", "Ｓhare this", "share\uFFFD this", "Share\u00a0this",
		"Café: all rights reserved", "CAFÉ: ALL RIGHTS RESERVED", "Ⅻ photo: x", "ǅ by me")
}()

func TestFurnitureMatchesReference(t *testing.T) {
	lines := slices.Clone(furnitureCorners)
	texts := referenceTexts(t)
	for _, text := range texts {
		for l := range strings.Lines(text) {
			lines = append(lines, strings.TrimSpace(l))
		}
	}
	for _, l := range lines {
		if got, want := IsFurniture(l), referenceIsFurniture(l); got != want {
			t.Errorf("IsFurniture(%q) = %v, want %v", l, got, want)
		}
		if got, want := opensRelatedBox(l), referenceOpensRelatedBox(l); got != want {
			t.Errorf("opensRelatedBox(%q) = %v, want %v", l, got, want)
		}
	}
	texts["corners"] = strings.Join(furnitureCorners, "\n") + "\nRelated\n- a\n- b\nText"
	for name, text := range texts {
		if got, want := StripFurniture(text), referenceStripFurniture(text); !slices.Equal(got, want) {
			t.Errorf("%s: StripFurniture differs from the reference", name)
		}
	}
}

// BenchmarkIsFurniture: the story set's paragraphs, as the summary asks
// of each, through IsFurniture and through the reference.
func BenchmarkIsFurniture(b *testing.B) {
	var paras []string
	for _, a := range loadStorySet(b) {
		for _, p := range strings.Split(a.Markdown, "\n\n") {
			paras = append(paras, strings.Join(strings.Fields(p), " "))
		}
	}
	for name, f := range map[string]func(string) bool{"IsFurniture": IsFurniture, "reference": referenceIsFurniture} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range paras {
					f(p)
				}
			}
		})
	}
}
