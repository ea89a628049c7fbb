package stories

import (
	"slices"
	"time"
)

// Re-examination (MemGroups.Reexamine) is measured in memory only: the
// daemon does not run it, because moving one stored article between
// stories needs writes a save does not make today (see docs/digest.md).

// memMembers is what re-examination keeps of a workspace's articles.
type memMembers struct {
	profile map[int64]*Profile
	at      map[int64]time.Time
	terms   map[int64][]uint32
	members map[int64][]int64 // by story
}

func newMemMembers() memMembers {
	return memMembers{profile: map[int64]*Profile{}, at: map[int64]time.Time{}, terms: map[int64][]uint32{},
		members: map[int64][]int64{}}
}

// record keeps a placed poll's articles and follows its merges.
func (w *memWorkspace) record(arrivals []Arrival, articles, stories []int64, g *Grouping) {
	for _, mg := range g.Merges {
		into := w.resolve(mg.From)
		w.mem.members[into] = append(w.mem.members[into], w.mem.members[mg.From]...)
		delete(w.mem.members, mg.From)
	}
	for i, a := range articles {
		w.mem.profile[a] = &arrivals[i].Profile
		w.mem.at[a] = arrivals[i].At
		w.mem.terms[a] = g.Placements[i].Terms
		s := w.resolve(stories[i])
		w.mem.members[s] = append(w.mem.members[s], a)
	}
}

// minus returns the centroid without one member's unit profile u: its
// weights taken off the features the centroid kept, features left
// without weight dropped.
func (c Centroid) minus(u []Feature) Centroid {
	out := Centroid{Features: make([]Feature, 0, len(c.Features)), IDFs: make([]float32, 0, len(c.Features)), Articles: c.Articles - 1}
	j := 0
	for i, f := range c.Features {
		for j < len(u) && u[j].Term < f.Term {
			j++
		}
		if j < len(u) && u[j].Term == f.Term {
			f.Weight -= u[j].Weight
			if f.Weight <= 1e-6 {
				continue
			}
		}
		out.Features = append(out.Features, f)
		out.IDFs = append(out.IDFs, c.IDFs[i])
	}
	return out
}

// reexamine looks again at the members of the given stories reported
// within the window around now, in story and article order: a member
// moves to the story it shares index terms with that it clears most
// (similarity less the size margin, as a placement ranks), when that
// story clears the threshold and more than its own story without it
// does. A story left without articles resolves to the one its last
// article moved to.
func (m *MemGroups) reexamine(w *memWorkspace, look []int64, now time.Time) {
	o := m.opts
	idf := newIDFMemo(w.vocab)
	for i := range look {
		look[i] = w.resolve(look[i])
	}
	slices.Sort(look)
	for _, s := range slices.Compact(look) {
		for _, a := range slices.Clone(w.mem.members[s]) {
			if !withinWindow(w.mem.at[a], now, o.Window) {
				continue
			}
			aw := weigh(w.mem.profile[a], idf)
			own := w.stories[s]
			ownClear := -1.0
			if own.Articles > 1 {
				rest := own.minus(unitFeatures(aw.p))
				ownClear = o.clearance(dot(aw.vec, rest.vectorFor(aw)), rest.Articles)
			}
			best, bestClear := int64(0), 0.0
			for _, t := range w.neighbours(a, s, now, o) {
				c := w.stories[t]
				clear := o.clearance(dot(aw.vec, c.vectorFor(aw)), c.Articles)
				if best == 0 || clear > bestClear {
					best, bestClear = t, clear
				}
			}
			if best != 0 && bestClear >= o.Threshold && bestClear > ownClear {
				w.move(a, s, best, aw)
			}
		}
	}
}

// neighbours are the MaxCompared stories other than s that a placement
// of article a would compare (mostShared) within the window.
func (w *memWorkspace) neighbours(a, s int64, now time.Time, o GroupOptions) []int64 {
	hits := map[int64]int{}
	storyOf := map[int64]int64{}
	for _, t := range w.mem.terms[a] {
		for _, ps := range w.postings[t] {
			if st := w.resolve(ps.StoryID); st != s && withinWindow(ps.At, now, o.Window) {
				hits[ps.ArticleID]++
				storyOf[ps.ArticleID] = st
			}
		}
	}
	return mostShared(hits, storyOf, o.MaxCompared)
}

// move moves article a from story s to story t.
func (w *memWorkspace) move(a, s, t int64, aw *weighing) {
	if own := w.stories[s]; own.Articles <= 1 {
		delete(w.stories, s)
		w.mergedTo[s] = t
	} else {
		w.stories[s] = own.minus(unitFeatures(aw.p))
	}
	w.stories[t] = w.stories[t].add(aw)
	w.storyOf[a] = t
	w.mem.members[s] = slices.DeleteFunc(w.mem.members[s], func(x int64) bool { return x == a })
	w.mem.members[t] = append(w.mem.members[t], a)
	for _, term := range w.mem.terms[a] {
		for i := range w.postings[term] {
			if w.postings[term][i].ArticleID == a {
				w.postings[term][i].StoryID = t
			}
		}
	}
}
