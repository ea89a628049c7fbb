package stories

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Rejoining: two saves of one workspace that read the term index before
// either committed decided without each other's articles. Where both
// carried one new event, each started a story for it; where one grew a
// story and the other started one beside it, the started story missed the
// grown one. Once both have committed, the save that found it may have
// met another asks its placer to rejoin (model.StoryRejoin): the term
// index is read again under the terms the saves shared, and each story
// the save started, and each one-article story of another, is compared
// with the stories on the other side, as a late join compares them
// (latejoin.go). A story that clears the threshold merges with the one it
// clears most: the smaller into the larger, of two as large the higher id
// into the lower, so that whichever of the two saves rejoins first, the
// same story survives.

// RejoinStories implements model.StoryRejoiner.
func (p *Placer) RejoinStories(ctx context.Context, view model.StoryView, req model.StoryRejoin) (model.StoryPlacement, error) {
	return rejoin(ctx, view, req, p.opts)
}

// rejoinSide is a story a rejoin compares: whether it is the save's own,
// and the latest report on its side (the save's articles in it, or the
// entries read for another's).
type rejoinSide struct {
	own     bool
	started bool
	at      time.Time
}

func rejoin(ctx context.Context, view model.StoryView, req model.StoryRejoin, o GroupOptions) (model.StoryPlacement, error) {
	if len(req.Terms) == 0 || len(req.Stories) == 0 {
		return model.StoryPlacement{}, nil
	}
	sides := make(map[storyKey]*rejoinSide, len(req.Stories))
	since := req.Stories[0].At
	for _, s := range req.Stories {
		sides[storyKey(s.ID)] = &rejoinSide{own: true, started: s.Started, at: s.At}
		if s.At.Before(since) {
			since = s.At
		}
	}
	raw, err := view.StoryPostings(ctx, model.StoryTermQuery{WorkspaceID: req.WorkspaceID, Terms: req.Terms,
		Since: since.Add(-o.Window), PerTerm: o.PerTermLimit, Stored: true})
	if err != nil {
		return model.StoryPlacement{}, fmt.Errorf("rejoin stories: %w", err)
	}
	others := 0
	for _, p := range newestPostings(raw, o.PerTermLimit) {
		k := storyKey(p.StoryID)
		sd := sides[k]
		if sd == nil {
			sd = &rejoinSide{}
			sides[k] = sd
			others++
		}
		if !sd.own && p.At.After(sd.at) {
			sd.at = p.At
		}
	}
	if others == 0 {
		return model.StoryPlacement{}, nil
	}
	ids := make([]int64, 0, len(sides))
	for k := range sides {
		ids = append(ids, int64(k))
	}
	slices.Sort(ids)
	states, err := view.StoryStates(ctx, req.WorkspaceID, ids)
	if err != nil {
		return model.StoryPlacement{}, fmt.Errorf("rejoin stories: %w", err)
	}
	cents := make(map[storyKey]Centroid, len(states))
	revisions := make(map[int64]int64, len(states))
	for _, st := range states {
		if st.MergedInto != 0 || len(st.Centroid) == 0 {
			continue
		}
		c, err := DecodeCentroid(st.Centroid, st.Articles)
		if err != nil || c.IDFs == nil {
			continue // another version's centroid, or one kept without IDFs: left as it is
		}
		cents[storyKey(st.ID)] = c
		revisions[st.ID] = st.Revision
	}
	merges := rejoinMerges(ids, sides, cents, o)
	if len(merges) == 0 {
		return model.StoryPlacement{}, nil
	}
	out := model.StoryPlacement{Merges: merges}
	into := map[int64]int64{}
	for _, m := range merges {
		into[m.From] = m.Into
		out.Updates = append(out.Updates, model.StoryUpdate{ID: m.From, Revision: revisions[m.From]})
	}
	for i := range out.Merges {
		out.Merges[i].Into = survivor(into, out.Merges[i].Into)
	}
	survivors := map[int64]bool{}
	for _, m := range out.Merges {
		survivors[m.Into] = true
	}
	for id := range survivors {
		out.Updates = append(out.Updates, model.StoryUpdate{ID: id, Revision: revisions[id], Centroid: EncodeCentroid(cents[storyKey(id)])})
	}
	slices.SortFunc(out.Updates, func(a, b model.StoryUpdate) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// rejoinMerges takes, in id order (ids, sorted), the stories the save
// started and the one-article stories of the others: each is compared
// with the stories of the other side (a story the save started, with
// every other story read; another's, with the save's own), and the two
// merge when the one it clears most clears the threshold and the two
// were reported within the window. The story of fewer articles merges
// into the other (of as many, the higher id into the lower). cents is
// updated as stories merge, so later candidates see them merged.
func rejoinMerges(ids []int64, sides map[storyKey]*rejoinSide, cents map[storyKey]Centroid, o GroupOptions) []model.StoryMerge {
	none := &weighing{p: &Profile{}} // a merge refreshes no IDFs: no article arrives
	var out []model.StoryMerge
	for _, id := range ids {
		k := storyKey(id)
		own, ok := cents[k]
		cand := sides[k]
		if !ok || !cand.started && (cand.own || own.Articles != 1) {
			continue
		}
		w := centroidWeighing(&own)
		best, bestClear, bestScore := storyKey(0), 0.0, 0.0
		for _, tid := range ids {
			t := storyKey(tid)
			tc, ok := cents[t]
			side := sides[t]
			if t == k || !ok || side.own == cand.own || !withinWindow(side.at, cand.at, o.Window) {
				continue
			}
			sc := dot(w.vec, tc.vectorFor(w))
			if clear := o.clearance(sc, tc.Articles); best == 0 || clear > bestClear {
				best, bestClear, bestScore = t, clear, sc
			}
		}
		if best == 0 || bestClear < o.Threshold {
			continue
		}
		from, into := k, best
		if n := cents[best].Articles; n < own.Articles || n == own.Articles && best > k {
			from, into = best, k
		}
		cents[into] = cents[into].merge(cents[from], none)
		delete(cents, from)
		if sides[from].at.After(sides[into].at) {
			sides[into].at = sides[from].at
		}
		sides[into].own = sides[into].own || sides[from].own
		out = append(out, model.StoryMerge{From: int64(from), Into: int64(into), Reason: rejoinReasonText(int64(from), int64(into), bestScore)})
	}
	return out
}

// rejoinReasonText is the reason of an article whose story of its own
// was merged into story into by a rejoin.
func rejoinReasonText(from, into int64, score float64) string {
	return fmt.Sprintf("joined story %d: the story it started, %d, was merged into it once a save made at the same time was stored, score %.2f", into, from, score)
}
