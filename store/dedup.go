package store

import (
	"context"
	"fmt"

	"github.com/lib/pq"

	"github.com/feedpoller/feedpoller/model"
)

// KnownArticles looks up, in one query, which of a poll's URLs the
// workspace already has and which GUIDs the source already yielded. The
// GUIDs are compared as they are stored (see CleanText) and answered as
// they were asked.
func (s *Store) KnownArticles(ctx context.Context, workspaceID, sourceID int64, urls, guids []string) (*model.Known, error) {
	k := &model.Known{ByURL: map[string]model.KnownArticle{}, GUIDs: map[string]bool{}}
	if len(urls) == 0 && len(guids) == 0 {
		return k, nil
	}
	q, args, err := s.d.knownArticles(workspaceID, sourceID, cleanAll(urls), cleanAll(guids))
	if err != nil {
		return nil, err
	}
	asked := make(map[string][]string, len(guids))
	for _, g := range guids {
		c := CleanText(g)
		asked[c] = append(asked[c], g)
	}
	var rows []model.KnownArticle
	if err := s.db.SelectContext(ctx, &rows, s.q(q), args...); err != nil {
		return nil, refused(fmt.Errorf("look up known articles of source %d: %w", sourceID, err))
	}
	for _, r := range rows {
		if prev, ok := k.ByURL[r.ExternalURL]; !ok || r.Revision > prev.Revision {
			k.ByURL[r.ExternalURL] = r
		}
		if r.ExternalID != nil && r.FeedSourceID != nil && *r.FeedSourceID == sourceID {
			for _, g := range asked[*r.ExternalID] {
				k.GUIDs[g] = true
			}
		}
	}
	return k, nil
}

// knownArticles: two branches rather than one OR, each reading its own
// index (SQLite cannot use an index for the OR and would read every
// article of the workspace). The GUID branch must not repeat
// workspace_id, or SQLite picks the URL index for it.
func (sqliteDialect) knownArticles(workspaceID, sourceID int64, urls, guids []string) (string, []any, error) {
	return inQuery(`SELECT id, external_url, external_id, feed_source_id, revision, content_text_hash
		FROM feed_articles WHERE workspace_id = ? AND external_url IN (?)
		UNION ALL
		SELECT id, external_url, external_id, feed_source_id, revision, content_text_hash
		FROM feed_articles WHERE feed_source_id = ? AND external_id IN (?)`,
		workspaceID, orSentinel(urls), sourceID, orSentinel(guids))
}

// knownArticles: each URL and each GUID looked up on its own, by the
// index that holds it. Asked as lists ("external_url IN (…)"), the
// statement's cached plan priced the list's descents above one scan of
// the workspace's rows by another index, filtered by URL, whenever its
// estimate of a workspace's rows was low, as it is before the table's
// first statistics: in one workspace of 20 000 articles every poll then
// read all of them (40 ms of statement time). One statement for any
// number of items, too. OFFSET 0 keeps each lookup a subquery of its
// own: joined into one scan, it was priced against a hash of the same
// scan of the workspace's rows.
func (postgres) knownArticles(workspaceID, sourceID int64, urls, guids []string) (string, []any, error) {
	return `SELECT a.id, a.external_url, a.external_id, a.feed_source_id, a.revision, a.content_text_hash
		FROM unnest(CAST(? AS TEXT[])) AS u(url) CROSS JOIN LATERAL (SELECT id, external_url, external_id,
			feed_source_id, revision, content_text_hash FROM feed_articles
			WHERE workspace_id = ? AND external_url = u.url OFFSET 0) AS a
		UNION ALL
		SELECT g.id, g.external_url, g.external_id, g.feed_source_id, g.revision, g.content_text_hash
		FROM unnest(CAST(? AS TEXT[])) AS k(guid) CROSS JOIN LATERAL (SELECT id, external_url, external_id,
			feed_source_id, revision, content_text_hash FROM feed_articles
			WHERE feed_source_id = ? AND external_id = k.guid OFFSET 0) AS g`,
		[]any{pq.StringArray(urls), workspaceID, pq.StringArray(guids), sourceID}, nil
}
