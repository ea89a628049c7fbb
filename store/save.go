package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/feedpoller/feedpoller/model"
	"github.com/jmoiron/sqlx"
)

// NewArticle is an article a poll wants stored, and whether it passed
// relevance.
type NewArticle struct {
	Article model.FeedArticle
	Promote bool
	// Story is the pipeline's story placement; nil: a story of its own.
	Story *StoryItem
}

// PollSave is everything one poll writes, in one transaction.
type PollSave struct {
	WorkspaceID int64
	SourceID    int64
	// Owner is the lease holder; the source row is only updated while the
	// lease is still ours, so a poll that outlived its lease cannot clobber
	// the bookkeeping of the replica that took over.
	Owner    string
	Articles []NewArticle
	Source   model.SourceUpdate
	Run      model.PollRun
	// Stories is how the articles' stories were decided (nil: each
	// article is a story of its own).
	Stories *StoryPlan
}

// SaveCounts says what the database actually kept.
type SaveCounts struct {
	New       int // articles inserted
	Duplicate int // articles another poll stored first (URL race), plus content-hash duplicates
	Promoted  int // content items created
	// ContentDuplicates counts relevant articles whose content hash was
	// already promoted in the workspace.
	ContentDuplicates int
	// Deliveries counts the webhook deliveries queued for the promotions.
	Deliveries int
}

func (c *SaveCounts) add(o SaveCounts) {
	c.New += o.New
	c.Duplicate += o.Duplicate
	c.Promoted += o.Promoted
	c.ContentDuplicates += o.ContentDuplicates
	c.Deliveries += o.Deliveries
}

// articleBatch bounds rows per INSERT so parameter counts stay far under
// SQLite's and Postgres' limits.
const articleBatch = 200

// ErrLeaseLost is returned by SavePoll when the source is no longer leased
// to the poll's owner (the lease ran out, or the source was deleted):
// nothing of the poll is stored, so two polls of one source never both
// count.
var ErrLeaseLost = errors.New("lease lost before the poll was saved")

// SavePoll stores a poll's articles, promotions, source bookkeeping and
// poll_runs row atomically: if anything fails, nothing is kept, the lease
// runs out and the poll is redone. Inserts are batched, so the number of
// statements does not grow with the number of items. Every text field is
// made storable first (see CleanText), the same way in both databases.
func (s *Store) SavePoll(ctx context.Context, p PollSave) (SaveCounts, error) {
	c, err := s.savePoll(ctx, p.cleaned())
	s.noteWrite(ctx, "saving polls", err)
	return c, err
}

// savePoll is the one transaction of a poll, its steps in order. A write
// that must happen exactly when an item is promoted (a notification
// outbox row, a story assignment) is a step of saveBatch after promote,
// taking the promoted rows it returns: it then commits or rolls back with
// the promotion itself.
func (s *Store) savePoll(ctx context.Context, p PollSave) (SaveCounts, error) {
	if len(p.Articles) == 0 {
		if stmt := s.d.bookkeepingOnly(); stmt != "" {
			// The 304 path: one round trip for the whole bookkeeping.
			return SaveCounts{}, s.saveBookkeepingOnly(ctx, stmt, p)
		}
	}
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return SaveCounts{}, fmt.Errorf("save poll of source %d: begin: %w", p.SourceID, err)
	}
	defer tx.Rollback() // after Commit a no-op; otherwise nothing of the poll is kept
	// 1. The source row first: it proves the lease is still ours and, on
	// PostgreSQL, locks the row so no claim can take the source until the
	// poll is committed.
	if err := s.updateSource(ctx, tx, p); err != nil {
		return SaveCounts{}, err
	}
	// 2. Stories: serialised per workspace, the decision settled
	// (stories.go).
	st, err := s.beginStories(ctx, tx, p)
	if err != nil {
		return SaveCounts{}, err
	}
	// 3. Articles, their stories and their promotions, a batch at a time.
	var c SaveCounts
	targets := &deliveryTargets{}
	for start := 0; start < len(p.Articles); start += articleBatch {
		end := min(start+articleBatch, len(p.Articles))
		got, err := s.saveBatch(ctx, tx, p, st, start, p.Articles[start:end], targets)
		if err != nil {
			return SaveCounts{}, err
		}
		c.add(got)
	}
	// 4. The poll's audit row, with what the database actually kept.
	p.Run.ItemsNew = c.New
	p.Run.ItemsDuplicate += c.Duplicate
	p.Run.ItemsPromoted = c.Promoted
	if err := s.insertRun(ctx, tx, p); err != nil {
		return SaveCounts{}, err
	}
	if err := tx.Commit(); err != nil {
		return SaveCounts{}, fmt.Errorf("save poll of source %d: commit: %w", p.SourceID, err)
	}
	return c, nil
}

// saveBatch stores one batch of articles (articles.go), places them in
// their stories (stories.go), then promotes the relevant ones among those
// actually inserted (promote.go) and queues the webhook deliveries of
// those promotions (deliveries.go). offset is the batch's first article
// in the poll.
func (s *Store) saveBatch(ctx context.Context, tx *sqlx.Tx, p PollSave, st *storySave, offset int, arts []NewArticle,
	targets *deliveryTargets) (SaveCounts, error) {
	t := now()
	st.joinStored(offset, arts)
	inserted, err := s.insertArticles(ctx, tx, p, arts, t)
	if err != nil {
		return SaveCounts{}, err
	}
	if err := s.placeStories(ctx, tx, p, st, offset, arts, inserted, t); err != nil {
		return SaveCounts{}, err
	}
	c := SaveCounts{New: len(inserted), Duplicate: len(arts) - len(inserted)}
	candidates := promotionCandidates(arts, inserted)
	promoted, err := s.promote(ctx, tx, p, candidates, t)
	if err != nil {
		return SaveCounts{}, err
	}
	c.Promoted = len(promoted)
	c.ContentDuplicates = len(candidates) - len(promoted)
	c.Duplicate += c.ContentDuplicates
	if c.Deliveries, err = s.enqueueDeliveries(ctx, tx, p, targets, candidates, promoted, t); err != nil {
		return SaveCounts{}, err
	}
	return c, nil
}
