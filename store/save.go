package store

import (
	"context"
	"fmt"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/dberr"
	"github.com/jmoiron/sqlx"
)

// articleBatch bounds rows per INSERT so parameter counts stay far under
// SQLite's and Postgres' limits.
const articleBatch = 200

// SavePoll stores a poll's articles, promotions, source bookkeeping and
// poll_runs row atomically: if anything fails, nothing is kept, the lease
// runs out and the poll is redone. Inserts are batched, so the number of
// statements does not grow with the number of items. Every text field is
// made storable first (see CleanText), the same way in both databases.
func (s *Store) SavePoll(ctx context.Context, p model.PollSave) (model.SaveCounts, error) {
	p = cleaned(p)
	vectors := s.searchVectors(p.Articles)
	c, err := redone(ctx, func() (model.SaveCounts, error) { return s.savePoll(ctx, p, vectors) })
	s.noteWrite(ctx, "saving polls", err)
	return c, refused(err)
}

// saveAttempts is how many times a save is tried when PostgreSQL aborts
// its transaction to break a deadlock with another save (or a
// serialization conflict): the save's work is at hand and nothing of it
// was kept, so it is done again at once, where the poll would otherwise
// have waited for its lease to run out and been counted as a database
// outage. Saves of one big workspace can deadlock by design (see
// docs/digest.md, "Concurrent saves").
const saveAttempts = 3

// redone runs save until it succeeds, fails otherwise than by a rolled
// back transaction (dberr.IsRolledBack), or has been tried saveAttempts
// times.
func redone(ctx context.Context, save func() (model.SaveCounts, error)) (model.SaveCounts, error) {
	for attempt := 1; ; attempt++ {
		c, err := save()
		if err == nil || attempt == saveAttempts || !dberr.IsRolledBack(err) || ctx.Err() != nil {
			return c, err
		}
	}
}

// savePoll is the one transaction of a poll, its steps in order. A write
// that must happen exactly when an item is promoted (a notification
// outbox row, a story assignment) is a step of saveBatch after promote,
// taking the promoted rows it returns: it then commits or rolls back with
// the promotion itself.
func (s *Store) savePoll(ctx context.Context, p model.PollSave, vectors []any) (model.SaveCounts, error) {
	if len(p.Articles) == 0 {
		if stmt := s.d.bookkeepingOnly(); stmt != "" {
			// The 304 path: one round trip for the whole bookkeeping.
			return model.SaveCounts{}, s.saveBookkeepingOnly(ctx, stmt, p)
		}
	}
	tx, err := s.writer.BeginTxx(ctx, nil)
	if err != nil {
		return model.SaveCounts{}, fmt.Errorf("save poll of source %d: begin: %w", p.SourceID, err)
	}
	defer tx.Rollback() // after Commit a no-op; otherwise nothing of the poll is kept
	// 1. The source row first: it proves the lease is still ours and, on
	// PostgreSQL, locks the row so no claim can take the source until the
	// poll is committed.
	if err := s.updateSource(ctx, tx, p); err != nil {
		return model.SaveCounts{}, err
	}
	// 2. Stories, articles and promotions.
	c, fs, err := s.saveArticles(ctx, tx, p, vectors)
	if err != nil {
		s.abandonSave(fs)
		return model.SaveCounts{}, err
	}
	// 4. The poll's audit row, with what the database actually kept.
	p.Run.ItemsNew = c.New
	p.Run.ItemsDuplicate += c.Duplicate
	p.Run.ItemsPromoted = c.Promoted
	if err := s.insertRun(ctx, tx, p); err != nil {
		s.abandonSave(fs)
		return model.SaveCounts{}, err
	}
	if err := s.commitSave(ctx, tx, fs); err != nil {
		return model.SaveCounts{}, fmt.Errorf("save poll of source %d: commit: %w", p.SourceID, err)
	}
	c.Stories.Rejoined = s.rejoin(ctx, p, fs.meet)
	return c, nil
}

// commitSave commits a save's transaction, its story terms claimed first
// (storyrejoin.go); the copy of the document frequencies (fs's part, nil
// where there is none) learns of its additions once they are committed.
func (s *Store) commitSave(ctx context.Context, tx *sqlx.Tx, after saveAfter) error {
	if err := s.claimTerms(ctx, tx, after.meet); err != nil {
		s.abandonSave(after)
		return err
	}
	s.pgFreq.committing(after.freq)
	err := tx.Commit()
	s.pgFreq.finish(after.freq, err == nil)
	s.logMoves.ended(after.log, err == nil)
	return err
}

// abandonSave is commitSave for a save that fails before its commit.
func (s *Store) abandonSave(after saveAfter) { s.logMoves.ended(after.log, false) }

// saveAfter is what the process learns of a save once it commits: its
// part in the copy of the document frequencies (nil where there is
// none), where it wrote its feature counts (logMoves), and whom it met.
type saveAfter struct {
	freq *pgFreqSave
	log  logWrite
	// meet is how the save finds the saves it met and rejoins them
	// (storyrejoin.go; nil: it cannot meet any).
	meet *termMeeting
}

// saveArticles is what a poll's save and a push's have in common: the
// stories decided and the ids of new ones reserved (stories.go), then
// the articles, each inserted with its story, and their promotions a
// batch at a time, then the stories' own rows: new stories, term index
// entries, merges, counts and centroids, document frequencies. It
// returns the save's part in the copy of the document frequencies and
// where it wrote its feature counts, for commitSave (or, should the save
// fail, for abandonSave).
func (s *Store) saveArticles(ctx context.Context, tx *sqlx.Tx, p model.PollSave, vectors []any) (model.SaveCounts, saveAfter, error) {
	st, err := s.beginStories(ctx, tx, p)
	if err != nil {
		return model.SaveCounts{}, saveAfter{}, err
	}
	var c model.SaveCounts
	targets := &deliveryTargets{}
	for start := 0; start < len(p.Articles); start += articleBatch {
		end := min(start+articleBatch, len(p.Articles))
		var batchVectors []any
		if vectors != nil {
			batchVectors = vectors[start:end]
		}
		got, err := s.saveBatch(ctx, tx, p, st, start, p.Articles[start:end], batchVectors, targets)
		if err != nil {
			return model.SaveCounts{}, saveAfter{}, err
		}
		c.Add(got)
	}
	if err := s.finishStories(ctx, tx, p, st); err != nil {
		return model.SaveCounts{}, saveAfter{log: st.logWrite}, err
	}
	c.Stories = st.counts
	if st.freq != nil {
		c.FreqReads = st.freq.reads
	}
	return c, saveAfter{freq: st.freq, log: st.logWrite, meet: s.meeting(p, st)}, nil
}

// saveBatch stores one batch of articles (articles.go) with their
// stories, notes those inserted in their stories (stories.go), then
// promotes the relevant ones among them (promote.go) and queues the
// webhook deliveries of those promotions (deliveries.go). offset is the
// batch's first article in the poll.
func (s *Store) saveBatch(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave, offset int, arts []model.NewArticle,
	vectors []any, targets *deliveryTargets) (model.SaveCounts, error) {
	t := now()
	st.joinStored(offset, arts)
	inserted, err := s.insertArticles(ctx, tx, p, arts, vectors, t)
	if err != nil {
		return model.SaveCounts{}, err
	}
	st.placeStories(offset, arts, inserted, t)
	c := model.SaveCounts{New: len(inserted), Duplicate: len(arts) - len(inserted)}
	candidates := promotionCandidates(arts, inserted)
	promoted, err := s.promote(ctx, tx, p, candidates, t)
	if err != nil {
		return model.SaveCounts{}, err
	}
	c.Promoted = len(promoted)
	c.ContentDuplicates = len(candidates) - len(promoted)
	if c.Deliveries, err = s.enqueueDeliveries(ctx, tx, p, targets, candidates, promoted, t); err != nil {
		return model.SaveCounts{}, err
	}
	return c, nil
}
