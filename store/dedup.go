package store

import (
	"context"
	"fmt"

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
	// Two branches rather than one OR: each reads its own index (SQLite
	// cannot use an index for the OR and would read every article of the
	// workspace). The GUID branch must not repeat workspace_id, or SQLite
	// picks the URL index for it.
	q, args, err := inQuery(`SELECT id, external_url, external_id, feed_source_id, revision, content_text_hash
		FROM feed_articles WHERE workspace_id = ? AND external_url IN (?)
		UNION ALL
		SELECT id, external_url, external_id, feed_source_id, revision, content_text_hash
		FROM feed_articles WHERE feed_source_id = ? AND external_id IN (?)`,
		workspaceID, orSentinel(cleanAll(urls)), sourceID, orSentinel(cleanAll(guids)))
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
