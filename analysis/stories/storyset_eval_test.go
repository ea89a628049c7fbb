package stories

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// groupStorySet places the articles of the labelled set in stories the
// way the pipeline will: one at a time in the order they were reported,
// candidates looked up by band key in an index. It returns the story of
// each article.
func groupStorySet(t testing.TB, arts []setArticle, opts Options) []int64 {
	t.Helper()
	order := make([]int, len(arts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return arts[order[a]].PublishedAt.Before(arts[order[b]].PublishedAt) })
	idx := NewMemIndex()
	c, err := NewClusterer(idx, opts)
	if err != nil {
		t.Fatal(err)
	}
	story := make([]int64, len(arts))
	next := int64(0)
	for _, i := range order {
		a := arts[i]
		item := Item{Signature: Sign(a.Title, a.Markdown), At: a.PublishedAt}
		as, err := c.Assign(context.Background(), 1, []Item{item})
		if err != nil {
			t.Fatal(err)
		}
		if as[0].NewStory() {
			next++
			story[i] = next
		} else {
			story[i] = as[0].StoryID
		}
		idx.Add(1, int64(i+1), story[i], item.At, item.Signature)
	}
	return story
}

// pairScores are pairwise precision and recall of a grouping against the
// labels: over all pairs of articles, a pair is predicted when both are
// in one story and true when both report one event.
type pairScores struct {
	tp, fp, fn int
	byKind     map[string][2]int // kind → found, all positive pairs with an article of that kind
	falsePairs []string
	missed     []string
}

func (s pairScores) precision() float64 { return float64(s.tp) / float64(max(1, s.tp+s.fp)) }
func (s pairScores) recall() float64    { return float64(s.tp) / float64(max(1, s.tp+s.fn)) }

func scorePairs(arts []setArticle, story []int64) pairScores {
	s := pairScores{byKind: map[string][2]int{}}
	for i := range arts {
		for j := i + 1; j < len(arts); j++ {
			same := arts[i].Event == arts[j].Event
			pred := story[i] == story[j]
			switch {
			case same && pred:
				s.tp++
			case !same && pred:
				s.fp++
				s.falsePairs = append(s.falsePairs, arts[i].ID+" ~ "+arts[j].ID)
			case same && !pred:
				s.fn++
				s.missed = append(s.missed, arts[i].ID+" ~ "+arts[j].ID)
			}
			if same {
				for _, k := range uniq(arts[i].Kind, arts[j].Kind) {
					v := s.byKind[k]
					v[1]++
					if pred {
						v[0]++
					}
					s.byKind[k] = v
				}
			}
		}
	}
	return s
}

func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// evalOptions compare every pair of the set: the set spans months, and
// the story window would otherwise keep most hard negatives apart by
// date alone.
var evalOptions = Options{Window: 400 * 24 * time.Hour}

// The quality target of story grouping, on the labelled story set at the
// shipped threshold: pairwise precision ≥ 0.98 and recall ≥ 0.90.
func TestStoryGroupingPrecisionRecall(t *testing.T) {
	arts := loadStorySet(t)
	story := groupStorySet(t, arts, evalOptions)
	s := scorePairs(arts, story)
	t.Logf("%d articles, %d events, %d stories; threshold %.2f: pairs tp=%d fp=%d fn=%d precision=%.4f recall=%.4f",
		len(arts), countEvents(arts), countStories(story), DefaultThreshold, s.tp, s.fp, s.fn, s.precision(), s.recall())
	kinds := make([]string, 0, len(s.byKind))
	for k := range s.byKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		v := s.byKind[k]
		t.Logf("  recall of pairs with a %-16s article: %3d/%3d = %.3f", k, v[0], v[1], float64(v[0])/float64(v[1]))
	}
	if s.precision() < 0.98 {
		t.Errorf("precision %.4f below 0.98; false pairs: %s", s.precision(), strings.Join(first(s.falsePairs, 20), "; "))
	}
	if s.recall() < 0.90 {
		t.Errorf("recall %.4f below 0.90; missed pairs: %s", s.recall(), strings.Join(first(s.missed, 20), "; "))
	}
}

// Precision and recall across thresholds, for the figures in
// docs/digest.md (go test ./stories -run ThresholdSweep -v).
func TestStoryGroupingThresholdSweep(t *testing.T) {
	arts := loadStorySet(t)
	for _, th := range []float64{0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.70} {
		o := evalOptions
		o.Threshold = th
		s := scorePairs(arts, groupStorySet(t, arts, o))
		t.Logf("threshold %.2f: precision %.4f recall %.4f (fp %d, fn %d)", th, s.precision(), s.recall(), s.fp, s.fn)
	}
}

func countEvents(arts []setArticle) int {
	m := map[string]bool{}
	for _, a := range arts {
		m[a.Event] = true
	}
	return len(m)
}

func countStories(story []int64) int {
	m := map[int64]bool{}
	for _, s := range story {
		m[s] = true
	}
	return len(m)
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("… %d more", len(s)-n))
	}
	return s
}
