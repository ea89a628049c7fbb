package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// deliveryTargets are the webhooks of a poll's workspace that take
// content_item.promoted, with the source the poll is of: read once per
// poll, at its first promotion, in the poll's transaction.
type deliveryTargets struct {
	loaded                 bool
	hooks                  []int64
	sourceTitle, sourceURL string
}

// load reads the targets unless they are read already. A poll that
// promotes nothing never asks.
func (s *Store) loadTargets(ctx context.Context, tx *sqlx.Tx, p model.PollSave, dt *deliveryTargets) error {
	if dt.loaded {
		return nil
	}
	var rows []struct {
		ID     int64  `db:"id"`
		Events string `db:"events"`
		Title  string `db:"title"`
		URL    string `db:"url"`
	}
	// One statement for both: the source joins every active webhook, so
	// no webhook means no row and nothing else to do.
	err := tx.SelectContext(ctx, &rows, s.q(`SELECT w.id, w.events, f.title, f.url FROM webhooks w
		JOIN feed_sources f ON f.id = ? WHERE w.workspace_id = ? AND w.is_active = ? ORDER BY w.id`),
		p.SourceID, p.WorkspaceID, true)
	if err != nil {
		return fmt.Errorf("read webhooks of workspace %d: %w", p.WorkspaceID, err)
	}
	dt.loaded = true
	for _, r := range rows {
		dt.sourceTitle, dt.sourceURL = r.Title, r.URL
		for _, e := range splitEvents(r.Events) {
			if e == model.EventContentItemPromoted {
				dt.hooks = append(dt.hooks, r.ID)
				break
			}
		}
	}
	return nil
}

// deliveryColumnCount is the number of placeholders per row of
// enqueueDeliveries.
const deliveryColumnCount = 8

// deliveryBatch bounds the rows of one INSERT: a batch of promotions
// times the workspace's webhooks.
const deliveryBatch = 500

// enqueueDeliveries writes one content_item.promoted delivery per content
// item promote created and webhook subscribed to it, in the poll's
// transaction: the outbox rows commit or roll back with the promotion
// itself, so a delivery exists exactly when its content item does. The
// payload is built here, once, by the store's DeliveryPayload (the
// webhooks package's format), and every attempt sends those bytes. It
// returns how many it wrote.
func (s *Store) enqueueDeliveries(ctx context.Context, tx *sqlx.Tx, p model.PollSave, dt *deliveryTargets,
	candidates []promotion, created []promoted, t time.Time) (int, error) {
	if len(created) == 0 {
		return 0, nil
	}
	if err := s.loadTargets(ctx, tx, p, dt); err != nil {
		return 0, err
	}
	if len(dt.hooks) == 0 {
		return 0, nil
	}
	if s.payload == nil {
		return 0, fmt.Errorf("queue webhook deliveries of source %d: the store was opened without a delivery payload builder",
			p.SourceID)
	}
	byArticle := make(map[int64]model.FeedArticle, len(candidates))
	for _, c := range candidates {
		byArticle[c.ArticleID] = c.Article
	}
	args := make([]any, 0, len(created)*len(dt.hooks)*deliveryColumnCount)
	for _, c := range created {
		a := byArticle[c.FeedArticleID]
		item := model.Promoted{WorkspaceID: p.WorkspaceID, ContentItemID: c.ID, Title: a.Title, URL: a.ExternalURL,
			Summary: a.Summary, Relevance: a.RelevanceScore, PublishedAt: utcPtr(a.PublishedAt), PromotedAt: t,
			SourceID: p.SourceID, SourceTitle: dt.sourceTitle, SourceURL: dt.sourceURL}
		for _, hook := range dt.hooks {
			id, body, err := s.payload(model.EventContentItemPromoted, item)
			if err != nil {
				return 0, err
			}
			args = append(args, id, hook, p.WorkspaceID, model.EventContentItemPromoted, c.ID, string(body), t, t)
		}
	}
	rows := len(args) / deliveryColumnCount
	for start := 0; start < rows; start += deliveryBatch {
		end := min(start+deliveryBatch, rows)
		query := multiRowInsert(`INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, event, content_item_id, payload,
			next_attempt_at, created_at) VALUES `, deliveryColumnCount, end-start, ``)
		if _, err := tx.ExecContext(ctx, s.q(query), args[start*deliveryColumnCount:end*deliveryColumnCount]...); err != nil {
			return 0, fmt.Errorf("queue webhook deliveries of source %d: %w", p.SourceID, err)
		}
	}
	return rows, nil
}
