package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// errPlacementOvertaken is a save whose placement, read without the locks
// of its index terms, another save's articles changed before it could
// take them: the save is done again, locking as it reads (see
// savePoll).
var errPlacementOvertaken = errors.New("other saves changed its story placement before it was written")

// placeLog is what a placement read through its storyView: the document
// frequencies and the term index as it found them. A save that placed
// its articles without locking their index terms (late) reads the index
// again under the locks and, where the index changed, has the placer
// decide again on the same document frequencies and the index as it is
// now (checkPlacement).
type placeLog struct {
	docFreqs []docFreqRead
	// query and postings: the term index read, if any.
	query    *model.StoryTermQuery
	postings []model.StoryPosting
	// recheck: the index as read again under the locks (when rechecked),
	// answered to the placer deciding again instead of a read.
	recheck   []model.StoryPosting
	rechecked bool
}

type docFreqRead struct {
	terms []uint32
	since time.Time
	got   *model.StoryDocFreq
}

// docFreqOf answers a document frequency read already made.
func (l *placeLog) docFreqOf(terms []uint32, since time.Time) (*model.StoryDocFreq, bool) {
	for _, r := range l.docFreqs {
		if r.since.Equal(since) && slices.Equal(r.terms, terms) {
			return &model.StoryDocFreq{Docs: r.got.Docs, Terms: maps.Clone(r.got.Terms)}, true
		}
	}
	return nil, false
}

// keepDocFreq keeps a read (a copy: the placer may change what it gets).
func (l *placeLog) keepDocFreq(terms []uint32, since time.Time, got *model.StoryDocFreq) {
	l.docFreqs = append(l.docFreqs, docFreqRead{terms: slices.Clone(terms), since: since,
		got: &model.StoryDocFreq{Docs: got.Docs, Terms: maps.Clone(got.Terms)}})
}

// postingsOf answers the term index read again under the locks, to the
// same query.
func (l *placeLog) postingsOf(q model.StoryTermQuery) ([]model.StoryPosting, bool) {
	if !l.rechecked || l.query == nil || !sameQuery(*l.query, q) {
		return nil, false
	}
	return slices.Clone(l.recheck), true
}

func (l *placeLog) keepPostings(q model.StoryTermQuery, got []model.StoryPosting) {
	q.Terms = slices.Clone(q.Terms)
	l.query, l.postings = &q, slices.Clone(got)
}

func sameQuery(a, b model.StoryTermQuery) bool {
	return a.WorkspaceID == b.WorkspaceID && a.PerTerm == b.PerTerm && a.Since.Equal(b.Since) && slices.Equal(a.Terms, b.Terms)
}

// checkPlacement is the late save's check, once its articles are stored
// with the stories decided: it locks the index terms the placement read,
// reads them again, and locks the stored stories the placement changes.
// When the index and those stories are as the placement read them, the
// decision stands. Otherwise the placer decides again, on the same
// document frequencies and the index and stories as they are now (the
// save holds their locks): if every article keeps its story, the new
// decision's centroids and revisions are written; if not, the save is
// errPlacementOvertaken and is done again. So the locks are held from
// here to the commit, not through the articles' insert, and a save is
// never written from a stale read.
func (s *Store) checkPlacement(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave) error {
	if !st.late {
		return nil
	}
	now := []model.StoryPosting{}
	unchanged := true
	if q := st.log.query; q != nil {
		view := storyView{s: s, tx: tx}
		if err := view.lockTerms(ctx, *q); err != nil {
			return err
		}
		var err error
		if now, err = view.readPostings(ctx, *q); err != nil {
			return err
		}
		unchanged = samePostings(now, st.log.postings)
	}
	if unchanged {
		ok, err := s.lockStories(ctx, tx, p, st.placed, st)
		if err != nil || ok {
			return err
		}
	}
	// The first decision was one attempt.
	for range placeAttempts - 1 {
		again := &placeLog{docFreqs: slices.Clip(st.log.docFreqs), query: st.log.query, recheck: now, rechecked: st.log.query != nil}
		placed, err := s.place(ctx, storyView{s: s, tx: tx, log: again}, p, st.req)
		if err != nil {
			return err
		}
		if again.query != st.log.query || !sameDecision(st, placed) {
			break // another index read, or other stories
		}
		ok, err := s.lockStories(ctx, tx, p, placed, st)
		if err != nil {
			return err
		}
		if ok {
			st.placed, st.started = placed, placed.Started
			return nil
		}
	}
	return fmt.Errorf("save stories of source %d: %w", p.SourceID, errPlacementOvertaken)
}

// samePostings reports whether two reads of the term index found the
// same entries.
func samePostings(a, b []model.StoryPosting) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(x, y model.StoryPosting) int {
		if x.Term != y.Term {
			return int(int64(x.Term) - int64(y.Term))
		}
		if x.ArticleID != y.ArticleID {
			if x.ArticleID < y.ArticleID {
				return -1
			}
			return 1
		}
		return 0
	}
	a, b = slices.Clone(a), slices.Clone(b)
	slices.SortFunc(a, key)
	slices.SortFunc(b, key)
	return slices.EqualFunc(a, b, func(x, y model.StoryPosting) bool {
		return x.Term == y.Term && x.ArticleID == y.ArticleID && x.StoryID == y.StoryID && x.ReportedAt.Equal(y.ReportedAt)
	})
}

// sameDecision reports whether placed puts every article of the save in
// the story st inserted it with, and merges the same stories.
func sameDecision(st *storySave, placed model.StoryPlacement) bool {
	now := choices(placed)
	for i, c := range now {
		if c.StoryID != st.choice[i].StoryID || c.JoinsArticle != st.choice[i].JoinsArticle {
			return false
		}
	}
	return slices.Equal(placed.Merges, st.merges)
}
