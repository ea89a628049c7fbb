package stories

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Placer places one save's new articles in stories with Group; it is the
// save's model.StoryPlacer. Everything it decides on is read through the
// view inside the save's transaction, in a fixed number of statements
// whatever the number of articles: the document frequencies of the
// articles' features, the term index and the candidate stories. A
// centroid keeps the IDFs it was weighed with, so the frequencies of the
// stories' other terms are not read; only a story whose centroid was
// stored without them (version 1) costs one more statement, for the
// frequencies of its terms.
type Placer struct {
	opts     GroupOptions
	arrivals []Arrival
	dfWindow time.Duration
}

// DefaultDocFreqWindow is how far back the document frequencies a
// placement weighs with reach: the recent archive, longer than the story
// window so that a quiet week does not make every word look rare.
const DefaultDocFreqWindow = 30 * 24 * time.Hour

// WithDocFreqWindow returns p weighing with the document frequencies of
// the articles reported within d before its articles (0: the default).
func (p *Placer) WithDocFreqWindow(d time.Duration) *Placer {
	if d <= 0 {
		d = DefaultDocFreqWindow
	}
	p.dfWindow = max(d, p.opts.Window)
	return p
}

// NewPlacer returns the placer of a save's new articles, in save order.
func NewPlacer(arrivals []Arrival, opts GroupOptions) (*Placer, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return (&Placer{opts: o, arrivals: arrivals}).WithDocFreqWindow(0), nil
}

// docFreq is a DocFreq read from the store: the counts of the terms asked
// for, the others 0.
type docFreq struct {
	docs  int
	terms map[uint32]int
}

func (d *docFreq) Docs() int               { return d.docs }
func (d *docFreq) DocFreq(term uint32) int { return d.terms[term] }

// PlaceStories implements model.StoryPlacer.
func (p *Placer) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	if len(req.Facts) != len(p.arrivals) {
		return model.StoryPlacement{}, fmt.Errorf("place stories: %d articles to save, %d profiled", len(req.Facts), len(p.arrivals))
	}
	if len(p.arrivals) == 0 {
		return model.StoryPlacement{}, nil
	}
	ws := req.WorkspaceID
	since := p.arrivals[0].At
	for _, a := range p.arrivals {
		if a.At.Before(since) {
			since = a.At
		}
	}
	dfSince := since.Add(-p.dfWindow)
	since = since.Add(-p.opts.Window)
	var features []uint32
	for i := range p.arrivals {
		for _, f := range p.arrivals[i].Profile.Features {
			features = append(features, f.Term)
		}
	}
	slices.Sort(features)
	features = slices.Compact(features)
	read, err := view.StoryDocFreq(ctx, ws, features, dfSince)
	if err != nil {
		return model.StoryPlacement{}, fmt.Errorf("place stories: %w", err)
	}
	df := &docFreq{docs: read.Docs, terms: read.Terms}
	if df.terms == nil {
		df.terms = map[uint32]int{}
	}
	for _, t := range features {
		if _, ok := df.terms[t]; !ok {
			df.terms[t] = 0 // none counted: recorded as read
		}
	}
	// The arrivals are weighed once, for the lookup, the decision and
	// the IDFs their stored profiles keep.
	idf := newIDFMemo(withPoll(df, p.arrivals))
	weighed := weighAll(p.arrivals, idf)
	perArrival, union := queryTerms(weighed, p.opts)
	postings, err := view.StoryPostings(ctx, model.StoryTermQuery{WorkspaceID: ws, Terms: union, Since: since,
		PerTerm: p.opts.PerTermLimit})
	if err != nil {
		return model.StoryPlacement{}, fmt.Errorf("place stories: %w", err)
	}
	found, ranked, revisions, err := p.lookup(ctx, view, ws, postings, perArrival, df, dfSince)
	if err != nil {
		return model.StoryPlacement{}, err
	}
	g := group(p.arrivals, weighed, perArrival, found, idf, p.opts)
	var moved *reexamination
	if p.opts.ReexamineMembers > 0 {
		if moved, err = p.reexamine(ctx, view, ws, g, found, ranked, union, df, dfSince, since.Add(p.opts.Window)); err != nil {
			return model.StoryPlacement{}, fmt.Errorf("place stories of workspace %d: %w", ws, err)
		}
	}
	out := p.placement(g, revisions, weighed, idf.n+1)
	withMoves(&out, moved, revisions)
	return out, nil
}

// lookup builds Group's lookup from the term index's postings, at most
// PerTermLimit per term (the newest; ties: the higher article id), so
// that both databases hand Group the same postings: the candidate
// stories' centroids and revisions, and, for centroids stored without
// IDFs, the document frequencies of their terms not read yet, added to
// df. ranked is each arrival's stored stories as Group ranks them
// (see ranked), which re-examination reuses.
func (p *Placer) lookup(ctx context.Context, view model.StoryView, ws int64, postings []model.StoryPosting,
	perArrival [][]uint32, df *docFreq, dfSince time.Time) (found *Lookup, ranked [][]int64, revisions map[int64]int64, err error) {
	found = &Lookup{Stories: map[int64]Centroid{}, Postings: newestPostings(postings, p.opts.PerTermLimit)}
	ranked = p.ranked(found.Postings, perArrival)
	ids := rankedUnion(ranked)
	revisions = map[int64]int64{}
	if len(ids) == 0 {
		return found, ranked, revisions, nil
	}
	states, err := view.StoryStates(ctx, ws, ids)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("place stories: %w", err)
	}
	var missing []uint32
	for _, st := range states {
		if st.MergedInto != 0 || len(st.Centroid) == 0 {
			continue // merged since the index was read, or from before grouping by terms
		}
		c, err := DecodeCentroid(st.Centroid, st.Articles)
		if err != nil {
			continue // another version's centroid: the story takes no new articles
		}
		found.Stories[st.ID] = c
		revisions[st.ID] = st.Revision
		if c.IDFs != nil {
			continue
		}
		for _, f := range c.Features {
			if _, ok := df.terms[f.Term]; !ok {
				missing = append(missing, f.Term)
			}
		}
	}
	slices.Sort(missing)
	missing = slices.Compact(missing)
	if len(missing) > 0 {
		more, err := view.StoryDocFreq(ctx, ws, missing, dfSince)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("place stories: %w", err)
		}
		for _, t := range missing {
			df.terms[t] = more.Terms[t] // 0 when no article has it: recorded so it is not asked again
		}
	}
	return found, ranked, revisions, nil
}

// newestPostings is the index entries read, at most perTerm per term
// (the newest; ties: the higher article id), by term: the same on both
// databases.
func newestPostings(postings []model.StoryPosting, perTerm int) []Posting {
	slices.SortFunc(postings, func(a, b model.StoryPosting) int {
		if c := cmp.Compare(a.Term, b.Term); c != 0 {
			return c
		}
		if c := b.ReportedAt.Compare(a.ReportedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ArticleID, a.ArticleID)
	})
	out := make([]Posting, 0, len(postings))
	n := 0
	for i, ps := range postings {
		if i == 0 || ps.Term != postings[i-1].Term {
			n = 0
		}
		if n++; n > perTerm {
			continue
		}
		out = append(out, Posting{Term: ps.Term, ArticleID: ps.ArticleID, StoryID: ps.StoryID, At: ps.ReportedAt})
	}
	return out
}

// ranked is, for each arrival, the stored stories Group may compare it
// with: the MaxCompared stories whose best member shares most of its
// index terms within the window (ties: the lower id), in that order,
// which is how Group ranks them. Only these are read, so a decision
// reads at most MaxCompared stories per new article however many the
// index reaches.
func (p *Placer) ranked(postings []Posting, perArrival [][]uint32) [][]int64 {
	byTerm := postingsByTerm(postings)
	out := make([][]int64, len(perArrival))
	var hits []articleHits
	for i, terms := range perArrival {
		hits = sharedHits(hits, postings, byTerm, terms, p.arrivals[i].At, p.opts.Window,
			func(ps *Posting) (int64, bool) { return ps.StoryID, true })
		out[i] = mostShared(hits, p.opts.MaxCompared)
	}
	return out
}

// rankedUnion is the stories of ranked, sorted, each once.
func rankedUnion(ranked [][]int64) []int64 {
	var ids []int64
	for _, r := range ranked {
		ids = append(ids, r...)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// postingsByTerm indexes postings by term: the positions of each term's
// entries.
func postingsByTerm(postings []Posting) map[uint32][]int {
	byTerm := map[uint32][]int{}
	for i, ps := range postings {
		byTerm[ps.Term] = append(byTerm[ps.Term], i)
	}
	return byTerm
}

// articleHits is how many of an article's index terms (or a stored
// member's) another article is filed under, and the story it counts for.
type articleHits struct {
	article, story int64
	n              int
}

// sharedHits counts, for each article of postings (byTerm indexes them)
// reported within the window around at, how many of terms it is filed
// under, and the story it counts for (its last entry's): story says
// which story an entry counts for, or that it does not count. By article
// id; what mostShared ranks. The answer reuses buf's array: a poll
// counts for many articles, and sorting a few hundred entries costs less
// than filling maps with them.
func sharedHits(buf []articleHits, postings []Posting, byTerm map[uint32][]int, terms []uint32, at time.Time,
	window time.Duration, story func(*Posting) (int64, bool)) []articleHits {
	seen := buf[:0]
	for _, t := range terms {
		for _, pi := range byTerm[t] {
			ps := &postings[pi]
			if !withinWindow(ps.At, at, window) {
				continue
			}
			if st, ok := story(ps); ok {
				seen = append(seen, articleHits{article: ps.ArticleID, story: st, n: 1})
			}
		}
	}
	// Stable: an article's entries stay in the order counted, so the
	// last names its story.
	slices.SortStableFunc(seen, func(a, b articleHits) int { return cmp.Compare(a.article, b.article) })
	out := seen[:0]
	for i := 0; i < len(seen); {
		j := i + 1
		for j < len(seen) && seen[j].article == seen[i].article {
			j++
		}
		h := articleHits{article: seen[i].article, story: seen[j-1].story, n: j - i}
		out = append(out, h)
		i = j
	}
	return out
}

// mostShared ranks stories as Group does before comparing them: by the
// most index terms one of their articles shares (hits, as sharedHits
// counts them), ties to the lower id; it returns the first k.
func mostShared(hits []articleHits, k int) []int64 {
	best := slices.Clone(hits)
	slices.SortFunc(best, func(x, y articleHits) int {
		if c := cmp.Compare(x.story, y.story); c != 0 {
			return c
		}
		return cmp.Compare(y.n, x.n)
	})
	best = slices.CompactFunc(best, func(x, y articleHits) bool { return x.story == y.story }) // each story's most
	slices.SortFunc(best, func(x, y articleHits) int {
		if c := cmp.Compare(y.n, x.n); c != 0 {
			return c
		}
		return cmp.Compare(x.story, y.story)
	})
	out := make([]int64, min(len(best), k))
	for i := range out {
		out[i] = best[i].story
	}
	return out
}

// placement is Group's decision as the save stores it. weighed is the
// arrivals as the decision weighed them, whose kept IDFs are those of
// their features once the poll is stored (placedIDFs), over docs
// articles.
func (p *Placer) placement(g *Grouping, revisions map[int64]int64, weighed []*weighing, docs int) model.StoryPlacement {
	out := model.StoryPlacement{Articles: make([]model.StoryChoice, len(g.Placements)), Started: map[int][]byte{},
		Counts: DocCounts(p.arrivals)}
	for i, pl := range g.Placements {
		out.Articles[i] = model.StoryChoice{StoryID: pl.StoryID, JoinsArticle: pl.JoinsItem, Terms: pl.Terms,
			Profile: EncodeProfile(&p.arrivals[i].Profile, pl.Terms, docs, weighed[i].kept)}
		if !pl.NewStory() {
			out.Articles[i].Reason = reasonText(pl.Reason, &p.arrivals[i].Profile)
		}
	}
	for item, c := range g.Started {
		out.Started[item] = EncodeCentroid(c)
	}
	// A merge names the survivor at the time; a later merge of the same
	// decision may fold that one too.
	into := map[int64]int64{}
	for _, m := range g.Merges {
		into[m.From] = m.Into
	}
	for _, m := range g.Merges {
		sm := model.StoryMerge{From: m.From, Into: survivor(into, m.Into)}
		if m.Late {
			sm.Reason = lateReasonText(m.From, sm.Into, m.Reason.Score)
		}
		out.Merges = append(out.Merges, sm)
		out.Updates = append(out.Updates, model.StoryUpdate{ID: m.From, Revision: revisions[m.From]})
	}
	for id, c := range g.Stored {
		out.Updates = append(out.Updates, model.StoryUpdate{ID: id, Revision: revisions[id], Centroid: EncodeCentroid(c)})
	}
	slices.SortFunc(out.Updates, func(a, b model.StoryUpdate) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// placedIDFs is, for each of a poll's arrivals, the IDF of each of its
// features once the poll is stored (df, what the decision read, with the
// poll's articles counted, the article itself too), and the number of
// articles that counts: what a centroid the article joins keeps, and
// what its stored profile keeps for re-examination.
func placedIDFs(arrivals []Arrival, df DocFreq) (docs int, idfs [][]float64) {
	idf := newIDFMemo(withCounted(df, arrivals))
	out := make([][]float64, len(arrivals))
	for i := range arrivals {
		fs := arrivals[i].Profile.Features
		out[i] = make([]float64, len(fs))
		for j, f := range fs {
			out[i][j] = idf.idf(f.Term)
		}
	}
	return idf.n, out
}

// DocCounts is how many of arrivals have each feature, by period of
// report (model.StoryPeriod), and how many there are each period (term 0;
// no feature hashes to 0), sorted by period and term.
func DocCounts(arrivals []Arrival) []model.StoryDocCount {
	// A poll's articles fall in a period or two: each period's terms
	// (term 0 once per article) are sorted and counted in runs, which
	// cost less than a map entry per feature.
	byPeriod := map[int64][]uint32{}
	features := 0
	for i := range arrivals {
		day := model.StoryPeriod(arrivals[i].At)
		terms := append(byPeriod[day], 0)
		for _, f := range arrivals[i].Profile.Features {
			terms = append(terms, f.Term)
		}
		byPeriod[day] = terms
		features += len(arrivals[i].Profile.Features)
	}
	periods := slices.Sorted(maps.Keys(byPeriod))
	out := make([]model.StoryDocCount, 0, features+len(periods))
	for _, day := range periods {
		terms := byPeriod[day]
		slices.Sort(terms)
		for i := 0; i < len(terms); {
			j := i + 1
			for j < len(terms) && terms[j] == terms[i] {
				j++
			}
			out = append(out, model.StoryDocCount{Period: day, Term: terms[i], Docs: j - i})
			i = j
		}
	}
	return out
}

// lateReasonText is the reason of an article whose story of its own
// joined story into late. A centroid keeps no words, so it names no
// shared terms.
func lateReasonText(from, into int64, score float64) string {
	return fmt.Sprintf("joined story %d late: the story it started, %d, was merged into it after a later poll grew it, score %.2f", into, from, score)
}

// reasonText is a Reason in the words stored with the article: the story
// and member it matched, the similarity, and the shared features as the
// article writes them.
func reasonText(r Reason, p *Profile) string {
	var sb strings.Builder
	switch {
	case r.StoryID > 0 && r.ArticleID > 0:
		fmt.Fprintf(&sb, "joined story %d: similar to its articles (closest article %d), score %.2f", r.StoryID, r.ArticleID, r.Score)
	case r.StoryID > 0:
		fmt.Fprintf(&sb, "joined story %d, score %.2f", r.StoryID, r.Score)
	default:
		fmt.Fprintf(&sb, "joined the story of article %d of the same poll, score %.2f", r.Item+1, r.Score)
	}
	words := make([]string, 0, len(r.Shared))
	for _, t := range r.Shared {
		if i, ok := slices.BinarySearchFunc(p.Features, t, func(f Feature, t uint32) int { return cmp.Compare(f.Term, t) }); ok && i < len(p.Words) && p.Words[i] != "" {
			words = append(words, strconv.Quote(p.Words[i]))
		}
	}
	if len(words) > 0 {
		sb.WriteString("; shared terms: " + strings.Join(words, ", "))
	}
	return sb.String()
}
