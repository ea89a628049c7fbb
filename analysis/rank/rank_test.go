package rank

import (
	"errors"
	"math"
	"testing"
	"time"
)

func TestTiers(t *testing.T) {
	want := map[Tier]float64{1: 0.95, 2: 0.90, 3: 0.80, 4: 0.70, 5: 0.50, 0: 0.50, 9: 0.50}
	for tier, s := range want {
		if got := tier.Score(); got != s {
			t.Errorf("Tier(%d).Score() = %v, want %v", tier, got, s)
		}
	}
	for in, want := range map[string]Tier{"1": 1, "5": 5, "academic": 2, "general": 5} {
		if got, err := ParseTier(in); err != nil || got != want {
			t.Errorf("ParseTier(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "6", "-1", "best", ""} {
		if _, err := ParseTier(in); !errors.Is(err, ErrTier) {
			t.Errorf("ParseTier(%q): err = %v, want ErrTier", in, err)
		}
	}
}

func TestDefaultRules(t *testing.T) {
	c, err := NewClassifier(DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]Tier{
		"https://www.w3.org/TR/html/":            TierOfficial,
		"https://www.nist.gov/news-events/feed":  TierOfficial,
		"https://nvd.nist.gov/feeds/xml/cve":     TierOfficial,
		"https://www.gov.uk/search/news.atom":    TierOfficial,
		"https://go.dev/blog/feed.atom":          TierOfficial,
		"https://www.who.int/rss-feeds/news":     TierOfficial,
		"https://arxiv.org/rss/cs.CL":            TierAcademic,
		"https://news.cs.stanford.edu/feed":      TierAcademic,
		"https://feeds.reuters.com/reuters/tech": TierAuthoritative,
		"https://news.ycombinator.com/rss":       TierCommunity,
		"https://cs.stackexchange.com/feeds":     TierCommunity,
		"https://example.com/feed":               TierGeneral,
		"https://notgov.example/feed":            TierGeneral,
		"https://gov.example.com/":               TierGeneral,
		"http://127.0.0.1:8090/feed/0.xml":       TierGeneral,
		"not a url at all %%":                    TierGeneral,
		"arxiv.org":                              TierAcademic,
	} {
		if got := c.Tier(url); got != want {
			t.Errorf("Tier(%q) = %v, want %v", url, got, want)
		}
	}
}

func TestRulesLongestMatchWins(t *testing.T) {
	c, err := NewClassifier([]Rule{
		{Domain: "example.org", Tier: TierCommunity},
		{Domain: "docs.example.org", Tier: TierOfficial},
		{Domain: "*.example.net", Tier: TierAcademic},
		{Domain: "example.net", Tier: TierAuthoritative},
	})
	if err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]Tier{
		"https://example.org/":         TierCommunity,
		"https://blog.example.org/":    TierCommunity,
		"https://docs.example.org/x":   TierOfficial,
		"https://a.docs.example.org/x": TierOfficial,
		"https://www.example.net/":     TierAcademic,
		"https://example.net/":         TierAuthoritative,
	} {
		if got := c.Tier(url); got != want {
			t.Errorf("Tier(%q) = %v, want %v", url, got, want)
		}
	}
	own := TierAcademic
	if got := c.Effective(&own, "https://example.org/"); got != TierAcademic {
		t.Errorf("Effective with own tier = %v", got)
	}
	bad := Tier(7)
	if got := c.Effective(&bad, "https://docs.example.org/"); got != TierOfficial {
		t.Errorf("Effective with invalid own tier = %v, want the rule's", got)
	}
}

func TestRulesRejected(t *testing.T) {
	for _, r := range []Rule{
		{Domain: "example.org", Tier: 0},
		{Domain: "example.org", Tier: 6},
		{Domain: "https://example.org", Tier: 1},
		{Domain: "example.org/path", Tier: 1},
		{Domain: "", Tier: 1},
		{Domain: "*", Tier: 1},
		{Domain: "ex*.org", Tier: 1},
	} {
		if _, err := NewClassifier([]Rule{r}); !errors.Is(err, ErrRule) {
			t.Errorf("%+v: err = %v, want ErrRule", r, err)
		}
	}
}

func TestFreshness(t *testing.T) {
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	for _, tc := range []struct {
		class DecayClass
		age   time.Duration
		want  float64
	}{
		{DecayFast, 0, 1},
		{DecayFast, -5 * day, 1},
		{DecayFast, 365 * day, 0.7},
		{DecayModerate, 365 * day, 0.9},
		{DecayStable, 365 * day, 0.98},
		{DecayFast, 73 * day, 0.94},
		{DecayFast, 4 * 365 * day, 0},
		{DecayStable, 100 * 365 * day, 0},
	} {
		if got := Freshness(tc.class, now.Add(-tc.age), now); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Freshness(%s, %v old) = %v, want %v", tc.class, tc.age, got, tc.want)
		}
	}
	if c, err := ParseDecayClass(""); err != nil || c != DecayModerate {
		t.Errorf("ParseDecayClass(\"\") = %v, %v", c, err)
	}
	if _, err := ParseDecayClass("slow"); !errors.Is(err, ErrDecayClass) {
		t.Errorf("ParseDecayClass(slow): err = %v", err)
	}
	for _, tc := range []struct{ ws, src, want DecayClass }{
		{"", "", DecayModerate}, {DecayFast, "", DecayFast}, {DecayFast, DecayStable, DecayStable}, {"bogus", "", DecayModerate},
	} {
		if got := EffectiveClass(tc.ws, tc.src); got != tc.want {
			t.Errorf("EffectiveClass(%q, %q) = %q, want %q", tc.ws, tc.src, got, tc.want)
		}
	}
}

func TestScore(t *testing.T) {
	for _, tc := range []struct {
		rel   float64
		tier  Tier
		fresh float64
		want  float64
	}{
		{1, TierOfficial, 1, 0.95},
		{0.5, TierGeneral, 0.8, 0.2},
		{2, TierAcademic, 1, 0.9},
		{-1, TierAcademic, 1, 0},
		{math.NaN(), TierAcademic, 1, 0},
		{1, TierAcademic, -0.5, 0},
	} {
		if got := Score(tc.rel, tc.tier, tc.fresh); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Score(%v, %v, %v) = %v, want %v", tc.rel, tc.tier, tc.fresh, got, tc.want)
		}
	}
}

func TestConfidence(t *testing.T) {
	ev := func(url string, tier Tier) Evidence { return Evidence{URL: url, Tier: tier} }
	for _, tc := range []struct {
		name string
		in   []Evidence
		want float64
	}{
		{"none", nil, 0},
		{"one general source", []Evidence{ev("https://a.example/x", 5)}, 0.30},
		{"one official source", []Evidence{ev("https://w3.org/x", 1)}, 0.57},
		{"two official sources", []Evidence{ev("https://w3.org/x", 1), ev("https://ietf.org/y", 1)}, 1 - 0.43*0.43},
		{"one site's three feeds count once, best tier", []Evidence{
			ev("https://a.example/x", 5), ev("https://news.a.example/y", 3), ev("https://feeds.a.example/z", 5)}, 0.48},
		{"registrable domain under a public suffix", []Evidence{
			ev("https://news.bbc.co.uk/a", 3), ev("https://www.bbc.co.uk/b", 3)}, 0.48},
	} {
		if got := Confidence(tc.in); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: Confidence = %v, want %v", tc.name, got, tc.want)
		}
	}
	// More sources and better tiers never lower confidence.
	prev := 0.0
	var in []Evidence
	for i := range 8 {
		in = append(in, ev("https://s"+string(rune('a'+i))+".example/", Tier(5-i%5)))
		c := Confidence(in)
		if c < prev {
			t.Fatalf("adding source %d lowered confidence %v → %v", i, prev, c)
		}
		prev = c
	}
	for c, want := range map[float64]string{0.8: "high", 0.79: "medium", 0.5: "medium", 0.49: "low"} {
		if got := ConfidenceLabel(c); got != want {
			t.Errorf("ConfidenceLabel(%v) = %q, want %q", c, got, want)
		}
	}
	if n := IndependentSources([]string{"https://a.example/1", "https://www.a.example/2", "https://b.example/"}); n != 2 {
		t.Errorf("IndependentSources = %d, want 2", n)
	}
}
