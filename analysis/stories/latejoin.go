package stories

import (
	"cmp"
	"slices"
	"time"
)

// A late join: an article that started a story of its own because no
// story cleared the threshold when it arrived may clear one once later
// reports have grown it. After a batch is placed, the one-article stored
// stories the decision compared are compared with the stored stories the
// batch changed, and each joins the one it now clears most, as a merge of
// its story into that one. A one-article story's centroid is its
// article's own vector, so this needs nothing the decision did not read.

// lateCandidate is a one-article stored story a decision compared, and
// when its article was reported.
type lateCandidate struct {
	key storyKey
	at  time.Time
}

// lateCandidates returns the stored stories of compared (as the decision
// read them) that still have one article and that the batch did not
// change, in id order, with when their article was reported (from the
// postings that found them).
func lateCandidates(compared map[storyKey]bool, touched map[storyKey]bool, cents map[storyKey]Centroid,
	resolve func(storyKey) storyKey, postings []Posting) []lateCandidate {
	at := map[storyKey]time.Time{}
	for i := range postings {
		k := storyKey(postings[i].StoryID)
		if compared[k] && postings[i].At.After(at[k]) {
			at[k] = postings[i].At
		}
	}
	var out []lateCandidate
	for k := range compared {
		if resolve(k) != k || touched[k] || cents[k].Articles != 1 || at[k].IsZero() {
			continue
		}
		out = append(out, lateCandidate{k, at[k]})
	}
	slices.SortFunc(out, func(a, b lateCandidate) int { return cmp.Compare(a.key, b.key) })
	return out
}

// lateJoins merges each late candidate into the stored story the batch
// changed that it clears most (similarity with its centroid less the size
// margin, as a placement ranks; ties: the lower id), when that clears the
// threshold and an article the batch placed there was reported within
// the window of the candidate's. Candidates are taken in id order, each
// seeing the stories earlier ones joined. It returns the merges, each
// with the reason of the candidate's article.
func lateJoins(cands []lateCandidate, targets map[storyKey]time.Time, cents map[storyKey]Centroid,
	into map[storyKey]storyKey, o GroupOptions) []Merge {
	if len(cands) == 0 || len(targets) == 0 {
		return nil
	}
	keys := make([]storyKey, 0, len(targets))
	for k := range targets {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	none := &weighing{p: &Profile{}} // a merge refreshes no IDFs: no article arrives
	var out []Merge
	for _, c := range cands {
		own := cents[c.key]
		w := centroidWeighing(&own)
		best, bestClear, bestScore := storyKey(0), 0.0, 0.0
		var bestVec []weighted
		for _, t := range keys {
			if !withinWindow(targets[t], c.at, o.Window) {
				continue
			}
			tc := cents[t]
			tv := tc.vectorFor(w)
			sc := dot(w.vec, tv)
			clear := o.clearance(sc, tc.Articles)
			if best == 0 || clear > bestClear {
				best, bestClear, bestScore, bestVec = t, clear, sc, tv
			}
		}
		if best == 0 || bestClear < o.Threshold {
			continue
		}
		cents[best] = cents[best].merge(own, none)
		delete(cents, c.key)
		into[c.key] = best
		out = append(out, Merge{From: int64(c.key), Into: int64(best), IntoItem: -1, Late: true,
			Reason: Reason{StoryID: int64(best), Item: -1, Score: bestScore, Shared: sharedTerms(w.vec, bestVec)}})
	}
	return out
}

// centroidWeighing weighs a one-article story's centroid as an arrival:
// its features with the IDFs it keeps.
func centroidWeighing(c *Centroid) *weighing {
	w := &weighing{p: &Profile{Features: c.Features}, idf: make([]float64, len(c.Features)),
		vec: make([]weighted, len(c.Features)), kept: make([]float64, len(c.Features))}
	var norm float64
	for i, f := range c.Features {
		w.idf[i] = float64(c.IDFs[i])
		w.kept[i] = w.idf[i]
		w.vec[i] = weighted{f.Term, float64(f.Weight) * w.idf[i]}
		norm += w.vec[i].w * w.vec[i].w
	}
	scale(w.vec, norm)
	return w
}
