package stories

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// recordingView is a workspace of one stored story (77, of article 500) as
// a save's view reads it, recording the terms whose frequencies are read.
type recordingView struct {
	postings []model.StoryPosting
	state    model.StoryState
	dfReads  [][]uint32
	// docs is the number of articles counted (0: an empty archive); each
	// term asked for has term % 5 of them.
	docs int
}

func (v *recordingView) StoryDocFreq(_ context.Context, _ int64, terms []uint32, _ time.Time) (*model.StoryDocFreq, error) {
	v.dfReads = append(v.dfReads, slices.Clone(terms))
	out := &model.StoryDocFreq{Docs: v.docs, Terms: map[uint32]int{}}
	for _, t := range terms {
		if n := int(t % 5); v.docs > 0 && n > 0 {
			out.Terms[t] = n
		}
	}
	return out, nil
}

func (v *recordingView) StoryPostings(context.Context, model.StoryTermQuery) ([]model.StoryPosting, error) {
	return v.postings, nil
}

func (v *recordingView) StoryStates(context.Context, int64, []int64) ([]model.StoryState, error) {
	return []model.StoryState{v.state}, nil
}

// StoryMembers answers the stored article without a profile, as one
// stored before profiles were kept: it is not re-examined.
func (v *recordingView) StoryMembers(context.Context, model.StoryMemberQuery) ([]model.StoryMember, error) {
	return []model.StoryMember{{ArticleID: 500, StoryID: 77, ReportedAt: groupT0}}, nil
}

// storedLohan is the view of a workspace whose story 77 holds the first
// Lohan report, its centroid stored by encode.
func storedLohan(t *testing.T, encode func(Centroid) []byte) *recordingView {
	t.Helper()
	first := arrival("Lindsay Lohan checks into Betty Ford Center",
		"Lindsay Lohan has checked into the Betty Ford Center in Rancho Mirage to begin a 90-day court-ordered stay, her lawyer Shawn Holley said.", 0)
	g, err := Group([]Arrival{first}, nil, NewVocabulary(), GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	v := &recordingView{state: model.StoryState{ID: 77, Articles: 1, Revision: 1, Centroid: encode(g.Started[0])}, docs: 40}
	for _, term := range g.Placements[0].Terms {
		v.postings = append(v.postings, model.StoryPosting{Term: term, ArticleID: 500, StoryID: 77, ReportedAt: first.At})
	}
	return v
}

// A placement reads the document frequencies of the new articles'
// features only: the stored centroid carries the IDFs it was weighed
// with, so the terms of the stories compared are not read (they were up
// to 8 stories × 200 terms per article, most of a placement's cost). A
// centroid stored before IDFs were kept still takes articles, at the cost
// of one more read for its terms.
func TestPlacerReadsTheArrivalsFrequenciesOnly(t *testing.T) {
	second := arrival("Lohan enters Betty Ford for 90-day rehab stay",
		"Actress Lindsay Lohan arrived at the Betty Ford Center on Friday for the 90-day rehabilitation stay a Los Angeles judge ordered, Shawn Holley confirmed.", time.Hour)
	var own []uint32
	for _, f := range second.Profile.Features {
		own = append(own, f.Term)
	}
	for _, tc := range []struct {
		name   string
		encode func(Centroid) []byte
		reads  int
	}{
		{"centroid with IDFs", EncodeCentroid, 1},
		{"centroid stored without IDFs (version 1)", func(c Centroid) []byte { return EncodeCentroid(Centroid{Features: c.Features}) }, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			view := storedLohan(t, tc.encode)
			p, err := NewPlacer([]Arrival{second}, GroupOptions{})
			if err != nil {
				t.Fatal(err)
			}
			placed, err := p.PlaceStories(context.Background(), view, model.StoryRequest{WorkspaceID: 1, Facts: make([]*model.StoryFacts, 1)})
			if err != nil {
				t.Fatal(err)
			}
			if got := placed.Articles[0].StoryID; got != 77 {
				t.Errorf("the second Lohan report went to story %d, want stored story 77", got)
			}
			if len(view.dfReads) != tc.reads {
				t.Fatalf("%d reads of document frequencies, want %d", len(view.dfReads), tc.reads)
			}
			if !slices.Equal(view.dfReads[0], own) {
				t.Errorf("first read asked for %d terms, want the article's %d features", len(view.dfReads[0]), len(own))
			}
			if len(placed.Updates) != 1 {
				t.Fatalf("updates %+v, want story 77's", placed.Updates)
			}
			c, err := DecodeCentroid(placed.Updates[0].Centroid, 2)
			if err != nil || len(c.IDFs) != len(c.Features) {
				t.Errorf("the updated centroid reads back with %d IDFs for %d features (err %v), want one each", len(c.IDFs), len(c.Features), err)
			}
		})
	}
}

// countingDocFreq is a DocFreq that records the terms asked for.
type countingDocFreq struct {
	df    DocFreq
	asked map[uint32]bool
}

func (c *countingDocFreq) Docs() int { return c.df.Docs() }

func (c *countingDocFreq) DocFreq(term uint32) int {
	c.asked[term] = true
	return c.df.DocFreq(term)
}

// Group weighs the stories it compares with the IDFs their centroids
// keep, refreshed for the arrival's own features: it asks the document
// frequencies of the arrival's features and of nothing else, and the
// centroid it writes keeps, for the arrival's features, their IDF with
// the arrival counted.
func TestGroupAsksTheArrivalsFrequenciesOnly(t *testing.T) {
	vocab := NewVocabulary()
	first := arrival("Lindsay Lohan checks into Betty Ford Center",
		"Lindsay Lohan has checked into the Betty Ford Center in Rancho Mirage to begin a 90-day court-ordered stay, her lawyer Shawn Holley said.", 0)
	other := arrival("Tara Reid checks into Promises rehab in Malibu",
		"Perennial party girl Tara Reid checked herself into the Promises Treatment Center in Malibu, her publicist Jack Ketsoyan told People magazine.", time.Minute)
	g, err := Group([]Arrival{first}, nil, vocab, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	vocab.Add(&first.Profile)
	vocab.Add(&other.Profile)
	found := &Lookup{Stories: map[int64]Centroid{77: g.Started[0]}}
	for _, term := range g.Placements[0].Terms {
		found.Postings = append(found.Postings, Posting{Term: term, ArticleID: 500, StoryID: 77, At: first.At})
	}
	second := arrival("Lohan enters Betty Ford for 90-day rehab stay",
		"Actress Lindsay Lohan arrived at the Betty Ford Center on Friday for the 90-day rehabilitation stay a Los Angeles judge ordered, Shawn Holley confirmed.", time.Hour)
	df := &countingDocFreq{df: vocab, asked: map[uint32]bool{}}
	g2, err := Group([]Arrival{second}, found, df, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if g2.Placements[0].StoryID != 77 {
		t.Fatalf("placement %+v, want story 77", g2.Placements[0])
	}
	own := map[uint32]int{}
	for i, f := range second.Profile.Features {
		own[f.Term] = i
	}
	for term := range df.asked {
		if _, ok := own[term]; !ok {
			t.Errorf("Group asked the frequency of term %d, which the arrival does not have", term)
		}
	}
	c := g2.Stored[77]
	refreshed := 0
	for i, f := range c.Features {
		if _, ok := own[f.Term]; ok {
			refreshed++
			want := float32(IDF(vocab.DocFreq(f.Term)+1, vocab.Docs()+1))
			if c.IDFs[i] != want {
				t.Errorf("term %d keeps IDF %v, want %v (its frequency with the arrival counted)", f.Term, c.IDFs[i], want)
			}
		}
	}
	if refreshed == 0 {
		t.Error("the story's centroid has none of the arrival's features")
	}
}

// The in-memory store and the daemon's placer weigh a poll of several
// articles alike (each article's frequencies count the poll's other
// articles), so the benchmark run through MemGroups decides as the
// daemon does: the same stories, the same scores.
func TestMemGroupsWeighsAPollAsThePlacer(t *testing.T) {
	poll := []Arrival{
		arrival("Lindsay Lohan checks into Betty Ford Center",
			"Lindsay Lohan has checked into the Betty Ford Center in Rancho Mirage to begin a 90-day court-ordered stay, her lawyer Shawn Holley said.", 0),
		arrival("Tara Reid checks into Promises rehab in Malibu",
			"Perennial party girl Tara Reid checked herself into the Promises Treatment Center in Malibu, her publicist Jack Ketsoyan told People magazine.", time.Minute),
		arrival("Lohan enters Betty Ford for 90-day rehab stay",
			"Actress Lindsay Lohan arrived at the Betty Ford Center on Friday for the 90-day rehabilitation stay a Los Angeles judge ordered, Shawn Holley confirmed.", time.Hour),
	}
	mem, err := NewMemGroups(GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := mem.Decide(context.Background(), 1, poll)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlacer(poll, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	placed, err := p.PlaceStories(context.Background(), &recordingView{}, model.StoryRequest{WorkspaceID: 1, Facts: make([]*model.StoryFacts, len(poll))})
	if err != nil {
		t.Fatal(err)
	}
	for i, pl := range g.Placements {
		want := ""
		if !pl.NewStory() {
			want = reasonText(pl.Reason, &poll[i].Profile)
		}
		got := placed.Articles[i]
		if got.JoinsArticle != pl.JoinsItem || got.StoryID != pl.StoryID || got.Reason != want {
			t.Errorf("article %d: placer %+v (%q), in memory joins %d, story %d (%q)", i, got, got.Reason, pl.JoinsItem, pl.StoryID, want)
		}
	}
	if g.Placements[2].JoinsItem != 0 {
		t.Errorf("the second Lohan report joins item %d, want 0: the test needs a joined article", g.Placements[2].JoinsItem)
	}
}

// The profile a placement stores keeps the IDFs placedIDFs gives its
// features over the frequencies the placer read, its poll counted: the
// placer takes them from the decision's weighings instead of working
// them out again. On the labelled story set, poll after poll.
func TestPlacerStoresThePlacedIDFs(t *testing.T) {
	mem, err := NewMemGroups(GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for n, poll := range storySetPolls(t, 3) {
		p, err := NewPlacer(poll, GroupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		placed, err := p.PlaceStories(ctx, memView{mem.workspace(1)}, model.StoryRequest{WorkspaceID: 1, Facts: make([]*model.StoryFacts, len(poll))})
		if err != nil {
			t.Fatal(err)
		}
		docs, idfs := placedIDFs(poll, mem.workspace(1).vocab)
		for i, c := range placed.Articles {
			if want := EncodeProfile(&poll[i].Profile, c.Terms, docs, idfs[i]); !bytes.Equal(c.Profile, want) {
				t.Fatalf("poll %d, article %d: stored profile %x, want %x", n, i, c.Profile, want)
			}
		}
		if _, _, _, err := mem.Place(ctx, 1, poll); err != nil {
			t.Fatal(err)
		}
	}
}

// referenceDocCounts is DocCounts as it was: a map entry per period and
// term, sorted.
func referenceDocCounts(arrivals []Arrival) []model.StoryDocCount {
	type key struct {
		period int64
		term   uint32
	}
	n := map[key]int{}
	for i := range arrivals {
		day := model.StoryPeriod(arrivals[i].At)
		n[key{day, 0}]++
		for _, f := range arrivals[i].Profile.Features {
			n[key{day, f.Term}]++
		}
	}
	out := make([]model.StoryDocCount, 0, len(n))
	for k, c := range n {
		out = append(out, model.StoryDocCount{Period: k.period, Term: k.term, Docs: c})
	}
	slices.SortFunc(out, func(a, b model.StoryDocCount) int {
		if c := cmp.Compare(a.Period, b.Period); c != 0 {
			return c
		}
		return cmp.Compare(a.Term, b.Term)
	})
	return out
}

// DocCounts counts as the map of the reference did: polls of the story
// set, their articles in one period, in several and out of order.
func TestDocCountsMatchReference(t *testing.T) {
	polls := storySetPolls(t, 20)
	polls = append(polls, nil, polls[0][:1])
	for n, poll := range polls {
		spread := slices.Clone(poll)
		for i := range spread {
			spread[i].At = spread[i].At.Add(time.Duration((i*7)%5) * 30 * time.Hour)
		}
		for _, arrivals := range [][]Arrival{poll, spread} {
			if got, want := DocCounts(arrivals), referenceDocCounts(arrivals); !slices.Equal(got, want) {
				t.Fatalf("poll %d: counts\n%v\nthe reference\n%v", n, got, want)
			}
		}
	}
}
