package digest

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/analysis/rank"
	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/analysis/summary"
	"github.com/feedpoller/feedpoller/model"
)

// RecencyWeight is how much of a story's importance depends on where in
// the window it was last reported: a story last reported at the start of
// the window counts 1 − RecencyWeight of one reported at its end.
const RecencyWeight = 0.25

// buildStory reports one story: its articles with a URL in provenance
// order, its rank, confidence and importance, and the article it is told
// by (see representative).
func buildStory(s Story, wsClass model.DecayClass, w Window, now time.Time) (StoryReport, bool) {
	arts := make([]model.DigestArticle, 0, len(s.Articles))
	for _, a := range s.Articles {
		if strings.TrimSpace(a.URL) != "" {
			arts = append(arts, a)
		}
	}
	if len(arts) == 0 {
		return StoryReport{}, false
	}
	r := StoryReport{ID: s.ID, Rank: -1}
	members := make([]stories.Member, len(arts))
	byID := make(map[int64]*model.DigestArticle, len(arts))
	domains := make(map[int64]string, len(arts))
	evidence := make([]rank.Evidence, len(arts))
	relevance := 0.0
	for i := range arts {
		a := &arts[i]
		at := stories.ReportedAt(a.PublishedAt, a.StoredAt)
		members[i] = stories.Member{ArticleID: a.ID, SourceID: a.SourceID, At: at}
		byID[a.ID] = a
		evidence[i] = rank.Evidence{URL: a.URL, Domain: rank.Domain(a.URL), Tier: a.Tier}
		domains[a.ID] = evidence[i].Domain
		r.Rank = max(r.Rank, rank.Score(a.Relevance, a.Tier, rank.Freshness(model.EffectiveClass(wsClass, a.DecayClass), at, now)))
		relevance = max(relevance, a.Relevance)
	}
	r.Confidence = rank.Confidence(evidence)
	reports := stories.Provenance(members)
	ordered := make([]*model.DigestArticle, len(reports))
	for i, rep := range reports {
		a := byID[rep.ArticleID]
		ordered[i] = a
		r.Sources = append(r.Sources, SourceReport{
			ArticleID: a.ID, URL: strings.TrimSpace(a.URL), Title: summary.OneLine(a.Title), SourceTitle: summary.OneLine(a.SourceTitle),
			Domain: domains[a.ID], Tier: a.Tier, PublishedAt: a.PublishedAt,
			ReportedAt: rep.At, Lag: rep.Lag, First: rep.First,
		})
	}
	summaries := make([]string, len(ordered))
	for i, a := range ordered {
		summaries[i] = usableSummary(a.Summary)
	}
	r.Quoted = representative(ordered, summaries)
	r.Sources[r.Quoted].Quoted = true
	r.Title, r.Summary = summary.OneLine(ordered[r.Quoted].Title), summaries[r.Quoted]
	if r.Title == "" {
		r.Title = r.Sources[r.Quoted].Domain
	}
	r.FirstAt = r.Sources[0].ReportedAt
	r.LastAt = r.Sources[len(r.Sources)-1].ReportedAt
	cov, independent := coverage(evidence)
	r.SourceCount = independent
	r.Importance = cov * clamp01(relevance) *
		rank.Freshness(storyClass(wsClass, arts), r.LastAt, now) * recency(r.LastAt, w, now)
	return r, true
}

// coverage is the sum of the reliability scores of a story's independent
// sources (registrable domains), each with the best tier it has there:
// the more sources, and the more reliable, the more it counts, without
// the ceiling confidence has. It also returns how many there are.
func coverage(evidence []rank.Evidence) (float64, int) {
	best := map[string]model.Tier{}
	for _, e := range evidence {
		t := effectiveTier(e.Tier)
		if cur, ok := best[e.Domain]; !ok || t < cur {
			best[e.Domain] = t
		}
	}
	sum := 0.0
	for _, t := range best {
		sum += t.Score()
	}
	return sum, len(best)
}

// recency is 1 for a story last reported at the end of the window and
// 1 − RecencyWeight for one last reported at its start.
func recency(last time.Time, w Window, now time.Time) float64 {
	span := now.Sub(w.Since)
	if w.Since.IsZero() || span <= 0 {
		return 1
	}
	age := float64(now.Sub(last)) / float64(span)
	return 1 - RecencyWeight*min(1, max(0, age))
}

// storyClass is the decay class of a story: the slowest of its articles'
// (a story reported by a reference source stays fresh as long as it).
func storyClass(ws model.DecayClass, arts []model.DigestArticle) model.DecayClass {
	best := model.EffectiveClass(ws, arts[0].DecayClass)
	for _, a := range arts[1:] {
		if c := model.EffectiveClass(ws, a.DecayClass); c.Rate() < best.Rate() {
			best = c
		}
	}
	return best
}

func clamp01(x float64) float64 {
	if math.IsNaN(x) || x < 0 {
		return 0
	}
	return min(x, 1)
}

// representative picks the article a story is told by (its title and
// summary), among arts in provenance order with their usable summaries
// (usableSummary), and returns its index: the member that shares most
// with the others. Each article is a bag of the content words of its
// title (counted twice) and its summary; its score is the cosine
// similarity between its bag and the sum of the other members' bags
// (normalised), which is its closeness to the centroid of the rest.
// Articles with a usable summary (not empty, not only a date stamp) come
// before those without. Ties, and stories of one or two articles where
// the score is symmetric, go to the more reliable tier, then the earlier
// report.
func representative(arts []*model.DigestArticle, summaries []string) int {
	score := make([]float64, len(arts))
	if len(arts) > 2 {
		bags := make([]bag, len(arts))
		sum := map[uint64]float64{}
		for i, a := range arts {
			bags[i] = newBag(a.Title, summaries[i])
			for _, x := range bags[i] {
				sum[x.word] += x.w
			}
		}
		// dots[i] = bag i · sum; their total is |sum|², summed in
		// member order, so the same story always gets the same scores
		// to the last bit.
		dots := make([]float64, len(bags))
		sumNorm := 0.0
		for i, b := range bags {
			dots[i] = b.dot(sum)
			sumNorm += dots[i]
		}
		for i, b := range bags {
			score[i] = cosineToRest(len(b) > 0, dots[i], sumNorm)
		}
	}
	best := 0
	for i := 1; i < len(arts); i++ {
		if ui, ub := summaries[i] != "", summaries[best] != ""; ui != ub {
			if ui {
				best = i
			}
			continue
		}
		if math.Abs(score[i]-score[best]) > 1e-9 {
			if score[i] > score[best] {
				best = i
			}
			continue
		}
		if effectiveTier(arts[i].Tier) < effectiveTier(arts[best].Tier) {
			best = i
		}
	}
	return best
}

func effectiveTier(t model.Tier) model.Tier {
	if !t.Valid() {
		return model.TierGeneral
	}
	return t
}

// usableSummary is a summary on one line, or "" when it is only a date
// stamp (as summaries stored before they were checked can be).
func usableSummary(s string) string {
	s = summary.OneLine(s)
	if summary.IsDateStamp(s) {
		return ""
	}
	return s
}

// bag is a sparse, L2-normalised vector of content-word counts, sorted
// by word.
type bag []weighted

type weighted struct {
	word uint64
	w    float64
}

// newBag is the bag of a title (its words counted twice) and a text.
func newBag(title, text string) bag {
	tw, xw := stories.ContentWords(title), stories.ContentWords(text)
	slices.Sort(tw)
	slices.Sort(xw)
	b := make(bag, 0, len(tw)+len(xw))
	add := func(word uint64, w float64) {
		if n := len(b); n > 0 && b[n-1].word == word {
			b[n-1].w += w
			return
		}
		b = append(b, weighted{word, w})
	}
	i, j := 0, 0
	for i < len(tw) || j < len(xw) {
		if j == len(xw) || i < len(tw) && tw[i] <= xw[j] {
			add(tw[i], 2)
			i++
		} else {
			add(xw[j], 1)
			j++
		}
	}
	norm := 0.0
	for _, x := range b {
		norm += x.w * x.w
	}
	if norm > 0 {
		norm = math.Sqrt(norm)
		for i := range b {
			b[i].w /= norm
		}
	}
	return b
}

// dot is the dot product of a bag with a sum of bags.
func (b bag) dot(sum map[uint64]float64) float64 {
	d := 0.0
	for _, x := range b {
		d += x.w * sum[x.word]
	}
	return d
}

// cosineToRest is the cosine similarity between a member's bag b and
// the sum of the other members' bags, from d = b·sum and |sum|²: with
// |b| = 1, the rest is sum − b, b·rest = d − 1 and |rest|² = |sum|² − 2d
// + 1. An empty bag scores 0.
func cosineToRest(nonEmpty bool, d, sumNorm float64) float64 {
	if !nonEmpty {
		return 0
	}
	rest := sumNorm - 2*d + 1
	if rest <= 1e-12 {
		return 0
	}
	return (d - 1) / math.Sqrt(rest)
}

// storyOrder is the order of importance: importance, then more
// independent sources, then the story reported last, then the id.
func storyOrder(a, b StoryReport) int {
	if c := cmp.Compare(b.Importance, a.Importance); c != 0 {
		return c
	}
	if c := cmp.Compare(b.SourceCount, a.SourceCount); c != 0 {
		return c
	}
	if c := b.LastAt.Compare(a.LastAt); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}
