package summary

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

type setArticle struct {
	ID, Kind, Title, Markdown string
}

// storySet loads the labelled story set of package stories: realistic
// news articles with site furniture.
func storySet(t testing.TB) []setArticle {
	t.Helper()
	b, err := os.ReadFile("../stories/testdata/storyset.json")
	if err != nil {
		t.Fatal(err)
	}
	var set struct{ Articles []setArticle }
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	return set.Articles
}

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"The U.S. Geological Survey said so. It hit at 3:12 a.m. local time.",
			[]string{"The U.S. Geological Survey said so.", "It hit at 3:12 a.m. local time."}},
		{"A magnitude 6.8 quake struck. Dr. Reyes and J. Smith said it was strong. \"It was long,\" she said. Then it stopped!",
			[]string{"A magnitude 6.8 quake struck.", "Dr. Reyes and J. Smith said it was strong.", "\"It was long,\" she said.", "Then it stopped!"}},
		{"Version 1.24.1 is out. 2 fixes are included.", []string{"Version 1.24.1 is out.", "2 fixes are included."}},
		{"no end mark", []string{"no end mark"}},
	} {
		if got := sentences(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("sentences(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestParagraphsKeepOnlyProse(t *testing.T) {
	md := "# Heading\n\nAdvertisement\n\nFirst **bold** paragraph with a [link](https://x.example/a) and ![img](i.png) an image.\n\n" +
		"```go\ncode := 1\n```\n\n| a | b |\n| --- | --- |\n\n- a list item\n\n> Quoted words stay.\n\n<div>html</div>\n\nSign up for our newsletter."
	got := paragraphs(md)
	want := []string{"First bold paragraph with a link and an image.", "Quoted words stay."}
	if !slices.Equal(got, want) {
		t.Fatalf("paragraphs =\n%q\nwant\n%q", got, want)
	}
}

// On every article of the story set the summary is a few whole
// sentences of the article, within the budget, without site furniture,
// and the same on every run.
func TestSummarizeStorySet(t *testing.T) {
	for _, a := range storySet(t) {
		s := Summarize(a.Markdown, Options{})
		if s == "" {
			t.Errorf("%s: empty summary", a.ID)
			continue
		}
		if len(s) > DefaultMaxChars {
			t.Errorf("%s: %d characters", a.ID, len(s))
		}
		if n := len(sentences(s)); n > DefaultMaxSentences {
			t.Errorf("%s: %d sentences: %q", a.ID, n, s)
		}
		for _, junk := range []string{"Sign up", "All rights reserved", "Advertisement", "Continue reading", "Read more", "[…]", "Related coverage", "https://", " | "} {
			if strings.Contains(s, junk) {
				t.Errorf("%s: summary holds %q: %q", a.ID, junk, s)
			}
		}
		if rest := madeOfSentences(s, a.Markdown); rest != "" {
			t.Errorf("%s: summary %q: %q is not made of the article's sentences", a.ID, s, rest)
		}
		if again := Summarize(a.Markdown, Options{}); again != s {
			t.Errorf("%s: second run differs", a.ID)
		}
	}
}

// madeOfSentences consumes summary sentence by sentence of the article
// and returns what is left ("" when all of it is the article's).
func madeOfSentences(summary, markdown string) string {
	var all []string
	for _, p := range paragraphs(markdown) {
		all = append(all, sentences(p)...)
	}
	rest := summary
	for rest != "" {
		found := false
		for _, s := range all {
			if strings.HasPrefix(rest, s) {
				rest, found = strings.TrimSpace(rest[len(s):]), true
				break
			}
		}
		if !found {
			return rest
		}
	}
	return ""
}

// The lead and the sentences that carry the article's recurring facts are
// chosen over asides.
func TestSummarizePrefersCentralSentences(t *testing.T) {
	md := `A magnitude 6.8 earthquake struck off central Chile on Tuesday, shaking buildings in Santiago and Valparaíso.

The earthquake hit at a depth of 31 kilometres west of Valparaíso, and the navy said the earthquake would not cause a tsunami.

Ms. Reyes, a nurse, said her cat hid under the sofa for an hour.

Power was cut to 120,000 homes in Valparaíso after the earthquake, and schools in the Valparaíso region stayed closed.

Local football fixtures at the weekend were not affected.`
	got := Summarize(md, Options{})
	for _, want := range []string{"A magnitude 6.8 earthquake", "depth of 31", "120,000 homes"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q: %q", want, got)
		}
	}
	for _, aside := range []string{"cat", "football"} {
		if strings.Contains(got, aside) {
			t.Errorf("summary holds the aside %q: %q", aside, got)
		}
	}
}

func TestSummarizeFallsBackToFirstParagraph(t *testing.T) {
	md := "Short note about one thing happening today in town.\n\nA second paragraph of a different nature entirely here."
	if got, want := Summarize(md, Options{}), "Short note about one thing happening today in town."; got != want {
		t.Fatalf("got %q, want the first paragraph %q", got, want)
	}
}

func TestSummarizeBudgets(t *testing.T) {
	long := strings.Repeat("word ", 60) + "end."
	if got := Summarize(long, Options{MaxChars: 50}); len(got) > 50 || !strings.HasSuffix(got, "…") {
		t.Fatalf("cut summary %q (%d bytes), want ≤ 50 ending in …", got, len(got))
	}
	if got := Summarize("", Options{}); got != "" {
		t.Fatalf("empty input: %q", got)
	}
	if got := Summarize("# Only a heading\n\n![img](x.png)", Options{}); got != "" {
		t.Fatalf("no prose: %q", got)
	}
	arts := storySet(t)
	one := Summarize(arts[0].Markdown, Options{MaxSentences: 1})
	if n := len(sentences(one)); n != 1 {
		t.Fatalf("MaxSentences 1 gave %d sentences: %q", n, one)
	}
}

// BenchmarkSummarize measures the cost per article against its size
// (MB/s: throughput; compare ns/op across sizes).
//
//	go test -run XXX -bench Summarize ./summary/
func BenchmarkSummarize(b *testing.B) {
	arts := storySet(b)
	var paras []string
	for _, a := range arts {
		if a.Kind == "original" {
			paras = append(paras, strings.Split(a.Markdown, "\n\n")...)
		}
	}
	for _, words := range []int{200, 1000, 5000, 20000} {
		var sb strings.Builder
		n := 0
		for i := 0; n < words; i++ {
			p := paras[i%len(paras)]
			sb.WriteString(p)
			sb.WriteString("\n\n")
			n += len(strings.Fields(p))
		}
		text := sb.String()
		b.Run(fmt.Sprintf("words=%d", words), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if Summarize(text, Options{}) == "" {
					b.Fatal("empty")
				}
			}
		})
	}
}
