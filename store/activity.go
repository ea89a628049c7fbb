package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// bucketAgo is the SQL of the bucket a timestamp column falls in, counted
// back from the window's end (the parameter), of width bucket.
func (s *Store) bucketAgo(col string, bucket time.Duration) string {
	perDay := strconv.FormatFloat(float64(24*time.Hour)/float64(bucket), 'f', -1, 64)
	return "CAST(FLOOR(" + s.d.daysBetween(col, "?") + " * " + perDay + ") AS BIGINT)"
}

// PollActivity counts the polls of a workspace's sources that started in
// [since, until), by bucket and outcome (polls of deleted sources went
// with them).
func (s *Store) PollActivity(ctx context.Context, workspaceID int64, since, until time.Time, bucket time.Duration) ([]model.ActivityCount, error) {
	if bucket <= 0 || !since.Before(until) {
		return nil, fmt.Errorf("poll activity: empty window %v–%v by %v", since, until, bucket)
	}
	var out []model.ActivityCount
	q := `SELECT ` + s.bucketAgo("p.started_at", bucket) + ` AS ago, p.outcome AS k, COUNT(*) AS n
		FROM poll_runs p JOIN feed_sources f ON f.id = p.feed_source_id
		WHERE f.workspace_id = ? AND ` + s.asTime("p.started_at") + ` >= ` + s.asTime("?") + ` AND ` + s.asTime("p.started_at") + ` < ` + s.asTime("?") + `
		GROUP BY 1, 2 ORDER BY 1, 2`
	if err := s.db.SelectContext(ctx, &out, s.q(q), until.UTC(), workspaceID, since.UTC(), until.UTC()); err != nil {
		return nil, fmt.Errorf("poll activity of workspace %d: %w", workspaceID, err)
	}
	return out, nil
}

// ArticleActivity counts the articles a workspace stored in [since,
// until), by bucket and source (the key is the source's id, "" for
// articles of deleted sources).
func (s *Store) ArticleActivity(ctx context.Context, workspaceID int64, since, until time.Time, bucket time.Duration) ([]model.ActivityCount, error) {
	if bucket <= 0 || !since.Before(until) {
		return nil, fmt.Errorf("article activity: empty window %v–%v by %v", since, until, bucket)
	}
	var rows []struct {
		Ago    int    `db:"ago"`
		Source *int64 `db:"k"`
		Count  int    `db:"n"`
	}
	q := `SELECT ` + s.bucketAgo("a.created_at", bucket) + ` AS ago, a.feed_source_id AS k, COUNT(*) AS n
		FROM feed_articles a
		WHERE a.workspace_id = ? AND ` + s.asTime("a.created_at") + ` >= ` + s.asTime("?") + ` AND ` + s.asTime("a.created_at") + ` < ` + s.asTime("?") + `
		GROUP BY 1, 2 ORDER BY 1, 2`
	if err := s.db.SelectContext(ctx, &rows, s.q(q), until.UTC(), workspaceID, since.UTC(), until.UTC()); err != nil {
		return nil, fmt.Errorf("article activity of workspace %d: %w", workspaceID, err)
	}
	out := make([]model.ActivityCount, len(rows))
	for i, r := range rows {
		out[i] = model.ActivityCount{Ago: r.Ago, Count: r.Count}
		if r.Source != nil {
			out[i].Key = strconv.FormatInt(*r.Source, 10)
		}
	}
	// The databases order NULL differently: one order for both.
	slices.SortFunc(out, func(x, y model.ActivityCount) int {
		return cmp.Or(cmp.Compare(x.Ago, y.Ago), cmp.Compare(x.Key, y.Key))
	})
	return out, nil
}
