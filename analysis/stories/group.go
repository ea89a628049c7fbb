package stories

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Grouping defaults, chosen on ECB+ topics 1–35 (see docs/digest.md).
const (
	// DefaultGroupThreshold is the cosine similarity between an article
	// and the centroid of a one-article story at which the article joins
	// the story.
	DefaultGroupThreshold = 0.22
	// DefaultSizeMargin is how much more a large story asks (see
	// GroupOptions.SizeMargin).
	DefaultSizeMargin = 0.12
	// DefaultMergeThreshold is the similarity an article must also have
	// with a second story (of one article; larger ones ask the size
	// margin more) for the two to merge through it.
	DefaultMergeThreshold = 0.37
	// DefaultIndexTerms is how many of an article's heaviest features the
	// term index holds, and how many it looks up for a new article.
	DefaultIndexTerms = 12
	// DefaultPerTermLimit is how many articles one term contributes to a
	// lookup at most: the most recently reported. The index terms are an
	// article's rarest heavy features, so more than this many recent
	// articles with one of them are mostly one story already. 8 and 4
	// gave the figures of 16 on ECB+ topics 1–35 (8 kept: a margin for
	// workspaces far larger than ECB+); reading the term index is the
	// largest part of a placement's cost in a big workspace, and it reads
	// half the entries of 16.
	DefaultPerTermLimit = 8
	// DefaultMaxCompared is how many candidate stories a decision compares
	// in full at most: those sharing most index terms with the arrival.
	// Comparing a story costs a pass over its centroid's features, most
	// of a decision's time; 8 gave the same ECB+ topics 1–35 figures as
	// 16.
	DefaultMaxCompared = 8
)

// GroupOptions tune grouping.
type GroupOptions struct {
	// Threshold is the similarity to a story's centroid at which an
	// article joins it (0: DefaultGroupThreshold).
	Threshold float64
	// MergeThreshold is the similarity with a second story at which an
	// article that joins one story merges the two (0:
	// DefaultMergeThreshold).
	MergeThreshold float64
	// Window is how far back a story takes new articles (0:
	// DefaultWindow).
	Window time.Duration
	// IndexTerms is how many terms of each article are indexed and looked
	// up (0: DefaultIndexTerms).
	IndexTerms int
	// PerTermLimit bounds the articles one term returns (0:
	// DefaultPerTermLimit).
	PerTermLimit int
	// SizeMargin raises both thresholds for larger stories: a story of k
	// articles asks Threshold + SizeMargin × (1 − 1/k) (0:
	// DefaultSizeMargin). The cosine of an article with a centroid grows
	// with the number of articles summed, for an unrelated neighbour as
	// for a report of the same event (k unit vectors of mean pairwise
	// similarity ρ give a new one of them ρ√k / √(1 + (k−1)ρ)), so a
	// fixed threshold would let a big story absorb the next event of its
	// kind.
	SizeMargin float64
	// MaxCompared bounds the candidate stories compared in full (0:
	// DefaultMaxCompared).
	MaxCompared int
	// LateJoins turns late joins on (latejoin.go): a batch's decision
	// then ends with every one-article story it compared joining a
	// stored story the batch changed that it now clears. Off by default:
	// the default thresholds were chosen without them, and with them on
	// ECB+ topics 1–35 bought a little F1 with lower precision (see
	// docs/digest.md).
	LateJoins bool
	// ReexamineMembers is how many of a story's most recently reported
	// members re-examination looks at again after a poll (reexamine.go;
	// 0: DefaultReexamineMembers; negative: none, re-examination off).
	ReexamineMembers int
}

// DefaultGroupOptions are the shipped grouping options, every field set.
func DefaultGroupOptions() GroupOptions { return GroupOptions{}.WithDefaults() }

// WithDefaults is o with its zero fields set to their defaults; it does
// not check the others (Check does).
func (o GroupOptions) WithDefaults() GroupOptions {
	o, _ = o.withDefaults()
	return o
}

// Check refuses options out of range, naming the field; zero fields are
// the defaults, which are in range.
func (o GroupOptions) Check() error {
	_, err := o.withDefaults()
	return err
}

func (o GroupOptions) withDefaults() (GroupOptions, error) {
	if o.Threshold == 0 {
		o.Threshold = DefaultGroupThreshold
	}
	if o.MergeThreshold == 0 {
		o.MergeThreshold = DefaultMergeThreshold
	}
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.IndexTerms == 0 {
		o.IndexTerms = DefaultIndexTerms
	}
	if o.PerTermLimit == 0 {
		o.PerTermLimit = DefaultPerTermLimit
	}
	if o.MaxCompared == 0 {
		o.MaxCompared = DefaultMaxCompared
	}
	if o.SizeMargin == 0 {
		o.SizeMargin = DefaultSizeMargin
	}
	if o.ReexamineMembers == 0 {
		o.ReexamineMembers = DefaultReexamineMembers
	}
	switch {
	case !(o.Threshold > 0 && o.Threshold <= 1): // NaN too
		return o, fmt.Errorf("%w: Threshold %v is outside (0, 1]", ErrOptions, o.Threshold)
	case !(o.MergeThreshold >= o.Threshold && o.MergeThreshold <= 1):
		return o, fmt.Errorf("%w: MergeThreshold %v is outside [Threshold %v, 1]", ErrOptions, o.MergeThreshold, o.Threshold)
	case o.Window < 0:
		return o, fmt.Errorf("%w: Window %v is negative", ErrOptions, o.Window)
	case !(o.SizeMargin >= 0 && o.SizeMargin <= 1):
		return o, fmt.Errorf("%w: SizeMargin %v is outside [0, 1]", ErrOptions, o.SizeMargin)
	case o.IndexTerms < 0 || o.PerTermLimit < 0 || o.MaxCompared < 0:
		return o, fmt.Errorf("%w: IndexTerms %d, PerTermLimit %d and MaxCompared %d must be positive", ErrOptions, o.IndexTerms, o.PerTermLimit, o.MaxCompared)
	}
	return o, nil
}

// Arrival is a new article to place: its profile and when it was
// reported (see ReportedAt).
type Arrival struct {
	Profile Profile
	At      time.Time
}

// Posting is one entry of the term index: an article reported at At in
// story StoryID has Term among its heaviest features.
type Posting struct {
	Term      uint32
	ArticleID int64
	StoryID   int64
	At        time.Time
}

// Lookup is what one index lookup found for a batch: the postings of the
// terms asked for, and the centroid of every story they name (stories
// merged away already resolved to the story that absorbed them).
type Lookup struct {
	Postings []Posting
	Stories  map[int64]Centroid
}

// Placement says where one arrival goes and why. Exactly one holds:
// StoryID > 0 (it joins that stored story), JoinsItem ≥ 0 (it joins the
// story that earlier arrival of the batch started), or neither (it starts
// a story).
type Placement struct {
	StoryID   int64
	JoinsItem int
	// Reason is the evidence for the decision (zero when it starts a
	// story).
	Reason Reason
	// Terms are the arrival's heaviest features, what the index holds for
	// it.
	Terms []uint32
}

// NewStory reports whether the arrival starts a story.
func (p Placement) NewStory() bool { return p.StoryID == 0 && p.JoinsItem < 0 }

// Reason is why an article joined a story: the story as it was matched,
// the member that shared most of the article's indexed terms (a stored
// article, or an earlier arrival of the batch), the similarity with the
// story's centroid and the features they share most.
type Reason struct {
	StoryID   int64
	ArticleID int64
	Item      int
	Score     float64
	Shared    []uint32
}

// Merge says that story From became part of story Into: its articles
// move, and its id resolves to Into from now on. Into is a stored story,
// or (Into 0) the story that arrival IntoItem starts.
type Merge struct {
	From     int64
	Into     int64
	IntoItem int
	// Late marks a late join: From was a one-article story the batch did
	// not change, and Reason is why its article joined Into.
	Late   bool
	Reason Reason
}

// Grouping is the decision for one batch: a placement per arrival, the
// centroid of every story the batch touched (stored ones by id, the ones
// it starts by founding arrival), and the merges.
type Grouping struct {
	Placements []Placement
	Stored     map[int64]Centroid
	Started    map[int]Centroid
	Merges     []Merge
}

// SharedTerms is how many shared features a Reason keeps.
const SharedTerms = 8

// storyKey names a story during a decision: a stored id (> 0) or the
// founding arrival i as -(i+1).
type storyKey int64

func (k storyKey) item() int { return int(-k) - 1 }

// QueryTerms returns the index terms of each arrival under df and their
// union, sorted: what one lookup asks for.
func QueryTerms(arrivals []Arrival, df DocFreq, opts GroupOptions) (perArrival [][]uint32, union []uint32, err error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	perArrival, union = queryTerms(weighAll(arrivals, newIDFMemo(df)), o)
	return perArrival, union, nil
}

// weighAll weighs each arrival.
func weighAll(arrivals []Arrival, idf *idfMemo) []*weighing {
	ws := make([]*weighing, len(arrivals))
	for i := range arrivals {
		ws[i] = weigh(&arrivals[i].Profile, idf)
	}
	return ws
}

// queryTerms returns the index terms of each arrival, given its
// weighing, and their union, sorted.
func queryTerms(ws []*weighing, o GroupOptions) (perArrival [][]uint32, union []uint32) {
	perArrival = make([][]uint32, len(ws))
	union = make([]uint32, 0, len(ws)*o.IndexTerms)
	for i, w := range ws {
		perArrival[i] = topTerms(w.vec, o.IndexTerms)
		union = append(union, perArrival[i]...)
	}
	slices.Sort(union)
	return perArrival, slices.Compact(union)
}

// Group places a batch of arrivals of one workspace, in the order given
// (the order they were reported), against what one lookup found: each
// joins the story whose centroid is most similar to it among the stories
// of the articles that share an index term with it within the window,
// when that similarity reaches the threshold, and starts a story
// otherwise. An arrival that is as similar as the merge threshold to a
// second story merges the two. Later arrivals see the stories earlier
// ones started or grew. The result depends only on its inputs.
func Group(arrivals []Arrival, found *Lookup, df DocFreq, opts GroupOptions) (*Grouping, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	idf := newIDFMemo(df)
	weighed := weighAll(arrivals, idf)
	terms, _ := queryTerms(weighed, o)
	return group(arrivals, weighed, terms, found, idf, o), nil
}

// group is Group given what QueryTerms worked out for the arrivals under
// idf: their weighings and index terms. A placer weighs its arrivals once
// for the lookup and the decision, which read the same frequencies (a
// lookup adds to them only features of stories, none of an arrival's).
func group(arrivals []Arrival, weighed []*weighing, terms [][]uint32, found *Lookup, idf *idfMemo, o GroupOptions) *Grouping {
	if found == nil {
		found = &Lookup{}
	}
	byTerm := make(map[uint32][]int, len(terms)*o.IndexTerms) // postings by term
	for i, p := range found.Postings {
		byTerm[p.Term] = append(byTerm[p.Term], i)
	}
	// The arrivals with each index term, in order (an arrival's terms
	// are distinct): asking every earlier arrival whether it has the
	// term grew with the square of a batch.
	arrivalsByTerm := make(map[uint32][]int, len(terms)*o.IndexTerms)
	for j, ts := range terms {
		for _, t := range ts {
			arrivalsByTerm[t] = append(arrivalsByTerm[t], j)
		}
	}
	cents := make(map[storyKey]Centroid, len(found.Stories)+len(arrivals))
	for id, c := range found.Stories {
		cents[storyKey(id)] = c.withIDFs(idf)
	}
	// into resolves stories merged during this decision.
	into := map[storyKey]storyKey{}
	resolve := func(k storyKey) storyKey { return survivor(into, k) }
	itemStory := make([]storyKey, len(arrivals))
	g := &Grouping{Placements: make([]Placement, len(arrivals)), Stored: map[int64]Centroid{}, Started: map[int]Centroid{}}
	touched := map[storyKey]bool{}
	compared := map[storyKey]bool{} // stored stories compared in full
	// A compared story's vector is needed only for the story an arrival
	// joins (its shared terms): one buffer holds the best so far, another
	// the one being compared, whatever the number of stories compared.
	var cv, bestVec []weighted
	// The candidates' maps, cleared for each arrival rather than made
	// again: with the vectors, they were most of what a decision
	// allocated.
	hits := make(map[[2]int64]int, o.IndexTerms*o.PerTermLimit)
	best := make(map[storyKey]member, o.IndexTerms*o.PerTermLimit)
	for i := range arrivals {
		a := &arrivals[i]
		aw := weighed[i]
		vec := aw.vec
		// Candidate stories and, per story, the member that shares most
		// index terms with the arrival: a stored article (its id) or an
		// earlier arrival j (-(j+1)).
		clear(hits)
		for _, t := range terms[i] {
			for _, pi := range byTerm[t] {
				p := &found.Postings[pi]
				if withinWindow(p.At, a.At, o.Window) {
					hits[[2]int64{p.StoryID, p.ArticleID}]++
				}
			}
			for _, j := range arrivalsByTerm[t] {
				if j >= i {
					break
				}
				if withinWindow(arrivals[j].At, a.At, o.Window) {
					hits[[2]int64{int64(itemStory[j]), -int64(j) - 1}]++
				}
			}
		}
		clear(best)
		order := make([]storyKey, 0, len(hits))
		for key, n := range hits {
			k := resolve(storyKey(key[0]))
			m, ok := best[k]
			if !ok {
				order = append(order, k)
			}
			if !ok || n > m.hits || n == m.hits && memberBefore(key[1], m.key) {
				best[k] = member{key[1], n}
			}
		}
		// Only the stories that share most index terms with the arrival
		// are compared in full: the cost of a decision is bounded however
		// many stories a common term reaches.
		order = mostHits(order, best, o.MaxCompared)
		// A story is ranked by how far its similarity clears what a story
		// of its size asks.
		type scored struct {
			key          storyKey
			score, clear float64
		}
		ranked := func(x, y scored) int {
			if c := cmp.Compare(y.clear, x.clear); c != 0 {
				return c
			}
			return cmp.Compare(x.key, y.key)
		}
		cands := make([]scored, 0, len(order))
		top := -1 // the best ranked so far
		for _, k := range order {
			c, ok := cents[k]
			if !ok {
				continue // a story the lookup had no centroid for
			}
			if k > 0 {
				compared[k] = true
			}
			cv = c.vectorInto(cv, aw)
			sc := dot(vec, cv)
			cands = append(cands, scored{k, sc, o.clearance(sc, c.Articles)})
			if top < 0 || ranked(cands[len(cands)-1], cands[top]) < 0 {
				top = len(cands) - 1
				cv, bestVec = bestVec, cv
			}
		}
		slices.SortStableFunc(cands, ranked)
		pl := Placement{JoinsItem: -1, Terms: terms[i]}
		if len(cands) == 0 || cands[0].clear < o.Threshold {
			k := storyKey(-(i + 1))
			itemStory[i] = k
			cents[k] = Centroid{}.add(aw)
			touched[k] = true
			g.Placements[i] = pl
			continue
		}
		win := cands[0].key
		pl.Reason = Reason{StoryID: int64(max(win, 0)), Item: -1, Score: cands[0].score,
			Shared: sharedTerms(vec, bestVec)}
		if m := best[win].key; m > 0 {
			pl.Reason.ArticleID = m
		} else {
			pl.Reason.Item = int(-m) - 1
		}
		// Merge every other story this article is close enough to.
		for _, c := range cands[1:] {
			if c.clear < o.MergeThreshold {
				break
			}
			survivor, gone := survivorOf(win, c.key)
			into[gone] = survivor
			cents[survivor] = cents[survivor].merge(cents[gone], aw)
			delete(cents, gone)
			delete(touched, gone)
			touched[survivor] = true
			mg := Merge{From: int64(gone), Into: int64(survivor), IntoItem: -1}
			if survivor < 0 {
				mg.Into, mg.IntoItem = 0, survivor.item()
			}
			if gone > 0 {
				g.Merges = append(g.Merges, mg)
			}
			win = survivor
		}
		cents[win] = cents[win].add(aw)
		touched[win] = true
		itemStory[i] = win
		g.Placements[i] = pl
	}
	if o.LateJoins {
		targets := map[storyKey]time.Time{} // stored stories the batch changed: its latest article there
		for i := range arrivals {
			if k := resolve(itemStory[i]); k > 0 && arrivals[i].At.After(targets[k]) {
				targets[k] = arrivals[i].At
			}
		}
		late := lateJoins(lateCandidates(compared, touched, cents, resolve, found.Postings), targets, cents, into, o)
		for _, m := range late {
			touched[storyKey(m.Into)] = true
		}
		g.Merges = append(g.Merges, late...)
	}
	// Final stories: an arrival placed in a story later merged follows it.
	for i := range arrivals {
		k := resolve(itemStory[i])
		p := &g.Placements[i]
		switch {
		case k > 0:
			p.StoryID, p.JoinsItem = int64(k), -1
		case k.item() == i:
			p.StoryID, p.JoinsItem = 0, -1
		default:
			p.StoryID, p.JoinsItem = 0, k.item()
		}
	}
	for k := range touched {
		if k > 0 {
			g.Stored[int64(k)] = cents[k]
		} else {
			g.Started[k.item()] = cents[k]
		}
	}
	return g
}

// memberBefore orders the members that could stand for a story in a
// reason when they share as many terms: stored articles before arrivals,
// lower ids and earlier arrivals first.
func memberBefore(a, b int64) bool {
	if (a > 0) != (b > 0) {
		return a > 0
	}
	if a > 0 {
		return a < b
	}
	return a > b
}

// survivorOf is which of two stories lives on when they merge: a stored
// story before one the batch started, the older (lower id) of two
// stored ones, the earlier founder of two new ones.
func survivorOf(a, b storyKey) (survivor, gone storyKey) {
	switch {
	case a > 0 && b > 0:
		if a < b {
			return a, b
		}
		return b, a
	case a > 0:
		return a, b
	case b > 0:
		return b, a
	case a > b: // -(i+1): the larger key is the earlier founder
		return a, b
	default:
		return b, a
	}
}

// member is a candidate story's member that shares most index terms
// with an arrival: a stored article (its id) or an earlier arrival j
// (-(j+1)), and how many terms it shares.
type member struct {
	key  int64
	hits int
}

// mostHits orders stories by their best member's hits (most first, ties
// to the lower key) and keeps the first k. The hits are copied beside
// the keys before sorting: a comparison that looked them up in best cost
// more than the rest of the ranking.
func mostHits(order []storyKey, best map[storyKey]member, k int) []storyKey {
	type ranked struct {
		key  storyKey
		hits int
	}
	rs := make([]ranked, len(order))
	for i, key := range order {
		rs[i] = ranked{key, best[key].hits}
	}
	slices.SortFunc(rs, func(x, y ranked) int {
		if c := cmp.Compare(y.hits, x.hits); c != 0 {
			return c
		}
		return cmp.Compare(x.key, y.key)
	})
	order = order[:min(len(order), k)]
	for i := range order {
		order[i] = rs[i].key
	}
	return order
}

// sharedTerms returns the SharedTerms features that contribute most to
// the similarity of two vectors.
func sharedTerms(a, b []weighted) []uint32 {
	both := make([]weighted, 0, min(len(a), len(b)))
	eachShared(a, b, func(term uint32, wa, wb float64) { both = append(both, weighted{term, wa * wb}) })
	return topTermsOf(both, SharedTerms)
}

// clearance is how far a story of articles articles, scoring score
// against an arrival, is over the join rule: the score less the size
// margin, which grows towards SizeMargin as the story grows, so that a
// big story does not absorb the next event of its kind.
func (o GroupOptions) clearance(score float64, articles int) float64 {
	return score - o.SizeMargin*(1-1/float64(max(articles, 1)))
}
