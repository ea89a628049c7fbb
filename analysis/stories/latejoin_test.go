package stories

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// lateJoinPolls are three polls of one event: the second report starts a
// story of its own (the threshold is bent up for it alone), and the third
// report joins one of the two stories without merging them (the merge
// threshold is out of reach).
var lateJoinPolls = [][]Arrival{
	{arrival("Lindsay Lohan checks into Betty Ford Center",
		"Lindsay Lohan has checked into the Betty Ford Center in Rancho Mirage to begin a 90-day court-ordered stay, her lawyer Shawn Holley said.", 0)},
	{arrival("Lohan enters Betty Ford for 90-day rehab stay",
		"Actress Lindsay Lohan arrived at the Betty Ford Center on Friday for the 90-day rehabilitation stay a Los Angeles judge ordered, Shawn Holley confirmed.", time.Hour)},
	{arrival("Lohan begins court-ordered rehab at Betty Ford",
		"Lindsay Lohan began her court-ordered 90-day stay at the Betty Ford Center in Rancho Mirage on Friday, lawyer Shawn Holley said; a Los Angeles judge ordered the rehabilitation.", 2*time.Hour)},
}

// placeLateJoinPolls places the first two polls, the second at a
// threshold no report clears, and returns the storage and the stories
// of the first two reports.
func placeLateJoinPolls(t *testing.T, opts GroupOptions) (mem *MemGroups, first, second int64) {
	t.Helper()
	mem, err := NewMemGroups(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, s1, _, err := mem.Place(ctx, 1, lateJoinPolls[0])
	if err != nil {
		t.Fatal(err)
	}
	threshold := mem.opts.Threshold
	mem.opts.Threshold = 0.98
	_, s2, _, err := mem.Place(ctx, 1, lateJoinPolls[1])
	if err != nil {
		t.Fatal(err)
	}
	mem.opts.Threshold = threshold
	if s1[0] == s2[0] {
		t.Fatalf("the second report joined story %d; the test needs a story of its own", s1[0])
	}
	return mem, s1[0], s2[0]
}

// A report that started a story of its own joins the story of its event
// once a later poll has grown that story past the threshold: its story is
// merged into the other as a late join, with the reason of its article.
// Without late joins it stays apart.
func TestOneArticleStoryJoinsLate(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(map[bool]string{false: "without late joins", true: "with late joins"}[late], func(t *testing.T) {
			mem, s1, s2 := placeLateJoinPolls(t, GroupOptions{MergeThreshold: 0.99, LateJoins: late})
			_, s3, g, err := mem.Place(context.Background(), 1, lateJoinPolls[2])
			if err != nil {
				t.Fatal(err)
			}
			if s3[0] != s1 && s3[0] != s2 {
				t.Fatalf("the third report started story %d; the test needs it in story %d or %d", s3[0], s1, s2)
			}
			alone := s1 + s2 - s3[0] // the one-article story the third report did not join
			if !late {
				if len(g.Merges) != 0 || mem.StoryOf(1, 1) == mem.StoryOf(1, 2) {
					t.Errorf("without late joins: merges %+v, stories %d and %d; want none, apart", g.Merges, mem.StoryOf(1, 1), mem.StoryOf(1, 2))
				}
				return
			}
			if len(g.Merges) != 1 {
				t.Fatalf("merges = %+v, want story %d joining story %d late", g.Merges, alone, s3[0])
			}
			m := g.Merges[0]
			if !m.Late || m.From != alone || m.Into != s3[0] || m.Reason.StoryID != s3[0] || m.Reason.Score < DefaultGroupThreshold || len(m.Reason.Shared) == 0 {
				t.Errorf("merge = %+v, want story %d late into %d with a score over the threshold and shared terms", m, alone, s3[0])
			}
			for art := int64(1); art <= 3; art++ {
				if got := mem.StoryOf(1, art); got != s3[0] {
					t.Errorf("article %d is in story %d, want %d", art, got, s3[0])
				}
			}
		})
	}
}

// memView is a MemGroups workspace as a save's view reads the store: the
// frequencies, the index and every story's stored state.
type memView struct{ w *memWorkspace }

func (v memView) StoryDocFreq(_ context.Context, _ int64, terms []uint32, _ time.Time) (*model.StoryDocFreq, error) {
	out := &model.StoryDocFreq{Docs: v.w.vocab.Docs(), Terms: map[uint32]int{}}
	for _, t := range terms {
		if n := v.w.vocab.DocFreq(t); n > 0 {
			out.Terms[t] = n
		}
	}
	return out, nil
}

func (v memView) StoryPostings(_ context.Context, q model.StoryTermQuery) ([]model.StoryPosting, error) {
	var out []model.StoryPosting
	for _, p := range v.w.lookup(q.Terms, q.Since, q.PerTerm).Postings {
		out = append(out, model.StoryPosting{Term: p.Term, ArticleID: p.ArticleID, StoryID: p.StoryID, ReportedAt: p.At})
	}
	return out, nil
}

func (v memView) StoryStates(_ context.Context, _ int64, ids []int64) ([]model.StoryState, error) {
	var out []model.StoryState
	for _, id := range ids {
		if c, ok := v.w.stories[id]; ok {
			out = append(out, model.StoryState{ID: id, Articles: c.Articles, Revision: 1, Centroid: EncodeCentroid(c)})
		}
	}
	return out, nil
}

func (v memView) StoryMembers(_ context.Context, q model.StoryMemberQuery) ([]model.StoryMember, error) {
	var out []model.StoryMember
	for _, s := range q.Stories {
		var ms []StoredMember
		for _, a := range v.w.mem.members[s] {
			if at := v.w.mem.at[a]; !at.Before(q.Since) && !at.After(q.Until) {
				ms = append(ms, StoredMember{ArticleID: a, StoryID: s, At: at})
			}
		}
		slices.SortFunc(ms, func(a, b StoredMember) int {
			if c := b.At.Compare(a.At); c != 0 {
				return c
			}
			return cmp.Compare(b.ArticleID, a.ArticleID)
		})
		for _, m := range ms[:min(len(ms), q.PerStory)] {
			terms := slices.Sorted(slices.Values(v.w.mem.terms[m.ArticleID]))
			out = append(out, model.StoryMember{ArticleID: m.ArticleID, StoryID: s, ReportedAt: m.At,
				Profile: EncodeProfile(v.w.mem.profile[m.ArticleID], terms, v.w.mem.docs[m.ArticleID], keptAsStored(v.w.mem.idfs[m.ArticleID])), Terms: terms})
		}
	}
	return out, nil
}

// The daemon's placer decides a late join as MemGroups does, from what
// its one lookup read: the same choices and the same merge, the
// one-article story's revision checked like any merged story's, and no
// statement more than the lookup's three.
func TestPlacerJoinsLateAsMemGroups(t *testing.T) {
	opts := GroupOptions{MergeThreshold: 0.99, LateJoins: true, ReexamineMembers: -1}
	mem, s1, s2 := placeLateJoinPolls(t, opts)
	poll := lateJoinPolls[2]
	g, _, err := mem.Decide(context.Background(), 1, poll)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlacer(poll, opts)
	if err != nil {
		t.Fatal(err)
	}
	view := &countingView{StoryView: memView{mem.workspace(1)}}
	placed, err := p.PlaceStories(context.Background(), view, model.StoryRequest{WorkspaceID: 1, Facts: make([]*model.StoryFacts, len(poll))})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Merges) != 1 || !g.Merges[0].Late {
		t.Fatalf("in memory: merges %+v, want one late join", g.Merges)
	}
	m := g.Merges[0]
	want := []model.StoryMerge{{From: m.From, Into: m.Into, Reason: lateReasonText(m.From, m.Into, m.Reason.Score)}}
	if !slices.Equal(placed.Merges, want) {
		t.Errorf("placer merges %+v, in memory %+v", placed.Merges, want)
	}
	pl := g.Placements[0]
	if got := placed.Articles[0]; got.StoryID != pl.StoryID || got.Reason != reasonText(pl.Reason, &poll[0].Profile) {
		t.Errorf("placer choice %+v, in memory story %d (%q)", got, pl.StoryID, reasonText(pl.Reason, &poll[0].Profile))
	}
	var ids []int64
	for _, u := range placed.Updates {
		ids = append(ids, u.ID)
		if u.Revision != 1 {
			t.Errorf("update of story %d checks revision %d, want the one read (1)", u.ID, u.Revision)
		}
	}
	if !slices.Equal(ids, []int64{min(s1, s2), max(s1, s2)}) {
		t.Errorf("updates of stories %v, want both %d and %d", ids, s1, s2)
	}
	if view.calls != 3 {
		t.Errorf("the placement made %d reads, want 3 (frequencies, index, stories)", view.calls)
	}
}

// countingView counts a view's reads.
type countingView struct {
	model.StoryView
	calls int
}

func (v *countingView) StoryDocFreq(ctx context.Context, ws int64, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	v.calls++
	return v.StoryView.StoryDocFreq(ctx, ws, terms, since)
}

func (v *countingView) StoryPostings(ctx context.Context, q model.StoryTermQuery) ([]model.StoryPosting, error) {
	v.calls++
	return v.StoryView.StoryPostings(ctx, q)
}

func (v *countingView) StoryMembers(ctx context.Context, q model.StoryMemberQuery) ([]model.StoryMember, error) {
	v.calls++
	return v.StoryView.StoryMembers(ctx, q)
}

func (v *countingView) StoryStates(ctx context.Context, ws int64, ids []int64) ([]model.StoryState, error) {
	v.calls++
	return v.StoryView.StoryStates(ctx, ws, ids)
}
