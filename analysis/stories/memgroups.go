package stories

import (
	"context"
	"slices"
	"sync"
	"time"
)

// MemGroups is grouping's storage in memory, for one process: per
// workspace the term index, the stories' centroids, the merges and the
// document frequencies, kept the way the database keeps them. Place runs
// one batch through it exactly as a poll's save does: one lookup, the
// decision, then the writes. It is safe for concurrent use.
type MemGroups struct {
	mu         sync.Mutex
	opts       GroupOptions
	workspaces map[int64]*memWorkspace
	nextStory  int64
	nextArt    int64
}

type memWorkspace struct {
	postings map[uint32][]Posting // by term, in the order reported
	stories  map[int64]Centroid
	mergedTo map[int64]int64
	storyOf  map[int64]int64
	vocab    *Vocabulary
	mem      memMembers
}

// NewMemGroups returns empty storage deciding with opts.
func NewMemGroups(opts GroupOptions) (*MemGroups, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &MemGroups{opts: o, workspaces: map[int64]*memWorkspace{}}, nil
}

func (m *MemGroups) workspace(id int64) *memWorkspace {
	w, ok := m.workspaces[id]
	if !ok {
		w = &memWorkspace{postings: map[uint32][]Posting{}, stories: map[int64]Centroid{}, mergedTo: map[int64]int64{},
			storyOf: map[int64]int64{}, vocab: NewVocabulary(), mem: newMemMembers()}
		m.workspaces[id] = w
	}
	return w
}

// resolve follows merges to the story that holds an id's articles now.
func (w *memWorkspace) resolve(id int64) int64 { return survivor(w.mergedTo, id) }

// lookup returns, per term, the perTerm most recent postings reported at
// or after since, with their stories resolved, and those stories'
// centroids.
func (w *memWorkspace) lookup(terms []uint32, since time.Time, perTerm int) *Lookup {
	out := &Lookup{Postings: make([]Posting, 0, len(terms)*perTerm), Stories: make(map[int64]Centroid, len(terms)*perTerm)}
	for _, t := range terms {
		ps := w.postings[t]
		i, _ := slices.BinarySearchFunc(ps, since, func(p Posting, t time.Time) int { return p.At.Compare(t) })
		ps = ps[i:]
		ps = ps[max(0, len(ps)-perTerm):]
		for _, p := range slices.Backward(ps) {
			p.StoryID = w.resolve(p.StoryID)
			out.Postings = append(out.Postings, p)
			out.Stories[p.StoryID] = w.stories[p.StoryID]
		}
	}
	return out
}

// Decide looks up and decides the stories of a batch of arrivals of one
// workspace, given in the order they were reported, without recording
// anything; it also returns what the lookup found.
func (m *MemGroups) Decide(_ context.Context, workspaceID int64, arrivals []Arrival) (*Grouping, *Lookup, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.decide(m.workspace(workspaceID), arrivals)
}

func (m *MemGroups) decide(w *memWorkspace, arrivals []Arrival) (*Grouping, *Lookup, error) {
	df := withPoll(w.vocab, arrivals)
	_, union, err := QueryTerms(arrivals, df, m.opts)
	if err != nil {
		return nil, nil, err
	}
	found := w.lookup(union, earliest(arrivals).Add(-m.opts.Window), m.opts.PerTermLimit)
	g, err := Group(arrivals, found, df, m.opts)
	if err != nil {
		return nil, nil, err
	}
	return g, found, nil
}

// earliest is when the first of a batch's arrivals was reported.
func earliest(arrivals []Arrival) time.Time {
	var t time.Time
	for i, a := range arrivals {
		if i == 0 || a.At.Before(t) {
			t = a.At
		}
	}
	return t
}

// Place decides and records the stories of a batch of arrivals of one
// workspace, given in the order they were reported, and returns each
// one's article id and story id (after the batch's merges).
func (m *MemGroups) Place(_ context.Context, workspaceID int64, arrivals []Arrival) (articles, stories []int64, g *Grouping, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.workspace(workspaceID)
	if len(arrivals) == 0 {
		return nil, nil, &Grouping{}, nil
	}
	g, found, err := m.decide(w, arrivals)
	if err != nil {
		return nil, nil, nil, err
	}
	articles = make([]int64, len(arrivals))
	stories = make([]int64, len(arrivals))
	started := map[int]int64{}
	for i, p := range g.Placements {
		m.nextArt++
		articles[i] = m.nextArt
		if p.NewStory() {
			m.nextStory++
			started[i] = m.nextStory
		}
	}
	for _, mg := range g.Merges {
		into := mg.Into
		if into == 0 {
			into = started[mg.IntoItem]
		}
		w.mergedTo[mg.From] = into
		delete(w.stories, mg.From)
	}
	for id, c := range g.Stored {
		w.stories[id] = c
	}
	for i, c := range g.Started {
		w.stories[started[i]] = c
	}
	// Re-examination reads what the daemon's save reads: the stored
	// articles and the term index before the poll's articles join them.
	var re *Reexamination
	if m.opts.ReexamineMembers > 0 {
		now := earliest(arrivals)
		w.followMerges(g)
		ms := w.latest(w.looked(arrivals, g, found, m.opts), now, m.opts)
		df := withCounted(w.vocab, arrivals)
		weighed := newMemberWeighings(newMemberIDFs(df, readByPlacer(arrivals, ms, df.Docs())), len(ms))
		ms = narrowTerms(ms, weighed, reexamineTerms)
		postings := w.lookup(memberTerms(ms), now.Add(-m.opts.Window), reexaminePerTerm).Postings
		re = reexamine(ms, postings, newReexamCandidates(ms, postings, now, m.opts), w.stories, weighed, now, m.opts)
	}
	for i, p := range g.Placements {
		switch {
		case p.StoryID > 0:
			stories[i] = p.StoryID
		case p.JoinsItem >= 0:
			stories[i] = started[p.JoinsItem]
		default:
			stories[i] = started[i]
		}
		w.storyOf[articles[i]] = stories[i]
		for _, t := range p.Terms {
			ps := w.postings[t]
			at := arrivals[i].At
			j := len(ps)
			for j > 0 && ps[j-1].At.After(at) {
				j--
			}
			w.postings[t] = slices.Insert(ps, j, Posting{Term: t, ArticleID: articles[i], StoryID: stories[i], At: at})
		}
	}
	var placedDocs int
	var idfs [][]float64
	if re != nil {
		placedDocs, idfs = placedIDFs(arrivals, w.vocab)
	}
	for i := range arrivals {
		w.vocab.Add(&arrivals[i].Profile)
	}
	if re != nil {
		w.apply(re)
		w.record(arrivals, articles, stories, g, placedDocs, idfs)
		for i := range stories {
			stories[i] = w.resolve(stories[i])
		}
	}
	return articles, stories, g, nil
}

// StoryOf returns the story an article is in now (merges followed).
func (m *MemGroups) StoryOf(workspaceID, articleID int64) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.workspace(workspaceID)
	return w.resolve(w.storyOf[articleID])
}

// Count counts articles in a workspace's document frequencies without
// placing them: a background for the frequencies of a workspace that has
// stored little yet.
func (m *MemGroups) Count(workspaceID int64, profiles []Profile) {
	m.mu.Lock()
	defer m.mu.Unlock()
	w := m.workspace(workspaceID)
	for i := range profiles {
		w.vocab.Add(&profiles[i])
	}
}
