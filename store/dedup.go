package store

import (
	"context"
	"fmt"
)

// KnownArticle is the part of a stored article that dedup needs.
type KnownArticle struct {
	ID              int64   `db:"id"`
	ExternalURL     string  `db:"external_url"`
	ExternalID      *string `db:"external_id"`
	FeedSourceID    *int64  `db:"feed_source_id"`
	Revision        int     `db:"revision"`
	ContentTextHash string  `db:"content_text_hash"`
}

// Known is what a workspace already holds for the items of one poll.
type Known struct {
	// ByURL maps a normalised URL to its latest revision.
	ByURL map[string]KnownArticle
	// GUIDs of the source that are already stored, as stored (see
	// CleanText); look them up with HasGUID.
	GUIDs map[string]bool
}

// HasGUID reports whether the source already stored an item with guid,
// compared as it would be stored.
func (k *Known) HasGUID(guid string) bool { return k.GUIDs[CleanText(guid)] }

// KnownArticles looks up, in one query, which of a poll's URLs the
// workspace already has and which GUIDs the source already yielded.
func (s *Store) KnownArticles(ctx context.Context, workspaceID, sourceID int64, urls, guids []string) (*Known, error) {
	k := &Known{ByURL: map[string]KnownArticle{}, GUIDs: map[string]bool{}}
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
	var rows []KnownArticle
	if err := s.db.SelectContext(ctx, &rows, s.q(q), args...); err != nil {
		return nil, fmt.Errorf("look up known articles of source %d: %w", sourceID, err)
	}
	for _, r := range rows {
		if prev, ok := k.ByURL[r.ExternalURL]; !ok || r.Revision > prev.Revision {
			k.ByURL[r.ExternalURL] = r
		}
		if r.ExternalID != nil && r.FeedSourceID != nil && *r.FeedSourceID == sourceID {
			k.GUIDs[*r.ExternalID] = true
		}
	}
	return k, nil
}
