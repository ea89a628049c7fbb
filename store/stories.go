package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// candidateRow is one row of the candidate lookup: the workspace's
// generation, and a candidate (all NULL when there is none).
type candidateRow struct {
	Generation int64         `db:"story_generation"`
	ID         sql.NullInt64 `db:"id"`
	StoryID    sql.NullInt64 `db:"story_id"`
	ReportedAt sql.NullTime  `db:"reported_at"`
	Signature  []byte        `db:"story_signature"`
}

// StoryCandidates finds, in one statement, the articles of a workspace
// that share one of q.Keys and were reported at or after q.Since: for each
// key the q.PerKey most recently reported (see dialect.storyCandidates).
// It is the stories side's view before a save; inside a save the same
// lookup runs in the save's transaction (storyView). Articles without a
// story or a signature are left out: they stay stories of their own.
func (s *Store) StoryCandidates(ctx context.Context, q model.StoryQuery) (*model.StoryLookup, error) {
	l, err := s.storyCandidates(ctx, s.db, q)
	return l, refused(err)
}

func (s *Store) storyCandidates(ctx context.Context, qr sqlx.QueryerContext, q model.StoryQuery) (*model.StoryLookup, error) {
	if q.PerKey <= 0 {
		return nil, fmt.Errorf("look up story candidates of workspace %d: %d candidates per key asked for", q.WorkspaceID, q.PerKey)
	}
	keys := slices.Clone(q.Keys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	var rows []candidateRow
	err := sqlx.SelectContext(ctx, qr, &rows, s.d.storyCandidates(q.PerKey), q.WorkspaceID, s.d.int64List(keys), q.Since.Unix())
	if err != nil {
		return nil, fmt.Errorf("look up story candidates of workspace %d: %w", q.WorkspaceID, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("look up story candidates of workspace %d: %w", q.WorkspaceID, model.ErrNotFound)
	}
	out := &model.StoryLookup{Generation: rows[0].Generation}
	for _, r := range rows {
		if !r.ID.Valid || !r.StoryID.Valid || !r.ReportedAt.Valid || len(r.Signature) == 0 {
			continue
		}
		out.Candidates = append(out.Candidates, model.StoryCandidate{ArticleID: r.ID.Int64, StoryID: r.StoryID.Int64,
			ReportedAt: r.ReportedAt.Time, Signature: r.Signature})
	}
	return out, nil
}

// storyView is the candidate lookup inside a save's transaction, the view
// the save hands its StoryPlacer.
type storyView struct {
	s  *Store
	tx *sqlx.Tx
}

func (v storyView) StoryCandidates(ctx context.Context, q model.StoryQuery) (*model.StoryLookup, error) {
	return v.s.storyCandidates(ctx, v.tx, q)
}

// storySave carries a poll's story placement through its batches of
// articles (save.go): the placement's choice for each article of the
// poll, and the stories created so far.
type storySave struct {
	choice []model.StoryChoice
	merges []model.StoryMerge
	// storyOf is each inserted article's story (0: not placed yet).
	storyOf []int64
	// groups maps the first article of a story the poll starts (the
	// decision's root) to the story once created.
	groups map[int]int64
}

// beginStories serialises the poll's placement with every other save of
// the workspace and has the poll's StoryPlacer decide: it counts the
// workspace's story generation up (UPDATE … RETURNING, whose row lock
// makes a concurrent save of the workspace wait on PostgreSQL; SQLite has
// one writer anyway), then hands the placer the generation and a view
// that reads inside this transaction. So two polls never start two
// stories for one event. Without a placer every article starts a story.
func (s *Store) beginStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave) (*storySave, error) {
	st := &storySave{choice: make([]model.StoryChoice, len(p.Articles)), storyOf: make([]int64, len(p.Articles)),
		groups: map[int]int64{}}
	for i := range st.choice {
		st.choice[i] = model.NewStory()
	}
	if p.Stories == nil || len(p.Articles) == 0 {
		return st, nil
	}
	var gen int64
	if err := tx.GetContext(ctx, &gen, s.q(`UPDATE workspaces SET story_generation = story_generation + 1 WHERE id = ?
		RETURNING story_generation`), p.WorkspaceID); err != nil {
		return nil, fmt.Errorf("save stories of source %d: %w", p.SourceID, err)
	}
	req := model.StoryRequest{WorkspaceID: p.WorkspaceID, SourceID: p.SourceID, Generation: gen,
		Facts: make([]*model.StoryFacts, len(p.Articles))}
	for i, na := range p.Articles {
		req.Facts[i] = na.Story
	}
	placed, err := p.Stories.PlaceStories(ctx, storyView{s, tx}, req)
	if err != nil {
		return nil, fmt.Errorf("save stories of source %d: %w", p.SourceID, err)
	}
	if len(placed.Articles) != len(p.Articles) {
		return nil, fmt.Errorf("save stories of source %d: %d story choices for %d articles", p.SourceID,
			len(placed.Articles), len(p.Articles))
	}
	for i, c := range placed.Articles {
		if c.StoryID > 0 || c.JoinsArticle >= i {
			c.JoinsArticle = -1 // a stored story wins; a later article cannot found this one's story
		}
		st.choice[i] = c
	}
	st.merges = placed.Merges
	return st, nil
}

// joinStored sets, before the batch's articles are inserted, the story of
// those that join a stored story: it is inserted with them.
func (st *storySave) joinStored(offset int, arts []model.NewArticle) {
	for i := range arts {
		c := st.choice[offset+i]
		arts[i].Article.StoryReason = c.Reason
		if id := c.StoryID; id > 0 {
			arts[i].Article.StoryID = &id
		}
	}
}

// placeStories gives every article of the batch that was inserted its
// story: a stored one (set at the insert), one this poll started, or a new
// one it founds. It creates the new stories, sets the articles' story_id,
// recounts the stories that grew, and stores the band keys of the
// signatures; the batch's arts then carry their story ids for promotion.
// inserted maps the keys of the inserted articles to their ids.
func (s *Store) placeStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave, offset int,
	arts []model.NewArticle, inserted map[articleKey]int64, t time.Time) error {
	var founders, joiners []int // batch positions
	ids := make([]int64, len(arts))
	grown := map[int64]bool{}
	for i, na := range arts {
		id, ok := inserted[keyOf(na.Article)]
		if !ok {
			continue // another poll stored it first: no story of ours
		}
		ids[i] = id
		g := offset + i
		a := st.choice[g]
		if a.StoryID > 0 {
			st.storyOf[g] = a.StoryID
			grown[a.StoryID] = true
			continue
		}
		root := g
		if a.JoinsArticle >= 0 {
			root = a.JoinsArticle
		}
		if sid, ok := st.groups[root]; ok && sid != 0 {
			st.storyOf[g] = sid
			grown[sid] = true
			joiners = append(joiners, i)
			continue
		}
		if _, ok := st.groups[root]; ok {
			joiners = append(joiners, i) // its story is founded in this batch
			continue
		}
		st.groups[root] = 0
		founders = append(founders, i)
	}
	if len(founders) > 0 {
		if err := s.insertStories(ctx, tx, p, st, offset, arts, founders, ids, t); err != nil {
			return err
		}
		for _, i := range joiners {
			if st.storyOf[offset+i] == 0 {
				sid := st.groups[st.rootOf(offset+i)]
				st.storyOf[offset+i] = sid
				grown[sid] = true
			}
		}
	}
	if err := s.setArticleStories(ctx, tx, p, st, offset, append(founders, joiners...), ids); err != nil {
		return err
	}
	if err := s.recountStories(ctx, tx, p, grown); err != nil {
		return err
	}
	for i := range arts {
		if sid := st.storyOf[offset+i]; sid != 0 {
			arts[i].Article.StoryID = &sid
		}
	}
	return s.insertBands(ctx, tx, p, arts, ids)
}

func (st *storySave) rootOf(g int) int {
	if j := st.choice[g].JoinsArticle; j >= 0 && st.choice[g].StoryID == 0 {
		return j
	}
	return g
}

// insertStories creates the stories the batch's founders start, in one
// statement, each with its founder as first (and only) article.
func (s *Store) insertStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave, offset int,
	arts []model.NewArticle, founders []int, ids []int64, t time.Time) error {
	query := multiRowInsert(`INSERT INTO stories (workspace_id, first_article_id, first_reported_at, last_reported_at,
		article_count, created_at) VALUES `, 6, len(founders), ` RETURNING id, first_article_id`)
	args := make([]any, 0, 6*len(founders))
	for _, i := range founders {
		at := reportedAt(arts[i], t)
		args = append(args, p.WorkspaceID, ids[i], at, at, 1, t)
	}
	var rows []struct {
		ID      int64 `db:"id"`
		Article int64 `db:"first_article_id"`
	}
	if err := tx.SelectContext(ctx, &rows, s.q(query), args...); err != nil {
		return fmt.Errorf("save stories of source %d: %w", p.SourceID, err)
	}
	byArticle := make(map[int64]int64, len(rows))
	for _, r := range rows {
		byArticle[r.Article] = r.ID
	}
	for _, i := range founders {
		sid, ok := byArticle[ids[i]]
		if !ok {
			return fmt.Errorf("save stories of source %d: no story came back for article %d", p.SourceID, ids[i])
		}
		st.storyOf[offset+i] = sid
		st.groups[st.rootOf(offset+i)] = sid
	}
	return nil
}

// setArticleStories writes the story of the batch articles whose story
// was not known when they were inserted, in one statement.
func (s *Store) setArticleStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, st *storySave, offset int, which []int, ids []int64) error {
	if len(which) == 0 {
		return nil
	}
	var sb strings.Builder
	args := make([]any, 0, 3*len(which))
	sb.WriteString(`UPDATE feed_articles SET story_id = CASE id`)
	for _, i := range which {
		sb.WriteString(` WHEN ? THEN CAST(? AS BIGINT)`)
		args = append(args, ids[i], st.storyOf[offset+i])
	}
	sb.WriteString(` END WHERE id IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(which)), ", ") + `)`)
	for _, i := range which {
		args = append(args, ids[i])
	}
	if _, err := tx.ExecContext(ctx, s.q(sb.String()), args...); err != nil {
		return fmt.Errorf("save stories of source %d: set the stories of %d articles: %w", p.SourceID, len(which), err)
	}
	return nil
}

// recountStories recomputes, from their members, the count, the first
// reporter and the first and last report of the stories that took more
// articles; the index on (story_id, reported_at) answers each from a few
// index entries.
func (s *Store) recountStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, grown map[int64]bool) error {
	if len(grown) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(grown))
	for id := range grown {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	at := s.asTime("a.reported_at")
	members := `FROM feed_articles a WHERE a.story_id = stories.id AND a.reported_at IS NOT NULL`
	q, args, err := inQuery(`UPDATE stories SET
		article_count = (SELECT COUNT(*) FROM feed_articles a WHERE a.story_id = stories.id),
		first_article_id = (SELECT a.id `+members+` ORDER BY `+at+`, a.id LIMIT 1),
		first_reported_at = (SELECT a.reported_at `+members+` ORDER BY `+at+`, a.id LIMIT 1),
		last_reported_at = (SELECT a.reported_at `+members+` ORDER BY `+at+` DESC LIMIT 1)
		WHERE id IN (?)`, ids)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, s.q(q), args...); err != nil {
		return fmt.Errorf("save stories of source %d: recount %d stories: %w", p.SourceID, len(ids), err)
	}
	return nil
}

// mergeStories folds each merge's From story into its Into story, in the
// save's transaction: From's articles and content items move to Into,
// From is marked merged into Into (its id keeps naming where its articles
// went) and emptied, and Into is recounted from its members.
func (s *Store) mergeStories(ctx context.Context, tx *sqlx.Tx, p model.PollSave, merges []model.StoryMerge) error {
	if len(merges) == 0 {
		return nil
	}
	grown := map[int64]bool{}
	for _, m := range merges {
		if m.From <= 0 || m.Into <= 0 || m.From == m.Into {
			return fmt.Errorf("save stories of source %d: cannot merge story %d into %d", p.SourceID, m.From, m.Into)
		}
		res, err := tx.ExecContext(ctx, s.q(`UPDATE stories SET merged_into = ?, article_count = 0
			WHERE id = ? AND workspace_id = ? AND merged_into IS NULL
			AND EXISTS (SELECT 1 FROM stories i WHERE i.id = ? AND i.workspace_id = ? AND i.merged_into IS NULL)`),
			m.Into, m.From, p.WorkspaceID, m.Into, p.WorkspaceID)
		if err != nil {
			return fmt.Errorf("save stories of source %d: merge story %d into %d: %w", p.SourceID, m.From, m.Into, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("save stories of source %d: merge story %d into %d: %w", p.SourceID, m.From, m.Into, err)
		} else if n == 0 {
			return fmt.Errorf("save stories of source %d: merge story %d into %d: %w", p.SourceID, m.From, m.Into,
				model.ErrNotFound)
		}
		for _, table := range []string{"feed_articles", "content_items"} {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE `+table+` SET story_id = ? WHERE workspace_id = ? AND story_id = ?`),
				m.Into, p.WorkspaceID, m.From); err != nil {
				return fmt.Errorf("save stories of source %d: merge story %d into %d: %w", p.SourceID, m.From, m.Into, err)
			}
		}
		grown[m.Into] = true
	}
	return s.recountStories(ctx, tx, p, grown)
}

// bandRowsPerInsert bounds the rows of one band-key INSERT (4 parameters
// each), far under both databases' parameter limits.
const bandRowsPerInsert = 2000

// insertBands stores the band keys of the batch's inserted articles, so
// that later polls find them as candidates.
func (s *Store) insertBands(ctx context.Context, tx *sqlx.Tx, p model.PollSave, arts []model.NewArticle, ids []int64) error {
	var args []any
	rows := 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		query := multiRowInsert(`INSERT INTO story_bands (workspace_id, band_key, reported_unix, feed_article_id) VALUES `,
			4, rows, ` ON CONFLICT DO NOTHING`)
		if _, err := tx.ExecContext(ctx, s.q(query), args...); err != nil {
			return fmt.Errorf("save story keys of source %d: %w", p.SourceID, err)
		}
		args, rows = args[:0], 0
		return nil
	}
	for i, na := range arts {
		if ids[i] == 0 || na.Story == nil || na.Article.StoryID == nil {
			continue
		}
		at := na.Story.ReportedAt.Unix()
		for _, k := range na.Story.Keys {
			args = append(args, p.WorkspaceID, k, at, ids[i])
			rows++
			if rows == bandRowsPerInsert {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// reportedAt is when an article counts as reported: what the pipeline
// worked out, or (an article saved without a story item) its publication
// time unless later than t, when it is stored.
func reportedAt(na model.NewArticle, t time.Time) time.Time {
	if na.Story != nil && !na.Story.ReportedAt.IsZero() {
		return na.Story.ReportedAt.UTC()
	}
	return model.ReportedAt(na.Article.PublishedAt, t).UTC()
}

// signatureBytes is the stored form of an article's signature: NULL when
// it has none.
func signatureBytes(na model.NewArticle) []byte {
	if na.Story == nil || len(na.Story.Signature) == 0 {
		return nil
	}
	return na.Story.Signature
}

// PruneStoryBands deletes the band keys of articles reported before
// before (the story window ago): no new article can join their stories
// through them any more, and the table stays the size of one window. It
// returns how many rows it deleted.
func (s *Store) PruneStoryBands(ctx context.Context, before time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.q(`DELETE FROM story_bands WHERE reported_unix < ?`), before.Unix())
	if err != nil {
		return 0, fmt.Errorf("prune story keys reported before %s: %w", before.UTC().Format(time.RFC3339), err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("prune story keys: %w", err)
	}
	return n, nil
}
