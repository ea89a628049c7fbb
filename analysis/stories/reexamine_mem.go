package stories

import (
	"maps"
	"slices"
	"time"
)

// memMembers is what MemGroups keeps of a workspace's articles for
// re-examination, as the database keeps them: each article's profile,
// report time and index terms, and each story's articles.
type memMembers struct {
	profile map[int64]*Profile
	idfs    map[int64][]float32 // kept with the profile, rounded as stored
	docs    map[int64]int       // the archive those IDFs were computed over
	at      map[int64]time.Time
	terms   map[int64][]uint32
	members map[int64][]int64 // by story
}

func newMemMembers() memMembers {
	return memMembers{profile: map[int64]*Profile{}, idfs: map[int64][]float32{}, docs: map[int64]int{}, at: map[int64]time.Time{}, terms: map[int64][]uint32{},
		members: map[int64][]int64{}}
}

// followMerges moves the articles of the stories a poll merged away to
// the stories that absorbed them.
func (w *memWorkspace) followMerges(g *Grouping) {
	for _, mg := range g.Merges {
		into := w.resolve(mg.From)
		if into == mg.From {
			continue
		}
		w.mem.members[into] = append(w.mem.members[into], w.mem.members[mg.From]...)
		delete(w.mem.members, mg.From)
	}
}

// record keeps a placed poll's articles in their stories, with the IDFs
// of their features once the poll is stored over an archive of docs
// articles (placedIDFs), rounded as a stored profile keeps them.
func (w *memWorkspace) record(arrivals []Arrival, articles, stories []int64, g *Grouping, docs int, idfs [][]float64) {
	for i, a := range articles {
		w.mem.profile[a] = &arrivals[i].Profile
		kept := make([]float32, len(idfs[i]))
		for j, x := range idfs[i] {
			kept[j] = RoundIDF(x)
		}
		w.mem.idfs[a] = kept
		w.mem.docs[a] = docs
		w.mem.at[a] = arrivals[i].At
		w.mem.terms[a] = g.Placements[i].Terms
		s := w.resolve(stories[i])
		w.mem.members[s] = append(w.mem.members[s], a)
	}
}

// looked is the stored stories re-examination looks at after a poll
// (see reexamined).
func (w *memWorkspace) looked(arrivals []Arrival, g *Grouping, found *Lookup, o GroupOptions) []int64 {
	return reexamined(arrivals, g, found, o, w.resolve)
}

// readByPlacer reports whether a placer re-examining members ms (in an
// archive of docs articles) reads a term's frequency: a feature of the
// poll's arrivals or of a member weighed with the current frequencies
// (see keptFresh).
func readByPlacer(arrivals []Arrival, ms []StoredMember, docs int) func(uint32) bool {
	in := map[uint32]bool{}
	for i := range arrivals {
		for _, f := range arrivals[i].Profile.Features {
			in[f.Term] = true
		}
	}
	for i := range ms {
		if !keptFresh(&ms[i], docs) {
			for _, f := range ms[i].Profile.Features {
				in[f.Term] = true
			}
		}
	}
	return func(t uint32) bool { return in[t] }
}

// latest is the members re-examination looks at of the stories ids (see
// latestMembers).
func (w *memWorkspace) latest(ids []int64, now time.Time, o GroupOptions) []StoredMember {
	var ms []StoredMember
	for _, s := range ids {
		for _, a := range w.mem.members[s] {
			ms = append(ms, StoredMember{ArticleID: a, StoryID: s, At: w.mem.at[a], Profile: *w.mem.profile[a], Terms: w.mem.terms[a],
				IDFs: w.mem.idfs[a], PlacedDocs: w.mem.docs[a]})
		}
	}
	return latestMembers(ms, o.ReexamineMembers, now, o.Window)
}

// apply makes re-examination's moves: the articles, their index entries
// and the stories' centroids.
func (w *memWorkspace) apply(re *Reexamination) {
	for _, mv := range re.Moves {
		if mv.Empties {
			delete(w.stories, mv.From)
			w.mergedTo[mv.From] = mv.Into
		}
		w.storyOf[mv.ArticleID] = mv.Into
		w.mem.members[mv.From] = slices.DeleteFunc(w.mem.members[mv.From], func(x int64) bool { return x == mv.ArticleID })
		w.mem.members[mv.Into] = append(w.mem.members[mv.Into], mv.ArticleID)
		for _, term := range w.mem.terms[mv.ArticleID] {
			for i := range w.postings[term] {
				if w.postings[term][i].ArticleID == mv.ArticleID {
					w.postings[term][i].StoryID = mv.Into
				}
			}
		}
	}
	maps.Copy(w.stories, re.Stories)
}
