package stories

import (
	"fmt"
)

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
