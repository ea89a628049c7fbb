package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// NewArticle is an article a poll wants stored, and whether it passed
// relevance.
type NewArticle struct {
	Article FeedArticle
	Promote bool
}

// SourceUpdate is the bookkeeping a poll writes on its source.
type SourceUpdate struct {
	Status     string
	Error      string
	NextPollAt time.Time
	// Failed adds one to consecutive_failures; otherwise Reset sets it to 0
	// and neither leaves it alone (deferrals).
	Failed bool
	Reset  bool
	// Deactivate turns the source off (HTTP 410 Gone).
	Deactivate bool
	// Validators to store; nil keeps the stored ones.
	ETag, LastModified *string
	// Unconditional records that this fetch was made without validators.
	Unconditional bool
	// Title fills an empty source title.
	Title string
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
	Source   SourceUpdate
	Run      PollRun
}

// SaveCounts says what the database actually kept.
type SaveCounts struct {
	New       int // articles inserted
	Duplicate int // articles another poll stored first (URL race), plus content-hash duplicates
	Promoted  int // content items created
	// ContentDuplicates counts relevant articles whose content hash was
	// already promoted in the workspace.
	ContentDuplicates int
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

func (s *Store) savePoll(ctx context.Context, p PollSave) (SaveCounts, error) {
	var c SaveCounts
	if len(p.Articles) == 0 && s.dialect == Postgres {
		// The 304 path: one round trip for the whole bookkeeping.
		return c, s.saveBookkeepingOnly(ctx, p)
	}
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return c, fmt.Errorf("save poll of source %d: begin: %w", p.SourceID, err)
	}
	defer tx.Rollback()
	// The source row first: it proves the lease is still ours and, on
	// PostgreSQL, locks the row so no claim can take the source until the
	// poll is committed.
	if err := s.updateSource(ctx, tx, p); err != nil {
		return SaveCounts{}, err
	}
	for start := 0; start < len(p.Articles); start += articleBatch {
		end := min(start+articleBatch, len(p.Articles))
		got, err := s.insertArticles(ctx, tx, p, p.Articles[start:end])
		if err != nil {
			return SaveCounts{}, err
		}
		c.New += got.New
		c.Duplicate += got.Duplicate
		c.Promoted += got.Promoted
		c.ContentDuplicates += got.ContentDuplicates
	}
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

func (s *Store) insertArticles(ctx context.Context, tx *sqlx.Tx, p PollSave, arts []NewArticle) (SaveCounts, error) {
	var c SaveCounts
	const cols = 21
	var sb strings.Builder
	sb.WriteString(`INSERT INTO feed_articles (workspace_id, feed_source_id, external_url, external_id, title, author,
		published_at, summary, content_markdown, extraction_method, word_count, relevance_score, matched_terms,
		content_text_hash, revision, previous_article_id, reading_time_seconds, input_tokens, output_tokens,
		quality_score, language, created_at, input_tokens_o200k, output_tokens_o200k) VALUES `)
	args := make([]any, 0, len(arts)*(cols+3))
	t := now()
	for i, na := range arts {
		a := na.Article
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		terms, _ := json.Marshal(orEmpty(a.MatchedTerms))
		rev := max(a.Revision, 1)
		args = append(args, p.WorkspaceID, p.SourceID, a.ExternalURL, a.ExternalID, a.Title, a.Author,
			utcPtr(a.PublishedAt), a.Summary, a.ContentMarkdown, a.ExtractionMethod, a.WordCount, a.RelevanceScore,
			string(terms), a.ContentTextHash, rev, a.PreviousArticleID, a.ReadingTimeSeconds, a.InputTokens,
			a.OutputTokens, a.QualityScore, a.Language, t, a.InputTokensO200k, a.OutputTokensO200k)
	}
	sb.WriteString(` ON CONFLICT (workspace_id, external_url, revision) DO NOTHING RETURNING id, external_url, revision`)
	var inserted []struct {
		ID       int64  `db:"id"`
		URL      string `db:"external_url"`
		Revision int    `db:"revision"`
	}
	if err := tx.SelectContext(ctx, &inserted, s.q(sb.String()), args...); err != nil {
		return c, fmt.Errorf("save articles of source %d: %w", p.SourceID, err)
	}
	c.New = len(inserted)
	c.Duplicate = len(arts) - len(inserted)

	type key struct {
		url string
		rev int
	}
	ids := make(map[key]int64, len(inserted))
	for _, r := range inserted {
		ids[key{r.URL, r.Revision}] = r.ID
	}
	var promo strings.Builder
	promo.WriteString(`INSERT INTO content_items (workspace_id, feed_article_id, url, title, content_markdown,
		content_text_hash, relevance_score, matched_terms, published_at, promoted_at) VALUES `)
	var pargs []any
	candidates := 0
	for _, na := range arts {
		id, ok := ids[key{na.Article.ExternalURL, max(na.Article.Revision, 1)}]
		if !ok || !na.Promote || na.Article.ContentTextHash == "" {
			continue
		}
		if candidates > 0 {
			promo.WriteString(", ")
		}
		candidates++
		a := na.Article
		terms, _ := json.Marshal(orEmpty(a.MatchedTerms))
		promo.WriteString("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
		pargs = append(pargs, p.WorkspaceID, id, a.ExternalURL, a.Title, a.ContentMarkdown, a.ContentTextHash,
			a.RelevanceScore, string(terms), utcPtr(a.PublishedAt), t)
	}
	if candidates == 0 {
		return c, nil
	}
	promo.WriteString(` ON CONFLICT (workspace_id, content_text_hash) DO NOTHING RETURNING id`)
	var promoted []int64
	if err := tx.SelectContext(ctx, &promoted, s.q(promo.String()), pargs...); err != nil {
		return c, fmt.Errorf("promote articles of source %d: %w", p.SourceID, err)
	}
	c.Promoted = len(promoted)
	c.ContentDuplicates = candidates - len(promoted)
	c.Duplicate += c.ContentDuplicates
	return c, nil
}

// sourceSet is the SET clause shared by both bookkeeping paths.
const sourceSet = `last_polled_at = ?, last_polled_status = ?, last_polled_error = ?,
	consecutive_failures = CASE WHEN ? THEN consecutive_failures + 1 WHEN ? THEN 0 ELSE consecutive_failures END,
	next_poll_at = ?, is_active = CASE WHEN ? THEN ? ELSE is_active END,
	etag = COALESCE(?, etag), last_modified = COALESCE(?, last_modified),
	last_unconditional_at = CASE WHEN ? THEN ? ELSE last_unconditional_at END,
	title = CASE WHEN title = '' THEN ? ELSE title END,
	lease_until = NULL, lease_owner = '', updated_at = ?`

// sourceLeased is the WHERE clause of both bookkeeping paths: the source,
// still leased to this poll's owner.
const sourceLeased = ` WHERE id = ? AND lease_owner = ? AND lease_until > ?`

func (p PollSave) sourceArgs(t time.Time) []any {
	u := p.Source
	return []any{t, u.Status, truncate(u.Error, 2000), u.Failed, u.Reset, u.NextPollAt.UTC(), u.Deactivate, false,
		u.ETag, u.LastModified, u.Unconditional, t, u.Title, t, p.SourceID, p.Owner, t}
}

func (s *Store) updateSource(ctx context.Context, tx *sqlx.Tx, p PollSave) error {
	res, err := tx.ExecContext(ctx, s.q(`UPDATE feed_sources SET `+sourceSet+sourceLeased), p.sourceArgs(now())...)
	if err != nil {
		return fmt.Errorf("record poll of source %d: %w", p.SourceID, err)
	}
	return p.leaseHeld(res)
}

// leaseHeld turns "no row updated" into ErrLeaseLost.
func (p PollSave) leaseHeld(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("record poll of source %d: %w", p.SourceID, err)
	}
	if n == 0 {
		return fmt.Errorf("record poll of source %d: %w", p.SourceID, ErrLeaseLost)
	}
	return nil
}

const runColumns = `feed_source_id, started_at, finished_at, outcome, http_status, items_seen, items_new,
	items_duplicate, items_promoted, duration_ms, error`

func (p PollSave) runArgs() []any {
	r := p.Run
	return []any{r.StartedAt.UTC(), utcPtr(r.FinishedAt), r.Outcome, r.HTTPStatus, r.ItemsSeen, r.ItemsNew,
		r.ItemsDuplicate, r.ItemsPromoted, r.DurationMS, truncate(r.Error, 2000)}
}

func (s *Store) insertRun(ctx context.Context, tx *sqlx.Tx, p PollSave) error {
	args := append([]any{p.SourceID}, p.runArgs()...)
	_, err := tx.ExecContext(ctx, s.q(`INSERT INTO poll_runs (`+runColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`), args...)
	if err != nil {
		return fmt.Errorf("record poll run of source %d: %w", p.SourceID, err)
	}
	return nil
}

// saveBookkeepingOnly updates the source and appends its poll_runs row in a
// single Postgres statement.
func (s *Store) saveBookkeepingOnly(ctx context.Context, p PollSave) error {
	args := append(p.sourceArgs(now()), p.runArgs()...)
	res, err := s.db.ExecContext(ctx, s.q(`WITH u AS (UPDATE feed_sources SET `+sourceSet+sourceLeased+`
		RETURNING id)
		INSERT INTO poll_runs (`+runColumns+`)
		SELECT u.id, ?::timestamptz, ?::timestamptz, ?::text, ?::int, ?::int, ?::int, ?::int, ?::int, ?::bigint, ?::text FROM u`), args...)
	if err != nil {
		return fmt.Errorf("record poll of source %d: %w", p.SourceID, err)
	}
	return p.leaseHeld(res)
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
