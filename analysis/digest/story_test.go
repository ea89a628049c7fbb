package digest

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

var testNow = time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)

// testArticle is an article of a fixture story, reported at.
func testArticle(id int64, url string, tier model.Tier, relevance float64, at time.Time, title, summary string) model.DigestArticle {
	return model.DigestArticle{ID: id, URL: url, Title: title, Summary: summary, SourceID: id, Tier: tier, Relevance: relevance,
		PublishedAt: &at, StoredAt: at.Add(time.Minute)}
}

// A story six sites carry outranks a one-article fragment whose article
// alone ranks best, and of two like stories the one reported later in
// the window comes first: the order is the stories', not their best
// articles'.
func TestStoriesOrderedByImportance(t *testing.T) {
	start, end := testNow.Add(-23*time.Hour), testNow.Add(-time.Hour)
	var wide []model.DigestArticle
	for i, site := range []string{"a", "b", "c", "d", "e", "f"} {
		wide = append(wide, testArticle(int64(10+i), "https://"+site+".example/quake", model.TierGeneral, 0.5, end.Add(time.Duration(i)*time.Minute),
			"Quake strikes off Chile", "A magnitude 6.8 earthquake struck off Chile on Tuesday."))
	}
	in := Input{
		Window: Window{Since: testNow.Add(-24 * time.Hour), Until: testNow}, GeneratedAt: testNow,
		Stories: []Story{
			{ID: 1, Articles: []model.DigestArticle{testArticle(1, "https://news.example/rates", model.TierAuthoritative, 1, end,
				"Central bank raises rates", "The central bank raised its rate to 4.75 percent.")}},
			{ID: 2, Articles: []model.DigestArticle{
				testArticle(2, "https://news.example/strike-early", model.TierAuthoritative, 0.6, start, "Port strike begins", "Dock workers walked out at dawn."),
				testArticle(3, "https://other.example/strike-early", model.TierAuthoritative, 0.6, start, "Port strike", "Dock workers walked out."),
			}},
			{ID: 3, Articles: []model.DigestArticle{
				testArticle(4, "https://news.example/strike-late", model.TierAuthoritative, 0.6, end, "Rail strike begins", "Train drivers walked out at noon."),
				testArticle(5, "https://other.example/strike-late", model.TierAuthoritative, 0.6, end, "Rail strike", "Train drivers walked out."),
			}},
			{ID: 4, Articles: wide},
		},
	}
	d := Build(in, Options{})
	var got []int64
	for _, s := range d.Stories {
		got = append(got, s.ID)
	}
	if want := []int64{4, 3, 1, 2}; !slicesEqual(got, want) {
		for _, s := range d.Stories {
			t.Logf("story %d: importance %.3f, rank %.3f, confidence %.3f, %d sources", s.ID, s.Importance, s.Rank, s.Confidence, s.SourceCount)
		}
		t.Fatalf("order %v, want %v: the widely carried story first, the later of two like stories before the earlier", got, want)
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// pirates is one story: a live page reported it first and ranks best
// (relevance 1), but the report that shares most with the others tells
// it; the wire copy is cut at no abbreviation.
func pirates() Story {
	at := testNow.Add(-3 * time.Hour)
	return Story{ID: 7, Articles: []model.DigestArticle{
		testArticle(1, "https://live.example/blog", model.TierGeneral, 1, at,
			"Live: the day at sea", "Follow our live coverage of the day's shipping news from the Gulf of Aden."),
		testArticle(2, "https://daily.example/pirates", model.TierCommunity, 0.6, at.Add(20*time.Minute),
			"Navy captures pirates", "The Indian navy captured 23 pirates who attacked the merchant ship MV Gibe."),
		testArticle(3, "https://wire.example/pirates", model.TierAuthoritative, 0.6, at.Add(40*time.Minute),
			"Indian navy captures 23 pirates in the Gulf of Aden",
			"The Indian navy handed 23 pirates who attacked the merchant ship MV Gibe in the Gulf of Aden to the U.S. Navy on Saturday. Dr. Reyes of the navy said no one was hurt."),
	}}
}

// The story's title and summary are its most representative article's:
// the one closest to the others (the wire report), not the best-ranked
// one (the live page); of two articles, the more reliable one; never a
// summary that is only a date stamp.
func TestStoryToldByItsMostRepresentativeArticle(t *testing.T) {
	d := Build(Input{Window: Window{Since: testNow.Add(-24 * time.Hour), Until: testNow}, GeneratedAt: testNow, Stories: []Story{pirates()}}, Options{})
	s := d.Stories[0]
	if s.Title != "Indian navy captures 23 pirates in the Gulf of Aden" || !strings.HasPrefix(s.Summary, "The Indian navy handed") ||
		s.Sources[s.Quoted].URL != "https://wire.example/pirates" || !s.Sources[s.Quoted].Quoted {
		t.Fatalf("story told by %q: %q (quoted %d of %+v), want the wire report", s.Title, s.Summary, s.Quoted, s.Sources)
	}
	if !s.Sources[0].First || s.Sources[0].URL != "https://live.example/blog" {
		t.Errorf("first reporter %+v, want the live page still first", s.Sources[0])
	}

	at := testNow.Add(-time.Hour)
	two := Build(Input{Window: Window{Since: testNow.Add(-24 * time.Hour), Until: testNow}, GeneratedAt: testNow, Stories: []Story{
		{ID: 1, Articles: []model.DigestArticle{
			testArticle(1, "https://blog.example/a", model.TierGeneral, 1, at, "Blog: quake", "A quake struck off Chile, a blog says."),
			testArticle(2, "https://usgs.gov/b", model.TierOfficial, 0.5, at.Add(time.Minute), "M6.8 off Chile", "A magnitude 6.8 earthquake struck off Chile."),
		}},
		{ID: 2, Articles: []model.DigestArticle{
			testArticle(3, "https://agency.gov/c", model.TierOfficial, 1, at, "Rates rise", "Published: 09th June 2013"),
			testArticle(4, "https://paper.example/d", model.TierGeneral, 0.5, at.Add(time.Minute), "Bank raises rates", "The bank raised its rate to 4.75 percent."),
		}},
	}}, Options{})
	for _, s := range two.Stories {
		want := map[int64]string{1: "M6.8 off Chile", 2: "Bank raises rates"}[s.ID]
		if s.Title != want || s.Summary == "" || strings.Contains(s.Summary, "Published") {
			t.Errorf("story %d told by %q: %q, want %q", s.ID, s.Title, s.Summary, want)
		}
	}
}

// Each compact line cites first the article it quotes, quotes that
// article's first sentence whole (not cut at "U.S."), and counts the rest
// as "1 more article".
func TestCompactCitesWhatItQuotes(t *testing.T) {
	d := Build(Input{Workspace: Workspace{ID: 1, Name: "sea"}, Window: Window{Since: testNow.Add(-24 * time.Hour), Until: testNow},
		GeneratedAt: testNow, SourcesAnalyzed: 3, Stories: []Story{pirates()}}, Options{})
	out, err := Compact(d, DefaultMaxTokens, cl100k(t))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^1\. .*$`).FindString(out)
	quote := "The Indian navy handed 23 pirates who attacked the merchant ship MV Gibe in the Gulf of Aden to the U.S. Navy on Saturday."
	if !strings.Contains(line, ": "+quote+" [1,2]") || !strings.HasSuffix(line, ", 1 more article") {
		t.Errorf("story line %q, want the wire's first sentence whole, cited [1,2], and 1 more article", line)
	}
	for n, url := range map[string]string{"1": "https://wire.example/pirates", "2": "https://live.example/blog"} {
		if !strings.Contains(out, "["+n+"] "+url+" ") {
			t.Errorf("compact cites [%s] as something else than %s:\n%s", n, url, out)
		}
	}
	one, err := Compact(d, tcCount(t, compactLines(d, 1, true).text(1)), cl100k(t))
	if err != nil || !strings.Contains(one, "[1] https://wire.example/pirates ") || strings.Contains(one, "[2]") {
		t.Errorf("one citation: %q, %v; want the quoted article alone", one, err)
	}
}

func tcCount(t *testing.T, s string) int { return cl100k(t).Count(s) }

// A source whose articles are in the window's stories is never silent;
// one that stored articles in the window but published them before it is
// silent and says so.
func TestGapsOnTheStoriesClock(t *testing.T) {
	last := testNow.Add(-40 * 24 * time.Hour)
	gaps := findGaps([]model.DigestSource{
		{ID: 1, URL: "https://busy.example/feed", Active: true, LastStatus: "ok", ArticlesInWindow: 3},
		{ID: 2, URL: "https://backfill.example/feed", Active: true, LastStatus: "ok", StoredEarlier: 20, LastArticleAt: &last},
		{ID: 3, URL: "https://new.example/feed", Active: true, LastStatus: "ok"},
	})
	if len(gaps) != 2 || gaps[0].SourceID != 2 || gaps[1].SourceID != 3 {
		t.Fatalf("gaps %+v, want the backfilled and the new source", gaps)
	}
	if want := "no articles reported in the window (last reported 2025-01-23 12:00 UTC; 20 articles stored in the window were published before it)"; gaps[0].Detail != want {
		t.Errorf("detail %q, want %q", gaps[0].Detail, want)
	}
	if want := "no articles reported in the window (no article yet)"; gaps[1].Detail != want {
		t.Errorf("detail %q, want %q", gaps[1].Detail, want)
	}
}

// A window without stories says why: what was stored in it but published
// earlier and which window shows it, or what was reported but not
// promoted, or that nothing came at all.
func TestEmptyWindowSaysWhy(t *testing.T) {
	jan := time.Date(2025, 1, 11, 17, 33, 0, 0, time.UTC)
	jan2 := jan.Add(48 * time.Hour)
	for _, tc := range []struct {
		sources []model.DigestSource
		want    string
	}{
		{[]model.DigestSource{
			{ID: 1, URL: "https://a.example/feed", Active: true, StoredEarlier: 20, PromotedEarlier: 20, EarliestPromoted: &jan2},
			{ID: 2, URL: "https://b.example/feed", Active: true, StoredEarlier: 40, PromotedEarlier: 40, EarliestPromoted: &jan},
		}, "the 2 sources stored 60 articles in it, but all were published before it, and stories count an article by when it was published; a window from 2025-01-11 (--since 2025-01-11) shows them"},
		{[]model.DigestSource{{ID: 1, URL: "https://a.example/feed", Active: true, StoredEarlier: 5, PromotedEarlier: 2, EarliestPromoted: &jan}},
			"the 1 source stored 5 articles in it, but all were published before it, and stories count an article by when it was published; a window from 2025-01-11 (--since 2025-01-11) shows the 2 of them that were promoted"},
		{[]model.DigestSource{{ID: 1, URL: "https://a.example/feed", Active: true, StoredEarlier: 1}},
			"the 1 source stored 1 article in it, but it was published before it, and stories count an article by when it was published (none of them was promoted)"},
		{[]model.DigestSource{{ID: 1, URL: "https://a.example/feed", Active: true, ArticlesInWindow: 4}},
			"4 articles were reported in it, but none was promoted to a content item"},
		{[]model.DigestSource{{ID: 1, URL: "https://a.example/feed", Active: true}}, "none of the 1 source stored or reported an article in it"},
	} {
		active := 0
		for _, s := range tc.sources {
			if s.Active {
				active++
			}
		}
		d := Build(Input{Workspace: Workspace{ID: 1, Name: "w"}, Window: Window{Since: testNow.Add(-24 * time.Hour), Until: testNow},
			GeneratedAt: testNow, SourcesAnalyzed: active, Sources: tc.sources}, Options{})
		if md := Markdown(d); !strings.Contains(md, "No stories in this window: "+mdText(tc.want)+". Generated") {
			t.Errorf("Markdown:\n%s\nwant %q", md, tc.want)
		}
		if out, err := Compact(d, DefaultMaxTokens, cl100k(t)); err != nil || !strings.HasSuffix(out, "No stories in this window: "+tc.want+".\n") {
			t.Errorf("compact %q, %v; want %q", out, err, tc.want)
		}
		b, err := JSON(d)
		if err != nil || !strings.Contains(string(b), `"note": "no stories in this window: `+tc.want+`"`) {
			t.Errorf("JSON %s, %v; want the note %q", b, err, tc.want)
		}
	}
}
