package store

import (
	"context"
	"fmt"

	"github.com/feedpoller/feedpoller/model"
)

// SavePush stores pushed articles as a poll stores them (same dedup, same
// promotion, a poll_runs row with outcome pushed) in one transaction. It
// needs no lease and leaves the source's next poll alone: a push does not
// move polling, it only teaches the scheduler. A deleted source is
// ErrNotFound, and nothing is stored.
func (s *Store) SavePush(ctx context.Context, p model.PushSave) (model.SaveCounts, error) {
	c, err := redone(ctx, func() (model.SaveCounts, error) { return s.savePush(ctx, p) })
	s.noteWrite(ctx, "saving pushes", err)
	if err != nil {
		return model.SaveCounts{}, refused(err)
	}
	return c, nil
}

// savePush is SavePush's transaction.
func (s *Store) savePush(ctx context.Context, p model.PushSave) (model.SaveCounts, error) {
	ps := cleaned(model.PollSave{WorkspaceID: p.WorkspaceID, SourceID: p.SourceID, Articles: p.Articles, Run: p.Run, Stories: p.Stories})
	vectors := s.searchVectors(ps.Articles)
	fail := func(err error) (model.SaveCounts, error) {
		return model.SaveCounts{}, fmt.Errorf("save push to source %d: %w", p.SourceID, err)
	}
	tx, err := s.writer.BeginTxx(ctx, nil)
	if err != nil {
		return fail(fmt.Errorf("begin: %w", err))
	}
	defer tx.Rollback() // after Commit a no-op; otherwise nothing of the push is kept
	// The source row first: it must exist, and on PostgreSQL its lock
	// orders the push with a poll's save.
	res, err := tx.ExecContext(ctx, s.q(`UPDATE feed_sources SET
		schedule_state = CASE WHEN ? = '' THEN schedule_state ELSE ? END, updated_at = ?
		WHERE id = ? AND workspace_id = ?`), p.ScheduleState, p.ScheduleState, now(), p.SourceID, p.WorkspaceID)
	if err != nil {
		return fail(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fail(err)
	} else if n == 0 {
		return fail(fmt.Errorf("source %d: %w", p.SourceID, model.ErrNotFound))
	}
	// Then as a poll's save: stories, articles, promotions and their
	// webhook deliveries (save.go).
	c, fs, err := s.saveArticles(ctx, tx, ps, vectors)
	if err != nil {
		s.abandonSave(fs)
		return fail(err)
	}
	ps.Run.ItemsNew, ps.Run.ItemsPromoted = c.New, c.Promoted
	ps.Run.ItemsDuplicate += c.Duplicate
	if err := s.insertRun(ctx, tx, ps); err != nil {
		s.abandonSave(fs)
		return fail(err)
	}
	if err := s.commitSave(ctx, tx, fs); err != nil {
		return fail(fmt.Errorf("commit: %w", err))
	}
	c.Stories.Rejoined = s.rejoin(ctx, ps, fs.meet)
	return c, nil
}
