package stories

import (
	"cmp"
	"context"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

var groupT0 = time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)

func arrival(title, body string, after time.Duration) Arrival {
	return Arrival{Profile: NewProfile(title, body), At: groupT0.Add(after)}
}

// Independent write-ups of one event join one story with a reason; a
// report of another event of the same kind starts its own.
func TestGroupJoinsIndependentReports(t *testing.T) {
	mem, err := NewMemGroups(GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	place := func(a Arrival) (int64, *Grouping) {
		t.Helper()
		_, st, g, err := mem.Place(ctx, 1, []Arrival{a})
		if err != nil {
			t.Fatal(err)
		}
		return st[0], g
	}
	s1, _ := place(arrival("Lindsay Lohan checks into Betty Ford Center",
		"Lindsay Lohan has checked into the Betty Ford Center in Rancho Mirage to begin a 90-day court-ordered stay, her lawyer Shawn Holley said.", 0))
	s2, g := place(arrival("Lohan enters Betty Ford for 90-day rehab stay",
		"Actress Lindsay Lohan arrived at the Betty Ford Center on Friday for the 90-day rehabilitation stay a Los Angeles judge ordered, Shawn Holley confirmed.", time.Hour))
	if s2 != s1 {
		t.Fatalf("second report of the Lohan check-in started story %d, want story %d", s2, s1)
	}
	r := g.Placements[0].Reason
	if r.StoryID != s1 || r.ArticleID != 1 || r.Score < DefaultGroupThreshold || len(r.Shared) == 0 {
		t.Errorf("reason = %+v, want story %d, article 1, a score over the threshold and shared terms", r, s1)
	}
	s3, _ := place(arrival("Tara Reid checks into Promises rehab in Malibu",
		"Perennial party girl Tara Reid checked herself into the Promises Treatment Center in Malibu, her publicist Jack Ketsoyan told People magazine.", 2*time.Hour))
	if s3 == s1 {
		t.Errorf("Tara Reid's check-in joined the Lohan story %d", s1)
	}
}

// An article that bridges two stories merges them into the older one, and
// the other's id resolves to it from then on.
func TestGroupMergesBridgedStories(t *testing.T) {
	mem, err := NewMemGroups(GroupOptions{Threshold: 0.9, MergeThreshold: 0.9, SizeMargin: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a := "Magnitude 6.1 earthquake strikes Aceh province, killing 24 people in Bener Meriah and Central Aceh districts"
	b := "Rescuers in Bener Meriah search collapsed homes after the Aceh earthquake, officials of the disaster agency said"
	arts, first, _, err := mem.Place(ctx, 1, []Arrival{arrival("Aceh quake", a, 0), arrival("Rescue in Bener Meriah", b, time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if first[0] == first[1] {
		t.Fatalf("at threshold 0.9 the two different texts share story %d; the test needs two stories", first[0])
	}
	// The bridge holds both texts; the thresholds come down for it alone.
	mem.opts.Threshold, mem.opts.MergeThreshold = 0.3, 0.3
	_, bridged, g, err := mem.Place(ctx, 1, []Arrival{arrival("Aceh quake", a+"\n\n"+b, 2*time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Merges) != 1 || g.Merges[0].Into != first[0] || g.Merges[0].From != first[1] {
		t.Fatalf("merges = %+v, want story %d into story %d", g.Merges, first[1], first[0])
	}
	if bridged[0] != first[0] {
		t.Errorf("the bridge is in story %d, want the surviving story %d", bridged[0], first[0])
	}
	if got := mem.StoryOf(1, arts[1]); got != first[0] {
		t.Errorf("the merged story's article resolves to story %d, want %d", got, first[0])
	}
}

// The same arrivals in the same order give the same stories.
func TestGroupIsDeterministic(t *testing.T) {
	arts := loadStorySet(t)[:60]
	var prev []int64
	for range 3 {
		mem, err := NewMemGroups(GroupOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, a := range arts {
			_, st, _, err := mem.Place(context.Background(), 1, []Arrival{{Profile: NewProfile(a.Title, a.Markdown), At: a.PublishedAt}})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, st[0])
		}
		if prev != nil {
			for i := range got {
				if got[i] != prev[i] {
					t.Fatalf("article %d: story %d, then %d", i, prev[i], got[i])
				}
			}
		}
		prev = got
	}
}

// A lookup returns at most PerTermLimit postings per term, the most
// recently reported, however many articles of the window have the term:
// what bounds the cost of a placement in a busy workspace.
func TestDecideCapsPostingsPerTerm(t *testing.T) {
	mem, err := NewMemGroups(GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const n = 40
	body := "Lindsay Lohan has checked into the Betty Ford Center in Rancho Mirage to begin a 90-day court-ordered stay, her lawyer Shawn Holley said."
	var ids []int64
	for i := range n {
		arts, _, _, err := mem.Place(ctx, 1, []Arrival{arrival("Lindsay Lohan checks into Betty Ford Center", body, time.Duration(i)*time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, arts[0])
	}
	_, found, err := mem.Decide(ctx, 1, []Arrival{arrival("Lohan enters Betty Ford", body, n*time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	perTerm := map[uint32]int{}
	for _, p := range found.Postings {
		perTerm[p.Term]++
		if p.ArticleID <= ids[n-DefaultPerTermLimit-1] {
			t.Errorf("term %d returned article %d, older than the %d most recent", p.Term, p.ArticleID, DefaultPerTermLimit)
		}
	}
	if len(perTerm) == 0 {
		t.Fatal("the lookup found nothing; the test needs terms shared by the archive")
	}
	for term, c := range perTerm {
		if c != DefaultPerTermLimit {
			t.Errorf("term %d returned %d postings, want %d of the %d articles that have it", term, c, DefaultPerTermLimit, n)
		}
	}
}

// Count weighs a workspace's frequencies with articles that are not
// placed: they start no story and file no index term.
func TestMemGroupsCountIsBackgroundOnly(t *testing.T) {
	mem, err := NewMemGroups(GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bg := []Profile{NewProfile("", "Lindsay Lohan has checked into the Betty Ford Center in Rancho Mirage."),
		NewProfile("", "Tara Reid checked herself into the Promises Treatment Center in Malibu.")}
	mem.Count(1, bg)
	w := mem.workspace(1)
	if w.vocab.Docs() != 2 || len(w.stories) != 0 || len(w.postings) != 0 {
		t.Errorf("after counting 2 articles: %d documents, %d stories, %d index terms; want 2, 0, 0", w.vocab.Docs(), len(w.stories), len(w.postings))
	}
	_, st, _, err := mem.Place(context.Background(), 1, []Arrival{arrival("Lohan enters Betty Ford", "Lindsay Lohan arrived at the Betty Ford Center.", 0)})
	if err != nil {
		t.Fatal(err)
	}
	if st[0] != 1 {
		t.Errorf("the first placed article is in story %d, want 1: the background started none", st[0])
	}
}

// mostHits ranks a decision's candidate stories as sorting them by their
// best member's hits looked up in the map does: most hits first, ties to
// the lower key, the first k kept; on random candidates with many ties,
// stories of the poll (negative keys) among them.
func TestMostHitsRanksAsByMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for round := range 500 {
		best := map[storyKey]member{}
		var order []storyKey
		for range rng.IntN(30) {
			k := storyKey(rng.IntN(60) - 10)
			if _, ok := best[k]; ok {
				continue
			}
			best[k] = member{key: int64(rng.IntN(100)), hits: 1 + rng.IntN(4)}
			order = append(order, k)
		}
		k := 1 + rng.IntN(10)
		want := slices.Clone(order)
		slices.SortFunc(want, func(x, y storyKey) int {
			if c := cmp.Compare(best[y].hits, best[x].hits); c != 0 {
				return c
			}
			return cmp.Compare(x, y)
		})
		want = want[:min(len(want), k)]
		if got := mostHits(slices.Clone(order), best, k); !slices.Equal(got, want) {
			t.Fatalf("round %d: ranked %v, by the map %v", round, got, want)
		}
	}
}

// TestGroupJoinsWithTheBestCandidatesTerms: the decision keeps the vector
// of the best story compared so far only, in a buffer it reuses; the
// shared terms of each join must be those of the story joined, not of
// another compared. Each labelled story set article is placed against
// the others' stories (one article each).
func TestGroupJoinsWithTheBestCandidatesTerms(t *testing.T) {
	profiles, _, o, idf, cents, postings := storySetStories(t)
	joined := 0
	for i := range profiles {
		w := weigh(&profiles[i], idf)
		others := maps.Clone(cents)
		delete(others, int64(100+i))
		var own []Posting
		for _, p := range postings {
			if p.StoryID != int64(100+i) {
				own = append(own, p)
			}
		}
		g := group([]Arrival{{Profile: profiles[i], At: groupT0}}, []*weighing{w}, [][]uint32{topTerms(w.vec, o.IndexTerms)},
			&Lookup{Stories: others, Postings: own}, idf, o)
		r := g.Placements[0].Reason
		if r.StoryID == 0 {
			continue
		}
		joined++
		c := others[r.StoryID].withIDFs(idf)
		if want := sharedTerms(w.vec, c.vectorFor(w)); !slices.Equal(r.Shared, want) {
			t.Errorf("article %d joined story %d sharing %v, want %v", i, r.StoryID, r.Shared, want)
		}
	}
	if joined == 0 {
		t.Fatal("no article joined a story: the test exercised nothing")
	}
}
