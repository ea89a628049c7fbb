package store

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// Saves of one workspace that meet on PostgreSQL. A placement reads the
// term index under shared locks on its articles' index terms
// (lockStoryTerms), so saves of one workspace never wait on each other
// to read. Two saves that read before either committed decided without
// each other's articles: each may have started a story for one event, or
// one may have started a story beside the story the other grew. Just
// before its commit a save takes, without waiting, the exclusive lock on
// each of its inserted articles' index terms (claimStoryTerms); the lock
// it gets, it holds through its commit, so a save that reads one of those
// terms meanwhile waits for the commit and then sees the save's articles.
// A term it does not get is one another save holds: that save read it and
// may not see this one. Once committed, this save waits, without holding
// anything, for the saves that hold those terms then to end (it waits for
// every transaction running then, which includes them), reads the term
// index under those terms again, and merges what the two decisions would
// have merged one after the other (model.StoryRejoin). Of any two saves
// whose reads each came before the other's commit, one of the two finds
// the other this way. See docs/digest.md, "Concurrent saves".

// rejoinWait bounds how long a save waits for the saves it met to end
// before it rejoins; what a rejoin after it would have merged stays apart
// until a later report merges it.
const rejoinWait = 30 * time.Second

// termMeeting is what a save needs at its commit and after it to find the
// saves it met and rejoin with them: the keys of its inserted articles'
// index terms, by key the stories of those articles, the placer, and the
// keys another save held at the commit.
type termMeeting struct {
	ws        int64
	keys      []int64
	stories   map[int64][]int64
	own       map[int64]*model.RejoinStory
	rejoiner  model.StoryRejoiner
	contended []int64
}

// meeting is st's termMeeting, nil where saves do not meet (SQLite, a
// placer that cannot rejoin, no article inserted with index terms).
func (s *Store) meeting(p model.PollSave, st *storySave) *termMeeting {
	rejoiner, ok := p.Stories.(model.StoryRejoiner)
	if !ok || s.d.claimStoryTerms() == "" {
		return nil
	}
	into := map[int64]int64{}
	for _, m := range st.merges {
		into[m.From] = m.Into
	}
	m := &termMeeting{ws: p.WorkspaceID, stories: map[int64][]int64{}, own: map[int64]*model.RejoinStory{}, rejoiner: rejoiner}
	for g, sid := range st.storyOf {
		if sid == 0 || len(st.choice[g].Terms) == 0 {
			continue
		}
		if to, ok := into[sid]; ok {
			sid = to // a merge names the survivor: one step resolves
		}
		rs := m.own[sid]
		if rs == nil {
			_, started := st.reserved[sid]
			rs = &model.RejoinStory{ID: sid, Started: started, At: st.at[g]}
			m.own[sid] = rs
		}
		if st.at[g].After(rs.At) {
			rs.At = st.at[g]
		}
		for _, t := range st.choice[g].Terms {
			k := p.WorkspaceID<<32 | int64(t)
			if !slices.Contains(m.stories[k], sid) {
				m.stories[k] = append(m.stories[k], sid)
			}
		}
	}
	if len(m.stories) == 0 {
		return nil
	}
	for k := range m.stories {
		m.keys = append(m.keys, k)
	}
	slices.Sort(m.keys)
	return m
}

// claimTerms takes, in tx just before its commit, the locks of m's keys
// that no other save holds, and notes the others.
func (s *Store) claimTerms(ctx context.Context, tx *sqlx.Tx, m *termMeeting) error {
	if m == nil {
		return nil
	}
	if err := tx.SelectContext(ctx, &m.contended, s.q(s.d.claimStoryTerms()), s.d.int64List(m.keys)); err != nil {
		return fmt.Errorf("claim %d story terms of workspace %d: %w", len(m.keys), m.ws, err)
	}
	slices.Sort(m.contended)
	return nil
}

// rejoin is what a save that met others does once it has committed (see
// above): it answers how many stories it merged. It never fails the save,
// which is stored: an error is logged, and what it would have merged stays
// apart until a later report merges it.
func (s *Store) rejoin(ctx context.Context, p model.PollSave, m *termMeeting) int {
	if m == nil || len(m.contended) == 0 {
		return 0
	}
	merged, err := s.rejoinStories(ctx, p, m)
	if err != nil {
		slog.Warn("rejoin stories of a save that met others", "workspace", p.WorkspaceID, "source", p.SourceID, "err", err)
	}
	return merged
}

func (s *Store) rejoinStories(ctx context.Context, p model.PollSave, m *termMeeting) (int, error) {
	if err := s.awaitHolders(ctx, m); err != nil {
		return 0, err
	}
	req := model.StoryRejoin{WorkspaceID: m.ws}
	seen := map[int64]bool{}
	for _, k := range m.contended {
		req.Terms = append(req.Terms, uint32(k))
		for _, sid := range m.stories[k] {
			if !seen[sid] {
				seen[sid] = true
				req.Stories = append(req.Stories, *m.own[sid])
			}
		}
	}
	slices.SortFunc(req.Stories, func(a, b model.RejoinStory) int { return cmp.Compare(a.ID, b.ID) })
	for attempt := 1; attempt <= placeAttempts; attempt++ {
		merged, done, err := s.rejoinOnce(ctx, p, m, req)
		if err != nil || done {
			return merged, err
		}
	}
	return 0, fmt.Errorf("rejoin stories of source %d: %w", p.SourceID, errStoriesChanged)
}

// awaitHolders waits until the saves that hold m's contended keys now
// (just after m's save committed) have ended: every transaction of the
// database running then (see runningTransactions). It asks again after a
// pause that doubles, from a few milliseconds: a save mostly ends within
// that.
func (s *Store) awaitHolders(ctx context.Context, m *termMeeting) error {
	var holders []struct {
		PID int64 `db:"pid"`
		At  int64 `db:"at"`
	}
	if err := s.db.SelectContext(ctx, &holders, s.q(s.d.runningTransactions())); err != nil {
		return fmt.Errorf("find the saves holding %d story terms of workspace %d: %w", len(m.contended), m.ws, err)
	}
	if len(holders) == 0 {
		return nil
	}
	pids := make([]int64, len(holders))
	for i, h := range holders {
		pids[i] = h.PID
	}
	deadline := time.Now().Add(rejoinWait)
	for delay := 4 * time.Millisecond; ; delay = min(2*delay, 64*time.Millisecond) {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		var running int
		if err := s.db.GetContext(ctx, &running, s.q(s.d.runningOf()), s.d.int64List(pids), holders[0].At); err != nil {
			return fmt.Errorf("wait for %d saves of workspace %d: %w", len(holders), m.ws, err)
		}
		if running == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d saves of workspace %d still running after %s", running, m.ws, rejoinWait)
		}
	}
}

// rejoinOnce asks the placer to rejoin and writes its merges in one
// transaction, when the stories they change are still as it read them
// (done false: they were not, ask again).
func (s *Store) rejoinOnce(ctx context.Context, p model.PollSave, m *termMeeting, req model.StoryRejoin) (merged int, done bool, err error) {
	tx, err := s.writer.BeginTxx(ctx, nil)
	if err != nil {
		return 0, false, fmt.Errorf("rejoin stories of source %d: begin: %w", p.SourceID, err)
	}
	defer tx.Rollback() // after Commit a no-op
	placed, err := m.rejoiner.RejoinStories(ctx, storyView{s: s, tx: tx}, req)
	if err != nil {
		return 0, false, fmt.Errorf("rejoin stories of source %d: %w", p.SourceID, err)
	}
	if len(placed.Merges) == 0 {
		return 0, true, nil
	}
	st := &storySave{}
	ok, err := s.lockStories(ctx, tx, p, placed, st)
	if err != nil || !ok {
		return 0, false, err
	}
	st.tally = st.stored
	st.merges = placed.Merges
	if err := s.mergeStories(ctx, tx, p, st); err != nil {
		return 0, false, err
	}
	if err := s.writeStories(ctx, tx, p, st); err != nil {
		return 0, false, err
	}
	if err := tx.Commit(); err != nil {
		return 0, false, fmt.Errorf("rejoin stories of source %d: commit: %w", p.SourceID, err)
	}
	return len(placed.Merges), true, nil
}
