package stories

import (
	"cmp"
	"slices"
	"time"
)

// DefaultReexamineMembers is how many members of a story re-examination
// looks at again after a poll: the most recently reported, so that what
// a poll reads and compares does not grow with the story. On ECB+ topics
// 1–35 eight give pairwise F1 0.840 (none: 0.822, four: 0.832,
// sixteen: 0.845; see docs/digest.md).
const DefaultReexamineMembers = 8

// StoredMember is a stored article re-examination looks at again: its story
// (merges followed), when it was reported, its profile and its index
// terms.
type StoredMember struct {
	ArticleID int64
	StoryID   int64
	At        time.Time
	Profile   Profile
	Terms     []uint32
	// IDFs are the IDFs of its features once its poll was stored, as
	// its profile keeps them (rounded, see QuantizeIDF), and PlacedDocs
	// the number of articles they were computed over; IDFs is nil for a
	// profile stored before they were kept.
	IDFs       []float32
	PlacedDocs int
}

// Move is re-examination's decision that a stored article belongs to
// another story: it leaves From for Into. Reason is the evidence, as for
// a placement; OwnScore is its similarity with From without it (-1: it
// was From's only article). Empties marks the move of From's last
// article: From is then merged into Into.
type Move struct {
	ArticleID int64
	From      int64
	Into      int64
	At        time.Time
	Reason    Reason
	OwnScore  float64
	Empties   bool
}

// Reexamination is what re-examining a poll's stories decided: the moves
// in the order made, and the centroids of the stories they changed (an
// emptied story has none).
type Reexamination struct {
	Moves   []Move
	Stories map[int64]Centroid
}

// latestMembers keeps, of each story's members, the perStory most
// recently reported within the window around now (ties: the higher
// article id), and returns them by story and article id: the order
// re-examination looks at them in.
func latestMembers(ms []StoredMember, perStory int, now time.Time, window time.Duration) []StoredMember {
	ms = slices.DeleteFunc(slices.Clone(ms), func(m StoredMember) bool { return !withinWindow(m.At, now, window) })
	slices.SortFunc(ms, func(a, b StoredMember) int {
		if c := cmp.Compare(a.StoryID, b.StoryID); c != 0 {
			return c
		}
		if c := b.At.Compare(a.At); c != 0 {
			return c
		}
		return cmp.Compare(b.ArticleID, a.ArticleID)
	})
	out := ms[:0]
	n := 0
	for i, m := range ms {
		if i == 0 || m.StoryID != ms[i-1].StoryID {
			n = 0
		}
		if n++; n <= perStory {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b StoredMember) int {
		if c := cmp.Compare(a.StoryID, b.StoryID); c != 0 {
			return c
		}
		return cmp.Compare(a.ArticleID, b.ArticleID)
	})
	return out
}

// reexamined is the stored stories re-examination looks at after a
// poll: those the poll changed, and for each of its articles the
// reexamineCompared stories among those it compared that share most
// index terms with it (as Group ranks them), merges followed by
// resolve. found is the decision's lookup. Looking at the changed ones
// only gave pairwise F1 0.826 on ECB+ topics 1–35 instead of 0.840: a
// report often belongs to a story the poll compared but did not grow.
func reexamined(arrivals []Arrival, g *Grouping, found *Lookup, o GroupOptions, resolve func(int64) int64) []int64 {
	perArrival := make([][]uint32, len(g.Placements))
	for i, p := range g.Placements {
		perArrival[i] = p.Terms
	}
	o.MaxCompared = min(o.MaxCompared, reexamineCompared)
	return reexaminedOf(g, (&Placer{opts: o, arrivals: arrivals}).ranked(found.Postings, perArrival), resolve)
}

// reexaminedOf is reexamined given each article's ranking of the stories
// it compared (Placer.ranked, at least reexamineCompared long where
// there are that many): a placer's decision ranked them already, and a
// ranking's first k are the ranking to k.
func reexaminedOf(g *Grouping, ranked [][]int64, resolve func(int64) int64) []int64 {
	ids := make([]int64, 0, len(g.Stored)+reexamineCompared*len(ranked))
	for id := range g.Stored {
		ids = append(ids, id)
	}
	for _, r := range ranked {
		for _, id := range r[:min(len(r), reexamineCompared)] {
			ids = append(ids, resolve(id))
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// reexamineCompared is how many of the stories each of a poll's
// articles compared re-examination looks at: on ECB+ topics 1–35, 4 gave
// the figures of all 8 (pairwise F1 0.840, B³ 0.886 against 0.887; 2:
// 0.833 and 0.880) with up to half the members to read.
const reexamineCompared = 4

// reexaminePerTerm is how many term index entries per term
// re-examination reads for the members' terms: the newest. On ECB+
// topics 1–35, 4 gave the figures of 16 (a placement's PerTermLimit) at a
// quarter of the entries read; 2 gave 0.839 / 0.886, 1 0.832 / 0.880.
const reexaminePerTerm = 4

// reexamineTerms is how many of a member's index terms, the heaviest
// under the frequencies of now, re-examination looks its candidates up
// by. On ECB+ topics 1–35, 6 gave pairwise F1 0.840 and B³ 0.887 where
// all 12 gave 0.835 and 0.883 (4: 0.839, 0.885), and halves the term
// index entries a poll reads.
const reexamineTerms = 6

// narrowTerms keeps of each member's index terms the k heaviest under
// the frequencies ws weighs with (as now): the terms re-examination
// looks its candidates up by.
func narrowTerms(ms []StoredMember, ws *memberWeighings, k int) []StoredMember {
	out := slices.Clone(ms)
	for i := range out {
		if len(out[i].Terms) <= k {
			continue
		}
		vec := ws.of(i, &out[i]).vec
		indexed := make([]weighted, 0, len(out[i].Terms))
		for _, w := range vec {
			if slices.Contains(out[i].Terms, w.term) {
				indexed = append(indexed, w)
			}
		}
		out[i].Terms = topTerms(indexed, k)
	}
	return out
}

// memberWeighings weighs re-examination's members, each (by its
// position) once: narrowTerms and reexamine weigh them alike.
type memberWeighings struct {
	src *memberIDFs
	ws  []*weighing
}

// memberIDFs is what a member's features are weighed with: the
// frequencies the placement read, with the poll's articles counted (idf;
// held tells which were read), and, for any other feature of a member
// that kept its IDFs fresh enough (see keptFresh), the IDF it kept.
// Every feature of any other member is weighed with idf, so its
// frequencies must have been read.
type memberIDFs struct {
	idf  *idfMemo
	held func(term uint32) bool
}

func newMemberWeighings(src *memberIDFs, members int) *memberWeighings {
	return &memberWeighings{src: src, ws: make([]*weighing, members)}
}

// newMemberIDFs returns the IDFs re-examination weighs with: counted the
// frequencies with the poll's articles counted, held which of them were
// read (the poll's features at least; in memory, those a placer reads).
func newMemberIDFs(counted DocFreq, held func(uint32) bool) *memberIDFs {
	return &memberIDFs{idf: newIDFMemo(counted), held: held}
}

// keptFreshGrowthNum / keptFreshGrowthDen bounds how much the archive
// may have grown since a member was placed for the IDFs it kept then to
// stand for the current ones: at most twice as many articles counted.
// On ECB+ topics 1–35, whose archive grows from empty, weighing every
// member with its kept IDFs lost (pairwise F1 0.835, B³ 0.885 against
// 0.844 and 0.890; taking the IDF a story's centroid keeps before the
// member's, 0.838 and 0.884): an article placed while the archive was
// young keeps IDFs far from later ones. Bounds of 3/2 and 2 group alike
// (0.844 and 0.889 on seeds 1–3; 0.823 / 0.876 and 0.824 / 0.877 on seeds
// 4–8), 3 and 4 a little worse on the first set (0.843, 0.842): 2 is the
// loosest that loses nothing, and each member it lets through is one
// whose frequencies a placement does not read. A workspace whose 30-day
// archive is steady counts between 30 and 37 days of articles (whole
// weeks), so there every member is weighed with its kept IDFs.
const keptFreshGrowthNum, keptFreshGrowthDen = 2, 1

// keptFresh reports whether member m is weighed with the IDFs it kept
// (where the placement read no frequency) in an archive of docs
// articles: it kept them, and the archive has not more than doubled
// since (keptFreshGrowthNum / keptFreshGrowthDen).
func keptFresh(m *StoredMember, docs int) bool {
	return m.IDFs != nil && docs*keptFreshGrowthDen <= m.PlacedDocs*keptFreshGrowthNum
}

// of is member i's weighing (m the member).
func (mw *memberWeighings) of(i int, m *StoredMember) *weighing {
	if mw.ws[i] == nil {
		if keptFresh(m, mw.src.idf.n) {
			mw.ws[i] = mw.src.weighKept(m)
		} else {
			mw.ws[i] = weigh(&m.Profile, mw.src.idf)
		}
	}
	return mw.ws[i]
}

// weighKept weighs a member with fresh kept IDFs: a feature whose
// frequency the placement read under it as now, as every member once
// was; any other with the IDF the member kept, which is also what a
// story it moves to keeps for it.
func (src *memberIDFs) weighKept(m *StoredMember) *weighing {
	p := &m.Profile
	a := &weighing{p: p, idf: make([]float64, len(p.Features)), vec: make([]weighted, len(p.Features)),
		kept: make([]float64, len(p.Features))}
	n := src.idf.n
	var norm float64
	for i, f := range p.Features {
		if src.held(f.Term) {
			df := src.idf.df.DocFreq(f.Term)
			a.idf[i] = IDF(df, n)
			a.kept[i] = IDF(df+1, n+1)
		} else {
			a.idf[i] = float64(m.IDFs[i])
			a.kept[i] = float64(m.IDFs[i])
		}
		w := float64(f.Weight) * a.idf[i]
		a.vec[i] = weighted{f.Term, w}
		norm += w * w
	}
	scale(a.vec, norm)
	return a
}

// memberTerms is the union of the members' index terms, sorted: what
// re-examination looks up in the term index.
func memberTerms(ms []StoredMember) []uint32 {
	var terms []uint32
	for _, m := range ms {
		terms = append(terms, m.Terms...)
	}
	slices.Sort(terms)
	return slices.Compact(terms)
}

// reexamineCandidates is how many stories a member is compared with at
// most, those that share most of its index terms: on ECB+ topics 1–35,
// 3, 4 and 6 made the decisions of 8 (a placement's MaxCompared), 2 lost
// (pairwise F1 0.834, B³ 0.882); 4 halves the stories a poll reads for
// them.
const reexamineCandidates = 4

// reexamCandidates is, for each member, the reexamineCandidates stories
// (at most MaxCompared) other than its own whose articles share most of
// its index terms within the window around now, as a placement ranks
// them (mostShared), given the
// postings of the members' terms; and their union, sorted: the stories
// re-examination may compare, so the stories whose centroids it reads.
type reexamCandidates struct {
	byTerm map[uint32][]int // postings by term
	union  []int64
	// ranked and closest are rank's answers for each member before any
	// move: what the first members, and all of them when nothing moves,
	// are compared with.
	ranked  [][]int64
	closest [][]int64
	hits    []articleHits // rank's buffer
}

func newReexamCandidates(ms []StoredMember, postings []Posting, now time.Time, o GroupOptions) *reexamCandidates {
	rc := &reexamCandidates{byTerm: postingsByTerm(postings), ranked: make([][]int64, len(ms)), closest: make([][]int64, len(ms))}
	for i, m := range ms {
		rc.ranked[i], rc.closest[i] = rc.rank(m, m.StoryID, postings, func(id int64) int64 { return id }, now, o)
		rc.union = append(rc.union, rc.ranked[i]...)
	}
	slices.Sort(rc.union)
	rc.union = slices.Compact(rc.union)
	return rc
}

// rank returns the stories a member of story s would be compared with
// (see reexamCandidates), stories resolved by resolve, and for each (in
// the same order) the article that shares most terms with it (ties: the
// lower id).
func (rc *reexamCandidates) rank(m StoredMember, s int64, postings []Posting, resolve func(int64) int64, now time.Time,
	o GroupOptions) (ranked, closest []int64) {
	rc.hits = sharedHits(rc.hits, postings, rc.byTerm, m.Terms, now, o.Window, func(ps *Posting) (int64, bool) {
		st := resolve(ps.StoryID)
		return st, st != s && ps.ArticleID != m.ArticleID
	})
	ranked = mostShared(rc.hits, min(o.MaxCompared, reexamineCandidates))
	closest = make([]int64, len(ranked))
	most := make([]int, len(ranked))
	for _, h := range rc.hits { // by article id: the first of the most is the lowest id
		if i := slices.Index(ranked, h.story); i >= 0 && h.n > most[i] {
			closest[i], most[i] = h.article, h.n
		}
	}
	return ranked, closest
}

// reexamine looks again at members (as latestMembers returns them) after
// a poll: a member moves to the story it shares index terms with (among
// the candidates reexamCandidates found) that it clears most (similarity
// less the size margin, as a placement ranks stories), when that story
// clears the threshold and more than the member's own story without it
// does. postings are the term index entries of the members' terms (their
// stories resolved), cents the centroids of the members' stories and of
// the candidates as the poll left them (stories without one are not
// compared), ws the members weighed under the document frequencies with
// the poll's articles counted. A story left without articles is merged
// into the story its last article moved to. The result depends only on
// the inputs.
// rc is newReexamCandidates of the same members and postings.
func reexamine(ms []StoredMember, postings []Posting, rc *reexamCandidates, cents map[int64]Centroid, ws *memberWeighings,
	now time.Time, o GroupOptions) *Reexamination {
	out := &Reexamination{Stories: map[int64]Centroid{}}
	if len(ms) == 0 {
		return out
	}
	postings = slices.Clone(postings)
	own := map[int64]bool{}
	for _, m := range ms {
		own[m.StoryID] = true
	}
	work := make(map[int64]Centroid, len(own)+len(rc.union))
	keep := func(id int64) {
		if c, ok := cents[id]; ok && len(c.IDFs) == len(c.Features) {
			work[id] = c
		}
	}
	for id := range own {
		keep(id)
	}
	for _, id := range rc.union {
		keep(id)
	}
	mergedTo := map[int64]int64{}
	resolve := func(id int64) int64 { return survivor(mergedTo, id) }
	// The vectors compared are written over two arrays, reused member
	// after member: the one compared now and the best one's so far.
	var spare, kept []weighted
	for i, m := range ms {
		s := resolve(m.StoryID)
		home, ok := work[s]
		if !ok {
			continue // a story whose centroid is unknown is not re-examined
		}
		aw := ws.of(i, &ms[i])
		ownScore, ownClear := -1.0, -1.0
		if home.Articles > 1 {
			rest := home.minus(unitFeatures(aw.p))
			spare = rest.vectorInto(spare, aw)
			ownScore = dot(aw.vec, spare)
			ownClear = o.clearance(ownScore, rest.Articles)
		}
		ranked, closest := rc.ranked[i], rc.closest[i]
		if len(out.Moves) > 0 { // the index and the stories are not as they were read
			ranked, closest = rc.rank(m, s, postings, resolve, now, o)
		}
		best, bestAt, bestClear, bestScore := int64(0), 0, 0.0, 0.0
		var bestVec []weighted
		for j, t := range ranked {
			c, ok := work[t]
			if !ok {
				continue
			}
			cv := c.vectorInto(spare, aw)
			sc := dot(aw.vec, cv)
			if clear := o.clearance(sc, c.Articles); best == 0 || clear > bestClear {
				best, bestAt, bestClear, bestScore, bestVec = t, j, clear, sc, cv
				spare, kept = kept, cv
			} else {
				spare = cv
			}
		}
		if best == 0 || bestClear < o.Threshold || bestClear <= ownClear {
			continue
		}
		mv := Move{ArticleID: m.ArticleID, From: s, Into: best, At: m.At, OwnScore: ownScore,
			Reason: Reason{StoryID: best, ArticleID: closest[bestAt], Item: -1, Score: bestScore, Shared: sharedTerms(aw.vec, bestVec)}}
		if home.Articles <= 1 {
			mv.Empties = true
			mergedTo[s] = best
			delete(work, s)
		} else {
			work[s] = home.minus(unitFeatures(aw.p))
		}
		work[best] = work[best].add(aw)
		for _, t := range m.Terms {
			for _, pi := range rc.byTerm[t] {
				if postings[pi].ArticleID == m.ArticleID {
					postings[pi].StoryID = best
				}
			}
		}
		out.Moves = append(out.Moves, mv)
	}
	for _, mv := range out.Moves {
		for _, id := range []int64{mv.From, mv.Into} {
			if c, ok := work[id]; ok {
				out.Stories[id] = c
			}
		}
	}
	return out
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

// countedDocFreq is base with a poll's articles counted, as they are
// once stored: what a stored article is weighed against after the poll.
type countedDocFreq struct {
	base  DocFreq
	docs  int
	extra map[uint32]int
}

func withCounted(base DocFreq, arrivals []Arrival) *countedDocFreq {
	d := &countedDocFreq{base: base, docs: base.Docs() + len(arrivals), extra: map[uint32]int{}}
	for i := range arrivals {
		for _, f := range arrivals[i].Profile.Features {
			d.extra[f.Term]++
		}
	}
	return d
}

func (d *countedDocFreq) Docs() int               { return d.docs }
func (d *countedDocFreq) DocFreq(term uint32) int { return d.base.DocFreq(term) + d.extra[term] }
