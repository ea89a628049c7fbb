package rank

import (
	"math"

	"github.com/feedpoller/feedpoller/model"
	"golang.org/x/net/publicsuffix"
)

// Score is an article's rank: relevance × reliability × freshness, with
// relevance and freshness clamped to [0, 1] (NaN counts as 0) and the
// reliability of tier. Listings and digests order by it; promotion does
// not use it.
func Score(relevance float64, tier model.Tier, freshness float64) float64 {
	return clamp01(relevance) * tier.Score() * clamp01(freshness)
}

func clamp01(x float64) float64 {
	if math.IsNaN(x) || x < 0 {
		return 0
	}
	return min(x, 1)
}

// Evidence is one article of a story, as confidence needs it.
type Evidence struct {
	// URL is where the article was published; its registrable domain
	// decides which articles are independent. Domain is that domain when
	// the caller has it already (Domain(URL)); "" to work it out.
	URL    string
	Domain string
	Tier   model.Tier
}

func (e Evidence) domain() string {
	if e.Domain != "" {
		return e.Domain
	}
	return Domain(e.URL)
}

// SingleSourceWeight is how much one source, however reliable, can
// establish alone: the share of its reliability score that counts.
const SingleSourceWeight = 0.6

// Confidence is how well a story is established by its articles, in
// [0, 1): articles of one registrable domain (the same site, its
// subdomains and its feeds) are one source, with the best tier among
// them; each independent source i with reliability score r_i leaves the
// story unconfirmed with probability 1 − w·r_i (w = SingleSourceWeight),
// and the confidence is the chance that not all of them fail:
//
//	confidence = 1 − Π_i (1 − w·r_i)
//
// One general-web source gives 0.30, one official source 0.57, two
// official sources 0.82, five general-web sources 0.83. More sources and
// better tiers never lower it.
func Confidence(articles []Evidence) float64 {
	best := map[string]model.Tier{}
	for _, a := range articles {
		d := a.domain()
		t := a.Tier
		if !t.Valid() {
			t = model.TierGeneral
		}
		if cur, ok := best[d]; !ok || t < cur {
			best[d] = t
		}
	}
	if len(best) == 0 {
		return 0
	}
	miss := 1.0
	for _, t := range best {
		miss *= 1 - SingleSourceWeight*t.Score()
	}
	return 1 - miss
}

// IndependentSources is the number of registrable domains among the
// articles: the source count a digest reports.
func IndependentSources(urls []string) int {
	seen := map[string]bool{}
	for _, u := range urls {
		seen[Domain(u)] = true
	}
	return len(seen)
}

// ConfidenceLabel names a confidence: "high" from 0.8, "medium" from 0.5,
// else "low".
func ConfidenceLabel(c float64) string {
	switch {
	case c >= 0.8:
		return "high"
	case c >= 0.5:
		return "medium"
	}
	return "low"
}

// Domain is the registrable domain of a URL's host (news.example.co.uk →
// example.co.uk), by the public suffix list; the host itself when it has
// none (an IP address, localhost).
func Domain(rawURL string) string {
	h := Host(rawURL)
	if d, err := publicsuffix.EffectiveTLDPlusOne(h); err == nil {
		return d
	}
	return h
}
