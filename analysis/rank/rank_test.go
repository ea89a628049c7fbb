package rank

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

func TestTiers(t *testing.T) {
	want := map[model.Tier]float64{1: 0.95, 2: 0.90, 3: 0.80, 4: 0.70, 5: 0.50, 0: 0.50, 9: 0.50}
	for tier, s := range want {
		if got := tier.Score(); got != s {
			t.Errorf("Tier(%d).Score() = %v, want %v", tier, got, s)
		}
	}
	for in, want := range map[string]model.Tier{"1": 1, "5": 5, "academic": 2, "general": 5} {
		if got, err := model.ParseTier(in); err != nil || got != want {
			t.Errorf("ParseTier(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "6", "-1", "best", ""} {
		if _, err := model.ParseTier(in); !errors.Is(err, model.ErrTier) {
			t.Errorf("ParseTier(%q): err = %v, want ErrTier", in, err)
		}
	}
}

func TestDefaultRules(t *testing.T) {
	c, err := NewClassifier(DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]model.Tier{
		"https://www.w3.org/TR/html/":            model.TierOfficial,
		"https://www.nist.gov/news-events/feed":  model.TierOfficial,
		"https://nvd.nist.gov/feeds/xml/cve":     model.TierOfficial,
		"https://www.gov.uk/search/news.atom":    model.TierOfficial,
		"https://go.dev/blog/feed.atom":          model.TierOfficial,
		"https://www.who.int/rss-feeds/news":     model.TierOfficial,
		"https://arxiv.org/rss/cs.CL":            model.TierAcademic,
		"https://news.cs.stanford.edu/feed":      model.TierAcademic,
		"https://feeds.reuters.com/reuters/tech": model.TierAuthoritative,
		"https://news.ycombinator.com/rss":       model.TierCommunity,
		"https://cs.stackexchange.com/feeds":     model.TierCommunity,
		"https://example.com/feed":               model.TierGeneral,
		"https://notgov.example/feed":            model.TierGeneral,
		"https://gov.example.com/":               model.TierGeneral,
		"http://127.0.0.1:8090/feed/0.xml":       model.TierGeneral,
		"not a url at all %%":                    model.TierGeneral,
		"arxiv.org":                              model.TierAcademic,
	} {
		if got := c.Tier(url); got != want {
			t.Errorf("Tier(%q) = %v, want %v", url, got, want)
		}
	}
}

func TestRulesLongestMatchWins(t *testing.T) {
	c, err := NewClassifier([]Rule{
		{Domain: "example.org", Tier: model.TierCommunity},
		{Domain: "docs.example.org", Tier: model.TierOfficial},
		{Domain: "*.example.net", Tier: model.TierAcademic},
		{Domain: "example.net", Tier: model.TierAuthoritative},
	})
	if err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]model.Tier{
		"https://example.org/":         model.TierCommunity,
		"https://blog.example.org/":    model.TierCommunity,
		"https://docs.example.org/x":   model.TierOfficial,
		"https://a.docs.example.org/x": model.TierOfficial,
		"https://www.example.net/":     model.TierAcademic,
		"https://example.net/":         model.TierAuthoritative,
	} {
		if got := c.Tier(url); got != want {
			t.Errorf("Tier(%q) = %v, want %v", url, got, want)
		}
	}
	own := model.TierAcademic
	if got := c.Effective(&own, "https://example.org/"); got != model.TierAcademic {
		t.Errorf("Effective with own tier = %v", got)
	}
	bad := model.Tier(7)
	if got := c.Effective(&bad, "https://docs.example.org/"); got != model.TierOfficial {
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
		class model.DecayClass
		age   time.Duration
		want  float64
	}{
		{model.DecayFast, 0, 1},
		{model.DecayFast, -5 * day, 1},
		{model.DecayFast, 365 * day, 0.7},
		{model.DecayModerate, 365 * day, 0.9},
		{model.DecayStable, 365 * day, 0.98},
		{model.DecayFast, 73 * day, 0.94},
		{model.DecayFast, 4 * 365 * day, 0},
		{model.DecayStable, 100 * 365 * day, 0},
	} {
		if got := Freshness(tc.class, now.Add(-tc.age), now); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Freshness(%s, %v old) = %v, want %v", tc.class, tc.age, got, tc.want)
		}
	}
	if c, err := model.ParseDecayClass(""); err != nil || c != model.DecayModerate {
		t.Errorf("ParseDecayClass(\"\") = %v, %v", c, err)
	}
	if _, err := model.ParseDecayClass("slow"); !errors.Is(err, model.ErrDecayClass) {
		t.Errorf("ParseDecayClass(slow): err = %v", err)
	}
	for _, tc := range []struct{ ws, src, want model.DecayClass }{
		{"", "", model.DecayModerate}, {model.DecayFast, "", model.DecayFast}, {model.DecayFast, model.DecayStable, model.DecayStable}, {"bogus", "", model.DecayModerate},
	} {
		if got := model.EffectiveClass(tc.ws, tc.src); got != tc.want {
			t.Errorf("EffectiveClass(%q, %q) = %q, want %q", tc.ws, tc.src, got, tc.want)
		}
	}
}

func TestScore(t *testing.T) {
	for _, tc := range []struct {
		rel   float64
		tier  model.Tier
		fresh float64
		want  float64
	}{
		{1, model.TierOfficial, 1, 0.95},
		{0.5, model.TierGeneral, 0.8, 0.2},
		{2, model.TierAcademic, 1, 0.9},
		{-1, model.TierAcademic, 1, 0},
		{math.NaN(), model.TierAcademic, 1, 0},
		{1, model.TierAcademic, -0.5, 0},
	} {
		if got := Score(tc.rel, tc.tier, tc.fresh); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Score(%v, %v, %v) = %v, want %v", tc.rel, tc.tier, tc.fresh, got, tc.want)
		}
	}
}

func TestConfidence(t *testing.T) {
	ev := func(url string, tier model.Tier) Evidence { return Evidence{URL: url, Tier: tier} }
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
		in = append(in, ev("https://s"+string(rune('a'+i))+".example/", model.Tier(5-i%5)))
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
