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
		// Titles before a name, also after a hyphen.
		{"Two climbers died in the Aoraki-Mt. Cook National Park on Saturday. Rescuers found them.",
			[]string{"Two climbers died in the Aoraki-Mt. Cook National Park on Saturday.", "Rescuers found them."}},
		{"\u201cWe have no idea,\u201d the Rev. Larry Kroon said. Police Const. Tim Fanning agreed, as did Dist. Atty. Steve Cooley.",
			[]string{"\u201cWe have no idea,\u201d the Rev. Larry Kroon said.", "Police Const. Tim Fanning agreed, as did Dist. Atty. Steve Cooley."}},
		// Before a figure.
		{"He wore No. 3 until Jan. 5 this year. Case No. VA089897 was filed.",
			[]string{"He wore No. 3 until Jan. 5 this year.", "Case No. VA089897 was filed."}},
		// Abbreviations and initials end a sentence only before a word
		// that starts one.
		{"The U.S. Navy said so. Pirates attacked near the U.S. The navy responded.",
			[]string{"The U.S. Navy said so.", "Pirates attacked near the U.S.", "The navy responded."}},
		{"President George W. Bush spoke. Rep. Nick Rahall, D-W.Va. said members agreed.",
			[]string{"President George W. Bush spoke.", "Rep. Nick Rahall, D-W.Va. said members agreed."}},
		{"It began at 4 p.m. Friday in Palmer. It ended at 6 p.m. The building was lost.",
			[]string{"It began at 4 p.m. Friday in Palmer.", "It ended at 6 p.m.", "The building was lost."}},
		{"HP will buy EYP Mission Critical Facilities Inc. (EYP MCF), a design firm. Terms were not disclosed.",
			[]string{"HP will buy EYP Mission Critical Facilities Inc. (EYP MCF), a design firm.", "Terms were not disclosed."}},
		{"It moved to Austin, Texas, from Calif. In 2020 it grew.", []string{"It moved to Austin, Texas, from Calif.", "In 2020 it grew."}},
		// A quoted question and its attribution are one sentence.
		{"\u201cWould we have done it without him?\u201d Colts interim coach Bruce Arians asked. Nobody answered.",
			[]string{"\u201cWould we have done it without him?\u201d Colts interim coach Bruce Arians asked.", "Nobody answered."}},
		{"\u201cIs it over?\u201d The crowd was silent.", []string{"\u201cIs it over?\u201d", "The crowd was silent."}},
		// Names with periods inside and decimals have no space after the
		// period.
		{"Node.js 22.1 ships today. Amazon.com. The shop reopened.", []string{"Node.js 22.1 ships today.", "Amazon.com.", "The shop reopened."}},
		{"Runs   of\nwhite space count once. Yes.", []string{"Runs of white space count once.", "Yes."}},
	} {
		if got := Sentences(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Sentences(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
		if got := FirstSentence(tc.in); got != tc.want[0] {
			t.Errorf("FirstSentence(%q) = %q, want %q", tc.in, got, tc.want[0])
		}
	}
}

func TestIsDateStamp(t *testing.T) {
	for in, want := range map[string]bool{
		"Published: 09th June 2013": true,
		"May 3, 2013 at 7:31 AM ET": true,
		"PUBLISHED: 02:31 GMT, 12 March 2013 | UPDATED: 22:19 GMT, 12 March 2013": true,
		"Published : 2012 . 08 . 08 09 : 01 AM":                                   true,
		"updated 8:41 p.m. EST, Tue March 3, 2009":                                true,
		"Published: 09 Sep 2013 11:25 GMT+02:00":                                  true,
		"Sunday, 21 July 2013":                                                    true,
		"Published on Friday":                                                     false, // no figure
		"On May 3, police said 12 people were hurt.":                              false,
		"Lindsay Lohan checks into Betty Ford Center":                             false,
		"": false,
	} {
		if got := IsDateStamp(in); got != want {
			t.Errorf("IsDateStamp(%q) = %v, want %v", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"PUBLISHED: 02:31 GMT, 12 March 2013 | UPDATED: 22:19 GMT, 12 March 2013 An orderly protest turned violent.": "An orderly protest turned violent.",
		"Published May 03, 2013. It seems Lohan has had enough.":                                                     "It seems Lohan has had enough.",
		"On May 3, 2013 police said so.":                                                                             "On May 3, 2013 police said so.",
		"Last week the council met.":                                                                                 "Last week the council met.",
	} {
		if got := stripDateStamp(in); got != want {
			t.Errorf("stripDateStamp(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDependsOnEarlier(t *testing.T) {
	for in, want := range map[string]bool{
		"Now, after guiding the Colts back, Manning rests.":             true,
		"However, the navy said no ship was lost.":                      true,
		"In addition to the 12 Somali suspects, two boats were seized.": true,
		"He did not say what Reid was treated for.":                     true,
		"\u201cThey were fleeing,\u201d a sailor said.":                 true,
		"This is the region where ships are seized.":                    true,
		"Meanwhile US officials called for patrols.":                    true,
		"This week, the navy captured 23 pirates.":                      false,
		"Now in its tenth year, the festival grew.":                     false,
		"So far 12 people have been rescued.":                           false,
		"The Indian navy captured 23 pirates on Saturday.":              false,
		"Hewlett-Packard bought EYP.":                                   false,
		"Theirs was a long road, the coach said.":                       true,
		"There were no reports of injuries.":                            false,
	} {
		if got := DependsOnEarlier(in); got != want {
			t.Errorf("DependsOnEarlier(%q) = %v, want %v", in, got, want)
		}
	}
}

// A page whose dateline stands above a short text: the summary is the
// text, never the date stamp (the first paragraph used to be taken as it
// was when centrality could not choose).
func TestSummarizeNeverOnlyADateStamp(t *testing.T) {
	for _, md := range []string{
		"Published: 09th June 2013\n\nTwo climbers died on Mount Sefton on Saturday.",
		"May 3, 2013 at 7:31 AM ET\n\nLindsay Lohan checked into the Betty Ford Center late Thursday.\n\nHer lawyer confirmed it.",
		"PUBLISHED: 02:31 GMT, 12 March 2013 | UPDATED: 22:19 GMT, 12 March 2013 An orderly protest over the shooting turned violent.",
	} {
		got := Summarize(md, Options{})
		if got == "" || IsDateStamp(got) || strings.Contains(got, "2013") {
			t.Errorf("Summarize(%q) = %q, want the text without its date stamp", md, got)
		}
	}
	if got := Summarize("Published: 09th June 2013\n\nUpdated: 10th June 2013", Options{}); got != "" {
		t.Errorf("date stamps alone: %q, want no summary", got)
	}
}

// The most central sentence opens with "Now," and leans on what came
// before it: the summary opens with another sentence. The article's own
// first sentence may open with anything.
func TestSummarizeOpensWithAnIndependentSentence(t *testing.T) {
	md := `Fans waited in the rain outside the stadium for hours.

Tickets had sold out early in the week.

Now, after guiding the Colts back from a 1-4 start, Manning and the Colts clinched a playoff spot by beating the Jaguars.

Manning threw two touchdown passes as the Colts beat the Jaguars.

The Colts clinched the playoff spot with the win over the Jaguars.

Manning and the Colts face the Titans next.`
	got := Summarize(md, Options{MaxSentences: 1})
	if DependsOnEarlier(got) || got == "" {
		t.Fatalf("summary %q opens with a sentence that depends on an earlier one", got)
	}
	if all := Summarize(md, Options{}); DependsOnEarlier(all) {
		t.Fatalf("summary %q opens with a sentence that depends on an earlier one", all)
	}
	lead := "It seems Lindsay Lohan has had enough of lawyer Mark Heller and rehired lawyer Shawn Holley. Lohan rehired Holley on Thursday, a publicist said. Holley represented Lohan in court before Heller did. The court hearing is on Friday."
	if got := Summarize(lead, Options{}); !strings.HasPrefix(got, "It seems") {
		t.Errorf("summary %q: the article's first sentence may open it", got)
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

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                         "",
		"already one line":         "already one line",
		"  padded  ":               "padded",
		"two  spaces":              "two spaces",
		"tab\tand\nnewline":        "tab and newline",
		"no\u00a0break space":      "no break space",
		"em\u2003space and … dots": "em space and … dots",
		"accents stay: café":       "accents stay: café",
	} {
		if got := OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
