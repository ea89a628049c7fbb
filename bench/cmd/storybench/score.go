package main

// scores are the figures of one split: pairwise precision, recall and F1
// over pairs of articles (a pair is predicted when both are in one story,
// true when both report one event), and B³ (per article: the share of its
// story that reports its event, and the share of its event in its story,
// averaged).
type scores struct {
	Articles, Events, Stories int
	TP, FP, FN                int
	P, R, F1                  float64
	B3P, B3R, B3F1            float64
	// StoriesMean is Stories, or its mean over seeds.
	StoriesMean float64
}

// score scores the articles for which in(i) holds. A story that mixes
// articles of the split with others counts all of them: the others are
// false pairs of the split and lower the B³ precision of its articles.
func score(arts []article, story []int64, in func(i int) bool) scores {
	var s scores
	events := map[string]int{}
	storySize := map[int64]int{}
	joint := map[[2]any]int{} // (story, event) → articles
	stories := map[int64]bool{}
	for i, a := range arts {
		storySize[story[i]]++
		joint[[2]any{story[i], a.Event}]++
		if in(i) {
			s.Articles++
			events[a.Event]++
			stories[story[i]] = true
		}
	}
	s.Events, s.Stories = len(events), len(stories)
	s.StoriesMean = float64(s.Stories)
	for i, a := range arts {
		if !in(i) {
			continue
		}
		both := float64(joint[[2]any{story[i], a.Event}])
		s.B3P += both / float64(storySize[story[i]])
		s.B3R += both / float64(events[a.Event])
		for j := i + 1; j < len(arts); j++ {
			same, sameEvent := story[i] == story[j], a.Event == arts[j].Event
			switch {
			case same && sameEvent:
				s.TP++
			case same:
				s.FP++
			case sameEvent:
				s.FN++
			}
		}
		// Pairs with an article outside the split, counted once from here.
		for j := range i {
			if !in(j) && story[i] == story[j] {
				s.FP++
			}
		}
	}
	s.P, s.R, s.F1 = prf(float64(s.TP), float64(s.TP+s.FP), float64(s.TP+s.FN))
	if s.Articles > 0 {
		s.B3P /= float64(s.Articles)
		s.B3R /= float64(s.Articles)
	}
	s.B3F1 = harmonic(s.B3P, s.B3R)
	return s
}

func prf(tp, predicted, actual float64) (p, r, f float64) {
	if predicted > 0 {
		p = tp / predicted
	}
	if actual > 0 {
		r = tp / actual
	}
	return p, r, harmonic(p, r)
}

func harmonic(a, b float64) float64 {
	if a+b == 0 {
		return 0
	}
	return 2 * a * b / (a + b)
}
