package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// Re-examination moves stored articles between stories inside a save
// (see docs/digest.md): the placer reads the latest members of the
// stories it looks at (StoryMembers), and the save writes its moves
// (moveArticles) and the first and last reports of the stories they
// leave (recountLeft), a constant number of statements per poll.

// memberRow is a row of the members statement.
type memberRow struct {
	ID         int64     `db:"id"`
	Story      int64     `db:"story_id"`
	ReportedAt time.Time `db:"reported_at"`
	Profile    []byte    `db:"story_profile"`
	Terms      string    `db:"terms"`
}

func (v storyView) StoryMembers(ctx context.Context, q model.StoryMemberQuery) ([]model.StoryMember, error) {
	if q.PerStory <= 0 {
		return nil, fmt.Errorf("read story members of workspace %d: %d members per story asked for", q.WorkspaceID, q.PerStory)
	}
	if len(q.Stories) == 0 {
		return nil, nil
	}
	var rows []memberRow
	if err := v.tx.SelectContext(ctx, &rows, v.s.d.storyMembers(q.PerStory), q.WorkspaceID, v.s.d.int64List(q.Stories),
		q.Since.UTC(), q.Until.UTC()); err != nil {
		return nil, fmt.Errorf("read members of %d stories of workspace %d: %w", len(q.Stories), q.WorkspaceID, err)
	}
	// Per story the PerStory latest (ties: the higher id); the statement
	// may answer more where articles tie on the last time.
	slices.SortFunc(rows, func(a, b memberRow) int {
		if c := cmp.Compare(a.Story, b.Story); c != 0 {
			return c
		}
		if c := b.ReportedAt.Compare(a.ReportedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	out := make([]model.StoryMember, 0, len(rows))
	n := 0
	for i, r := range rows {
		if i == 0 || r.Story != rows[i-1].Story {
			n = 0
		}
		if n++; n > q.PerStory {
			continue
		}
		m := model.StoryMember{ArticleID: r.ID, StoryID: r.Story, ReportedAt: r.ReportedAt.UTC(), Profile: r.Profile}
		var err error
		if m.Terms, err = appendTerms(nil, r.Terms); err != nil {
			return nil, fmt.Errorf("read members of workspace %d: article %d: %w", q.WorkspaceID, r.ID, err)
		}
		// In order: an article filed at two times lists two rows' terms.
		slices.Sort(m.Terms)
		out = append(out, m)
	}
	return out, nil
}

// tallyMoves counts the placement's moves into the tallies of the stories
// they leave and join, which the lock read (the placer lists both in its
// updates); it runs after tallyUp, before the merges fold tallies.
func (st *storySave) tallyMoves(p model.PollSave) error {
	for _, mv := range st.placed.Moves {
		from, into := st.tally[mv.From], st.tally[mv.Into]
		if mv.From == mv.Into || from == nil || into == nil || from.fresh || into.fresh {
			return fmt.Errorf("save stories of source %d: cannot move article %d from story %d to %d", p.SourceID,
				mv.ArticleID, mv.From, mv.Into)
		}
		from.count--
		into.add(mv.ArticleID, mv.ReportedAt.UTC())
		st.counts.Moved++
	}
	return nil
}

// moveArticles moves the placement's articles to their new stories, after
// the merges: each article with its reason, its content items and its
// term index entries. Three statements for all the moves of the save.
func (s *Store) moveArticles(ctx context.Context, tx *sqlx.Tx, p model.PollSave, moves []model.StoryMove) error {
	if len(moves) == 0 {
		return nil
	}
	var cases, reasons strings.Builder
	var caseArgs, reasonArgs []any
	ids := make([]int64, 0, len(moves))
	for _, mv := range moves {
		cases.WriteString(` WHEN ? THEN CAST(? AS BIGINT)`)
		caseArgs = append(caseArgs, mv.ArticleID, mv.Into)
		reasons.WriteString(` WHEN ? THEN ?`)
		reasonArgs = append(reasonArgs, mv.ArticleID, mv.Reason)
		ids = append(ids, mv.ArticleID)
	}
	slices.Sort(ids)
	list := s.d.int64List(ids)
	stmts := []struct {
		table, query string
		args         []any
	}{
		{"feed_articles", `UPDATE feed_articles SET story_id = CASE id` + cases.String() + ` END,
			story_reason = CASE id` + reasons.String() + ` END
			WHERE ` + sameWorkspace + ` AND ` + s.d.int64In("id"),
			append(append(slices.Clone(caseArgs), reasonArgs...), p.WorkspaceID, list)},
		{"content_items", `UPDATE content_items SET story_id = CASE feed_article_id` + cases.String() + ` END
			WHERE ` + sameWorkspace + ` AND ` + s.d.int64In("feed_article_id"),
			append(slices.Clone(caseArgs), p.WorkspaceID, list)},
		{"story_terms", s.d.moveTerms(cases.String()),
			append(slices.Clone(caseArgs), p.WorkspaceID, list)},
	}
	for _, st := range stmts {
		if _, err := tx.ExecContext(ctx, s.q(st.query), st.args...); err != nil {
			return fmt.Errorf("save stories of source %d: move %d articles: %s: %w", p.SourceID, len(moves), st.table, err)
		}
	}
	return nil
}

// recountLeft sets the first reporter and the first and last report of
// the stories moves left (those not merged away), which the save's
// tallies cannot know when the article that left was one of them: one
// statement, each story's an index range scan of its latest or earliest
// article.
func (s *Store) recountLeft(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave) error {
	var ids []int64
	for _, mv := range st.placed.Moves {
		if tl := st.tally[mv.From]; tl != nil && tl.count > 0 {
			ids = append(ids, mv.From)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	at := s.d.asTime("a.reported_at")
	of := `FROM feed_articles a WHERE a.story_id = stories.id AND a.reported_at IS NOT NULL ORDER BY `
	first := of + at + `, a.id LIMIT 1)`
	if _, err := tx.ExecContext(ctx, s.q(`UPDATE stories SET
		first_article_id = (SELECT a.id `+first+`,
		first_reported_at = (SELECT a.reported_at `+first+`,
		last_reported_at = (SELECT a.reported_at `+of+at+` DESC, a.id DESC LIMIT 1)
		WHERE `+sameWorkspace+` AND `+s.d.int64In("id")), p.WorkspaceID, s.d.int64List(ids)); err != nil {
		return fmt.Errorf("save stories of source %d: recount %d stories articles left: %w", p.SourceID, len(ids), err)
	}
	return nil
}
