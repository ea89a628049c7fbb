package stories

import (
	"cmp"
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// placeBoth places one poll with the daemon's placer, reading MemGroups'
// state before the poll through a save's view, then with MemGroups, and
// checks that the two agree: every stored article ends in the story the
// placement implies (its merges, then its moves), each new article that
// joins a stored story is in it, and every story a move leaves or joins
// is in the placement's updates (so the save's lock checks it). It
// returns the placement's moves and the merges of emptied stories.
func placeBoth(t *testing.T, mem *MemGroups, stored *[]int64, poll []Arrival, opts GroupOptions) (moves, emptied int) {
	t.Helper()
	ctx := context.Background()
	p, err := NewPlacer(poll, opts)
	if err != nil {
		t.Fatal(err)
	}
	view := &countingView{StoryView: memView{mem.workspace(1)}}
	placed, err := p.PlaceStories(ctx, view, model.StoryRequest{WorkspaceID: 1, Facts: make([]*model.StoryFacts, len(poll))})
	if err != nil {
		t.Fatal(err)
	}
	// The lookup's three reads, then the members, their frequencies, the
	// index and the candidate stories: never more, whatever the poll.
	if view.calls > 7 {
		t.Errorf("%d reads, want at most 7", view.calls)
	}
	want := map[int64]int64{}
	into := map[int64]int64{}
	for _, m := range placed.Merges {
		into[m.From] = m.Into
		if m.Reason != "" {
			emptied++
		}
	}
	for _, a := range *stored {
		want[a] = survivor(into, mem.StoryOf(1, a))
	}
	locked := map[int64]bool{}
	for _, u := range placed.Updates {
		locked[u.ID] = true
	}
	for _, m := range placed.Merges {
		if !locked[m.From] || !locked[m.Into] {
			t.Errorf("merge %+v: stories not all in the updates %+v", m, placed.Updates)
		}
	}
	for _, mv := range placed.Moves {
		want[mv.ArticleID] = mv.Into
		moves++
		if !locked[mv.From] || !locked[mv.Into] {
			t.Errorf("move %+v: stories not all in the updates %+v", mv, placed.Updates)
		}
	}
	mem.opts = opts.WithDefaults()
	ids, _, _, err := mem.Place(ctx, 1, poll)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range *stored {
		if got := mem.StoryOf(1, a); got != want[a] {
			t.Errorf("article %d is in story %d in memory, the placer's placement puts it in %d", a, got, want[a])
		}
	}
	for i, c := range placed.Articles {
		if c.StoryID > 0 && mem.StoryOf(1, ids[i]) != c.StoryID {
			t.Errorf("new article %d is in story %d in memory, the placer put it in %d", i, mem.StoryOf(1, ids[i]), c.StoryID)
		}
	}
	*stored = append(*stored, ids...)
	return moves, emptied
}

// The daemon's placer re-examines as MemGroups does. Bent options place
// Reid reports wrongly, then reports placed with the shipped options
// make re-examination correct them: the first Reid report, put in the
// Lohan story, moves out of it (a move); two Reid reports kept alone
// become one story (the lone one's story emptied, merged).
func TestPlacerReexaminesAsMemGroups(t *testing.T) {
	lohan := lohanCheckIn()
	reid := []Arrival{
		arrival("Tara Reid checks into Promises in Malibu",
			"Actress Tara Reid checked into the Promises Treatment Center in Malibu, publicist Jack Ketsoyan said.", time.Hour),
		arrival("Tara Reid enters Promises in Malibu",
			"Actress Tara Reid has entered the Promises Treatment Center in Malibu, publicist Jack Ketsoyan said on Tuesday.", 2*time.Hour),
		arrival("Tara Reid enters Promises in Malibu, publicist says",
			"Actress Tara Reid has entered the Promises Treatment Center in Malibu, publicist Jack Ketsoyan said on Tuesday.", 4*time.Hour),
	}
	// A background archive, so that words weigh as in a workspace.
	var background []Profile
	for _, a := range loadStorySet(t) {
		background = append(background, NewProfile(a.Title, a.Markdown))
	}
	type step struct {
		a    Arrival
		opts GroupOptions
	}
	apart := GroupOptions{Threshold: 0.99, MergeThreshold: 0.99}
	shipped := GroupOptions{MergeThreshold: 0.99} // no merge through the last report: moves only
	for _, tc := range []struct {
		name           string
		steps          []step
		moves, emptied int
	}{
		{"moved out of a story", []step{
			{lohan, GroupOptions{}},
			{reid[0], GroupOptions{Threshold: 0.01, MergeThreshold: 0.99, IndexTerms: MaxProfileFeatures}},
			{reid[1], apart},
			{reid[2], shipped},
		}, 1, 0},
		{"a lone report's story emptied", []step{
			{lohan, GroupOptions{}},
			{reid[0], apart},
			{reid[1], apart},
			{reid[2], shipped},
		}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem, err := NewMemGroups(GroupOptions{})
			if err != nil {
				t.Fatal(err)
			}
			mem.Count(1, background)
			var stored []int64
			moves, emptied := 0, 0
			for _, s := range tc.steps {
				m, e := placeBoth(t, mem, &stored, []Arrival{s.a}, s.opts)
				moves, emptied = moves+m, emptied+e
			}
			if moves != tc.moves || emptied != tc.emptied {
				t.Errorf("%d moves and %d emptied stories, want %d and %d", moves, emptied, tc.moves, tc.emptied)
			}
			if mem.StoryOf(1, stored[1]) == mem.StoryOf(1, stored[0]) {
				t.Errorf("the first Reid report is in the Lohan story")
			}
			for _, a := range stored[2:] {
				if mem.StoryOf(1, a) != mem.StoryOf(1, stored[1]) {
					t.Errorf("Reid report %d is in story %d, the first in %d", a, mem.StoryOf(1, a), mem.StoryOf(1, stored[1]))
				}
			}
		})
	}
}

// storySetPolls is the labelled story set in polls of size articles, in
// reported order.
func storySetPolls(t *testing.T, size int) [][]Arrival {
	arts := loadStorySet(t)
	order := make([]int, len(arts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return arts[order[a]].PublishedAt.Before(arts[order[b]].PublishedAt) })
	var polls [][]Arrival
	for start := 0; start < len(order); start += size {
		var poll []Arrival
		for _, i := range order[start:min(start+size, len(order))] {
			poll = append(poll, Arrival{Profile: NewProfile(arts[i].Title, arts[i].Markdown), At: arts[i].PublishedAt})
		}
		polls = append(polls, poll)
	}
	return polls
}

// On the labelled story set, three articles a poll, placer and MemGroups
// agree poll after poll.
func TestPlacerReexaminesStorySetAsMemGroups(t *testing.T) {
	mem, err := NewMemGroups(GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var stored []int64
	for _, poll := range storySetPolls(t, 3) {
		placeBoth(t, mem, &stored, poll, GroupOptions{})
	}
}

// membersView records what re-examination reads of the members, and how
// many frequency reads a placement makes.
type membersView struct {
	*countingView
	queries  []model.StoryMemberQuery
	members  int
	docFreqs int
}

func (v *membersView) StoryMembers(ctx context.Context, q model.StoryMemberQuery) ([]model.StoryMember, error) {
	v.queries = append(v.queries, q)
	out, err := v.countingView.StoryMembers(ctx, q)
	v.members += len(out)
	return out, err
}

func (v *membersView) StoryDocFreq(ctx context.Context, ws int64, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	v.docFreqs++
	return v.countingView.StoryDocFreq(ctx, ws, terms, since)
}

// What a placement reads does not grow with a story's size or with the
// number of articles saved: into a workspace whose one story holds 40
// reports within the window, polls of 1 and of 20 more reports make the
// same reads (the lookup's three and re-examination's three), and
// re-examination reads the story's latest DefaultReexamineMembers
// members only. The members kept the IDFs they were placed with in an
// archive about as large as now, so no frequency of theirs is read; a
// fourth read, of their frequencies, comes back for members stored
// without kept IDFs (profile version 1) and for members placed when the
// archive counted less than 2/3 of what it counts now.
func TestReexaminationReadsAreBounded(t *testing.T) {
	archive := newSynthArchive(t, 5)
	title, body := archive.Article()
	report := func(i int) Arrival {
		return Arrival{Profile: NewProfile(title, body), At: groupT0.Add(time.Duration(i) * time.Minute)}
	}
	var background []Profile
	for range 200 {
		background = append(background, NewProfile(archive.Article()))
	}
	for _, tc := range []struct {
		name  string
		stale func(w *memWorkspace, article int64)
		reads int
	}{
		{"kept IDFs", func(*memWorkspace, int64) {}, 6},
		{"version 1", func(w *memWorkspace, a int64) { w.mem.idfs[a] = nil }, 7},
		// Placed when the archive counted just under what the bound lets
		// a member's kept IDFs stand for now.
		{"young archive", func(w *memWorkspace, a int64) {
			w.mem.docs[a] = (w.vocab.Docs()+1)*keptFreshGrowthDen/keptFreshGrowthNum - 1
		}, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem, err := NewMemGroups(GroupOptions{})
			if err != nil {
				t.Fatal(err)
			}
			mem.Count(1, background)
			for i := range 40 {
				if _, _, _, err := mem.Place(context.Background(), 1, []Arrival{report(i)}); err != nil {
					t.Fatal(err)
				}
			}
			w := mem.workspace(1)
			if n := len(w.stories); n != 1 {
				t.Fatalf("%d stories, the test needs the 40 reports in one", n)
			}
			for a := range w.mem.profile {
				tc.stale(w, a)
			}
			reads := map[int]int{}
			for _, n := range []int{1, 20} {
				var poll []Arrival
				for i := range n {
					poll = append(poll, report(100+i))
				}
				p, err := NewPlacer(poll, GroupOptions{})
				if err != nil {
					t.Fatal(err)
				}
				view := &membersView{countingView: &countingView{StoryView: memView{w}}}
				if _, err := p.PlaceStories(context.Background(), view, model.StoryRequest{WorkspaceID: 1, Facts: make([]*model.StoryFacts, n)}); err != nil {
					t.Fatal(err)
				}
				reads[n] = view.calls
				if len(view.queries) != 1 || view.queries[0].PerStory != DefaultReexamineMembers || view.members > DefaultReexamineMembers {
					t.Errorf("poll of %d: member reads %+v gave %d members, want one read of at most %d", n, view.queries, view.members, DefaultReexamineMembers)
				}
				if want := tc.reads - 5; view.docFreqs != want {
					t.Errorf("poll of %d: %d frequency reads, want %d", n, view.docFreqs, want)
				}
			}
			if reads[1] != tc.reads || reads[20] != tc.reads {
				t.Errorf("reads by poll size %v, want %d for each", reads, tc.reads)
			}
		})
	}
}

// readsView records the term index queries and the stories asked for,
// in order.
type readsView struct {
	model.StoryView
	terms  []model.StoryTermQuery
	states [][]int64
}

func (v *readsView) StoryPostings(ctx context.Context, q model.StoryTermQuery) ([]model.StoryPosting, error) {
	v.terms = append(v.terms, q)
	return v.StoryView.StoryPostings(ctx, q)
}

func (v *readsView) StoryStates(ctx context.Context, ws int64, ids []int64) ([]model.StoryState, error) {
	v.states = append(v.states, ids)
	return v.StoryView.StoryStates(ctx, ws, ids)
}

// Re-examination reads again nothing the decision read: the term index
// entries of the terms the decision looked up are taken from its read,
// and the stories it read (or changed) are not asked for again. On the
// labelled story set, three articles a poll, no poll's re-examination
// asks for a term or a story the decision asked for, and the polls still
// re-examine (their terms are read).
func TestReexaminationRereadsNothingTheDecisionRead(t *testing.T) {
	mem, err := NewMemGroups(GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	reexamined := 0
	for n, poll := range storySetPolls(t, 3) {
		p, err := NewPlacer(poll, GroupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		view := &readsView{StoryView: memView{mem.workspace(1)}}
		if _, err := p.PlaceStories(ctx, view, model.StoryRequest{WorkspaceID: 1, Facts: make([]*model.StoryFacts, len(poll))}); err != nil {
			t.Fatal(err)
		}
		if len(view.terms) == 2 {
			reexamined++
			for _, term := range view.terms[1].Terms {
				if slices.Contains(view.terms[0].Terms, term) {
					t.Errorf("poll %d: re-examination reads term %d of the index again", n, term)
				}
			}
		}
		if len(view.states) == 2 {
			for _, id := range view.states[1] {
				if slices.Contains(view.states[0], id) {
					t.Errorf("poll %d: re-examination reads story %d again", n, id)
				}
			}
		}
		if _, _, _, err := mem.Place(ctx, 1, poll); err != nil {
			t.Fatal(err)
		}
	}
	if reexamined < 10 {
		t.Errorf("%d polls re-examined, the test needs more", reexamined)
	}
}

// A member is compared with the reexamineCandidates stories that share
// most of its index terms, not with all a placement would compare: of
// six stories sharing 6, 5, …, 1 of its terms, the four sharing most.
func TestReexaminationComparesFewStories(t *testing.T) {
	o := GroupOptions{}.WithDefaults()
	if o.MaxCompared <= reexamineCandidates {
		t.Fatalf("MaxCompared %d: the test needs more than %d", o.MaxCompared, reexamineCandidates)
	}
	m := StoredMember{ArticleID: 1, StoryID: 1, At: groupT0, Terms: []uint32{11, 12, 13, 14, 15, 16}}
	var postings []Posting
	for s := range 6 {
		for _, term := range m.Terms[:6-s] {
			postings = append(postings, Posting{Term: term, ArticleID: int64(100 + s), StoryID: int64(10 + s), At: groupT0})
		}
	}
	slices.SortStableFunc(postings, func(a, b Posting) int { return int(a.Term) - int(b.Term) })
	rc := newReexamCandidates([]StoredMember{m}, postings, groupT0, o)
	if want := []int64{10, 11, 12, 13}; !slices.Equal(rc.ranked[0], want) || !slices.Equal(rc.union, want) {
		t.Errorf("compared with %v (union %v), want %v", rc.ranked[0], rc.union, want)
	}
}

// A placer re-examines the stories its decision ranked first for each
// article (reexaminedOf) rather than ranking them again: on the labelled
// story set, poll after poll, those are the stories ranked again from the
// decision's lookup, with the shipped options, with every article a
// story of its own (so that an article ranks more stories than
// re-examination looks at) and with fewer stories compared than it looks
// at.
func TestReexaminedReusesTheDecisionsRanking(t *testing.T) {
	apart := GroupOptions{Threshold: 0.99, MergeThreshold: 0.99}
	for _, opts := range []GroupOptions{{}, apart, {Threshold: 0.99, MergeThreshold: 0.99, MaxCompared: 2}} {
		mem, err := NewMemGroups(opts)
		if err != nil {
			t.Fatal(err)
		}
		o := mem.opts
		looked := 0
		for n, poll := range storySetPolls(t, 5) {
			w := mem.workspace(1)
			g, found, err := mem.Decide(context.Background(), 1, poll)
			if err != nil {
				t.Fatal(err)
			}
			perArrival, _, err := QueryTerms(poll, withPoll(w.vocab, poll), o)
			if err != nil {
				t.Fatal(err)
			}
			ranked := (&Placer{opts: o, arrivals: poll}).ranked(found.Postings, perArrival)
			got := reexaminedOf(g, ranked, w.resolve)
			// Ranked again from the grouping's terms, to the stories
			// re-examination compares.
			few := o
			few.MaxCompared = min(o.MaxCompared, reexamineCompared)
			var want []int64
			for id := range g.Stored {
				want = append(want, id)
			}
			for i, pl := range g.Placements {
				hits, storyOf := mapSharedHits(found.Postings, pl.Terms, poll[i].At, o.Window,
					func(ps *Posting) (int64, bool) { return ps.StoryID, true })
				for _, id := range mapMostShared(hits, storyOf, few.MaxCompared) {
					want = append(want, w.resolve(id))
				}
			}
			slices.Sort(want)
			want = slices.Compact(want)
			if !slices.Equal(got, want) {
				t.Errorf("options %+v, poll %d: re-examined from the decision's ranking %v, ranked again %v", opts, n, got, want)
			}
			looked += len(want)
			if _, _, _, err := mem.Place(context.Background(), 1, poll); err != nil {
				t.Fatal(err)
			}
		}
		if looked == 0 {
			t.Errorf("options %+v: no poll re-examined a story: the test compared nothing", opts)
		}
	}
}

// narrowTerms keeps each member's heaviest index terms as a fresh
// weighing ranks them, and leaves the member weighed for reexamine,
// which so weighs no member twice: narrowing the labelled story set's
// articles (their 12 index terms each) keeps the 6 a member's own
// weighing puts first, and asking the member's weighing again answers
// the one narrowTerms made.
func TestNarrowTermsWeighsEachMemberOnce(t *testing.T) {
	vocab := NewVocabulary()
	var ms []StoredMember
	for i, a := range loadStorySet(t) {
		p := NewProfile(a.Title, a.Markdown)
		vocab.Add(&p)
		ms = append(ms, StoredMember{ArticleID: int64(i + 1), StoryID: 1, At: groupT0, Profile: p})
	}
	for i := range ms {
		ms[i].Terms = topTerms(weigh(&ms[i].Profile, newIDFMemo(vocab)).vec, DefaultIndexTerms)
	}
	ws := newMemberWeighings(currentIDFs(vocab), len(ms))
	narrowed := narrowTerms(ms, ws, reexamineTerms)
	for i, m := range narrowed {
		fresh := weigh(&ms[i].Profile, newIDFMemo(vocab)).vec
		var indexed []weighted
		for _, w := range fresh {
			if slices.Contains(ms[i].Terms, w.term) {
				indexed = append(indexed, w)
			}
		}
		if want := topTerms(indexed, reexamineTerms); !slices.Equal(m.Terms, want) {
			t.Errorf("member %d: narrowed to %v, want %v", m.ArticleID, m.Terms, want)
		}
		if len(ms[i].Terms) <= reexamineTerms {
			continue
		}
		w := ws.ws[i]
		if w == nil || ws.of(i, &narrowed[i]) != w {
			t.Fatalf("member %d: narrowTerms left no weighing, or reexamine would weigh it again", m.ArticleID)
		}
		if !slices.Equal(w.vec, fresh) {
			t.Errorf("member %d: narrowTerms changed the weighing it keeps", m.ArticleID)
		}
	}
}

// mapSharedHits, mapMostShared and mapClosest rank stories for an
// article's index terms the plain way, with maps: what sharedHits,
// mostShared and reexamCandidates.rank answer.
func mapSharedHits(postings []Posting, terms []uint32, at time.Time, window time.Duration,
	story func(*Posting) (int64, bool)) (hits map[int64]int, storyOf map[int64]int64) {
	hits, storyOf = map[int64]int{}, map[int64]int64{}
	for _, t := range terms {
		for i := range postings {
			ps := &postings[i]
			if ps.Term != t || !withinWindow(ps.At, at, window) {
				continue
			}
			if st, ok := story(ps); ok {
				hits[ps.ArticleID]++
				storyOf[ps.ArticleID] = st
			}
		}
	}
	return hits, storyOf
}

func mapMostShared(hits map[int64]int, storyOf map[int64]int64, k int) []int64 {
	best := map[int64]int{}
	for a, n := range hits {
		best[storyOf[a]] = max(best[storyOf[a]], n)
	}
	var order []int64
	for id := range best {
		order = append(order, id)
	}
	slices.SortFunc(order, func(x, y int64) int {
		if best[x] != best[y] {
			return best[y] - best[x]
		}
		return int(x - y)
	})
	return order[:min(len(order), k)]
}

func mapClosest(hits map[int64]int, storyOf map[int64]int64) map[int64]int64 {
	closest := map[int64]int64{}
	for a, n := range hits {
		st := storyOf[a]
		c, ok := closest[st]
		if !ok || n > hits[c] || n == hits[c] && a < c {
			closest[st] = a
		}
	}
	return closest
}

// Ranking stories by shared index terms through sorted hits (sharedHits,
// mostShared, rank) answers what counting them in maps does: the same
// stories in the same order, and for each the same closest article, on
// random index entries with ties in hits, entries outside the window, an
// article's entries under two stories (the last counted names it) and
// entries that do not count (the member itself, its own story).
func TestRankingBySortedHitsAsByMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	o := GroupOptions{}.WithDefaults()
	for round := range 300 {
		var postings []Posting
		for range rng.IntN(200) {
			a := int64(1 + rng.IntN(40))
			st := a%7 + 1
			if rng.IntN(20) == 0 {
				st = int64(1 + rng.IntN(7)) // the article under another story
			}
			at := groupT0.Add(time.Duration(rng.IntN(20)-10) * 24 * time.Hour)
			postings = append(postings, Posting{Term: uint32(1 + rng.IntN(15)), ArticleID: a, StoryID: st, At: at})
		}
		slices.SortStableFunc(postings, func(a, b Posting) int { return cmp.Compare(a.Term, b.Term) })
		m := StoredMember{ArticleID: int64(1 + rng.IntN(40)), StoryID: int64(1 + rng.IntN(7))}
		for range 1 + rng.IntN(8) {
			m.Terms = append(m.Terms, uint32(1+rng.IntN(15)))
		}
		slices.Sort(m.Terms)
		m.Terms = slices.Compact(m.Terms)
		resolve := func(id int64) int64 {
			if id == 3 {
				return 5
			}
			return id
		}
		counts := func(ps *Posting) (int64, bool) {
			st := resolve(ps.StoryID)
			return st, st != m.StoryID && ps.ArticleID != m.ArticleID
		}
		hits, storyOf := mapSharedHits(postings, m.Terms, groupT0, o.Window, counts)
		for _, k := range []int{1, 4, 8} {
			got := mostShared(sharedHits(nil, postings, postingsByTerm(postings), m.Terms, groupT0, o.Window, counts), k)
			if want := mapMostShared(hits, storyOf, k); !slices.Equal(got, want) {
				t.Fatalf("round %d, k %d: ranked %v, by maps %v", round, k, got, want)
			}
		}
		rc := &reexamCandidates{byTerm: postingsByTerm(postings)}
		ranked, closest := rc.rank(m, m.StoryID, postings, resolve, groupT0, o)
		if want := mapMostShared(hits, storyOf, min(o.MaxCompared, reexamineCandidates)); !slices.Equal(ranked, want) {
			t.Fatalf("round %d: rank %v, by maps %v", round, ranked, want)
		}
		byMaps := mapClosest(hits, storyOf)
		for i, st := range ranked {
			if closest[i] != byMaps[st] {
				t.Errorf("round %d: story %d: closest article %d, by maps %d", round, st, closest[i], byMaps[st])
			}
		}
	}
}

// A move's reason names the terms its member shares with the story it
// moved to, though re-examination writes the vectors it compares over
// arrays it reuses: each labelled story set article, as the member of a
// story it shares with an unrelated one, is compared with the others'
// stories (one article each), and the first move's story and shared
// terms are those of the candidate it clears most, compared afresh.
func TestReexaminationMovesWithTheBestCandidatesTerms(t *testing.T) {
	profiles, vocab, o, idf, cents, postings := storySetStories(t)
	moved, notLast := 0, 0
	for i := range profiles {
		w := weigh(&profiles[i], idf)
		unrelated := weigh(&profiles[(i+len(profiles)/2)%len(profiles)], idf)
		home := maps.Clone(cents)
		home[1] = Centroid{}.add(w).add(unrelated)
		m := StoredMember{ArticleID: int64(1000 + i), StoryID: 1, At: groupT0, Profile: profiles[i],
			Terms: topTerms(w.vec, reexamineTerms)}
		rc := newReexamCandidates([]StoredMember{m}, postings, groupT0, o)
		re := reexamine([]StoredMember{m}, postings, rc, home, newMemberWeighings(currentIDFs(vocab), 1), groupT0, o)
		if len(re.Moves) == 0 {
			continue
		}
		moved++
		best, bestClear, bestAt := int64(0), 0.0, 0
		for k, id := range rc.ranked[0] {
			c := home[id]
			if clear := o.clearance(dot(w.vec, c.vectorFor(w)), c.Articles); best == 0 || clear > bestClear {
				best, bestClear, bestAt = id, clear, k
			}
		}
		if bestAt < len(rc.ranked[0])-1 {
			notLast++
		}
		c := home[best]
		mv := re.Moves[0]
		if want := sharedTerms(w.vec, c.vectorFor(w)); mv.Into != best || !slices.Equal(mv.Reason.Shared, want) {
			t.Errorf("article %d moved to story %d sharing %v, want story %d sharing %v", i, mv.Into, mv.Reason.Shared, best, want)
		}
	}
	if moved == 0 || notLast == 0 {
		t.Fatalf("%d moves, %d to a story compared before the last: the test exercised nothing", moved, notLast)
	}
}

// currentIDFs weighs members under df alone, as if every frequency were
// read.
func currentIDFs(df DocFreq) *memberIDFs {
	return newMemberIDFs(df, func(uint32) bool { return true })
}

// keptAsStored is a member's kept IDFs as EncodeProfile takes them (nil
// stays nil: a version 1 profile).
func keptAsStored(idfs []float32) []float64 {
	if idfs == nil {
		return nil
	}
	out := make([]float64, len(idfs))
	for i, x := range idfs {
		out[i] = float64(x)
	}
	return out
}

// docFreqTermsView records the terms whose frequencies a placement reads
// and the members it reads.
type docFreqTermsView struct {
	model.StoryView
	asked   map[uint32]bool
	members []model.StoryMember
}

func (v *docFreqTermsView) StoryDocFreq(ctx context.Context, ws int64, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	for _, t := range terms {
		v.asked[t] = true
	}
	return v.StoryView.StoryDocFreq(ctx, ws, terms, since)
}

func (v *docFreqTermsView) StoryMembers(ctx context.Context, q model.StoryMemberQuery) ([]model.StoryMember, error) {
	out, err := v.StoryView.StoryMembers(ctx, q)
	v.members = append(v.members, out...)
	return out, err
}

// MemGroups weighs a member's feature with the current frequency exactly
// when the placer has read it: a feature of the poll, or of a member
// weighed with the current frequencies (placed while the archive was
// young), so that a member with fresh kept IDFs that shares a feature
// with such a member is weighed alike by both. On the labelled story set,
// in polls of three from an empty workspace, where both kinds of member
// meet in one poll.
func TestMemGroupsHoldsTheFrequenciesThePlacerReads(t *testing.T) {
	mem, err := NewMemGroups(GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultGroupOptions()
	mixed := 0
	for _, poll := range storySetPolls(t, 3) {
		w := mem.workspace(1)
		p, err := NewPlacer(poll, GroupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		view := &docFreqTermsView{StoryView: memView{w}, asked: map[uint32]bool{}}
		if _, err := p.PlaceStories(context.Background(), view, model.StoryRequest{WorkspaceID: 1, Facts: make([]*model.StoryFacts, len(poll))}); err != nil {
			t.Fatal(err)
		}
		var ms []StoredMember
		for _, r := range view.members {
			prof, docs, idfs, err := DecodeProfileIDFs(r.Profile)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, StoredMember{ArticleID: r.ArticleID, StoryID: r.StoryID, At: r.ReportedAt, Profile: prof, IDFs: idfs, PlacedDocs: docs})
		}
		ms = latestMembers(ms, o.ReexamineMembers, earliest(poll), o.Window)
		counted := w.vocab.Docs() + len(poll)
		held := readByPlacer(poll, ms, counted)
		fresh, young := false, false
		for i := range ms {
			if keptFresh(&ms[i], counted) {
				fresh = true
			} else {
				young = true
			}
			for _, f := range ms[i].Profile.Features {
				if held(f.Term) != view.asked[f.Term] {
					t.Fatalf("member %d, term %d: held %v in memory, read %v by the placer", ms[i].ArticleID, f.Term, held(f.Term), view.asked[f.Term])
				}
			}
		}
		if fresh && young {
			mixed++
		}
		if _, _, _, err := mem.Place(context.Background(), 1, poll); err != nil {
			t.Fatal(err)
		}
	}
	if mixed == 0 {
		t.Fatal("no poll re-examined members both with and without fresh kept IDFs")
	}
}

// storySetStories is the labelled story set as stories of one article
// each (ids 100 on, their articles 1000 on), for tests of what a
// decision compares: the articles' profiles and vocabulary, options that
// join at a low similarity and almost never merge, the IDFs, the
// stories' centroids and their term index entries by term.
func storySetStories(t *testing.T) ([]Profile, *Vocabulary, GroupOptions, *idfMemo, map[int64]Centroid, []Posting) {
	t.Helper()
	arts := loadStorySet(t)
	vocab := NewVocabulary()
	profiles := make([]Profile, len(arts))
	for i, a := range arts {
		profiles[i] = NewProfile(a.Title, a.Markdown)
		vocab.Add(&profiles[i])
	}
	o := GroupOptions{Threshold: 0.05, MergeThreshold: 0.99}.WithDefaults()
	idf := newIDFMemo(vocab)
	cents := map[int64]Centroid{}
	var postings []Posting
	for j := range profiles {
		w := weigh(&profiles[j], idf)
		cents[int64(100+j)] = Centroid{}.add(w)
		for _, term := range topTerms(w.vec, DefaultIndexTerms) {
			postings = append(postings, Posting{Term: term, ArticleID: int64(1000 + j), StoryID: int64(100 + j), At: groupT0})
		}
	}
	slices.SortStableFunc(postings, func(a, b Posting) int { return cmp.Compare(a.Term, b.Term) })
	return profiles, vocab, o, idf, cents, postings
}
