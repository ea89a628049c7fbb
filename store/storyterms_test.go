package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/analysis/stories"
	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store"
)

// TestStoryPostingsReadNoStoryRows: the term index read follows merges
// through the index of merged stories (stories_merged_id), never through
// a story's own row, which carries its centroid: a read of thousands of
// entries would otherwise read as many rows of stories.
func TestStoryPostingsReadNoStoryRows(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		arts := harbourReports(t0)
		savePoll(t, s, ws, srcs[0], placer(t, arts), arts...)
		var terms []int64
		if err := s.DB().Select(&terms, s.DB().Rebind(`SELECT DISTINCT CAST(term AS BIGINT) & 4294967295 FROM story_term_entries WHERE workspace_id = ?`), ws.ID); err != nil {
			t.Fatal(err)
		}
		if len(terms) == 0 {
			t.Fatal("no term index entries: the poll did not exercise the read")
		}
		plan, err := s.ExplainStoryPostings(context.Background(), ws.ID, terms, t0.Add(-time.Hour).Unix())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "stories_merged_id") || strings.Contains(plan, "stories_pkey") ||
			strings.Contains(plan, "INTEGER PRIMARY KEY") || strings.Contains(plan, "Seq Scan on stories") {
			t.Errorf("the term index read looks stories up by their rows, not through stories_merged_id:\n%s", plan)
		}
	})
}

// TestStoryTermsGoWithTheirArticle: deleting an article deletes its term
// index entries and leaves the others'.
func TestStoryTermsGoWithTheirArticle(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		arts := []model.NewArticle{
			storyArticle("https://a.example/quake", "Quake off Chile", wire, t0, false),
			storyArticle("https://a.example/fair", "County fair opens", "The county fair opened on Saturday with a pie contest and a tractor parade.", t0, false),
		}
		savePoll(t, s, ws, srcs[0], placer(t, arts), arts...)
		termsOf := `SELECT COUNT(*) FROM story_term_entries t JOIN feed_articles a ON a.id = t.feed_article_id WHERE a.external_url = ?`
		fair := count(t, s, termsOf, "https://a.example/fair")
		if count(t, s, termsOf, "https://a.example/quake") == 0 || fair == 0 {
			t.Fatal("the articles have no term index entries")
		}
		if _, err := s.DB().Exec(s.DB().Rebind(`DELETE FROM feed_articles WHERE external_url = ?`), "https://a.example/quake"); err != nil {
			t.Fatal(err)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM story_term_entries`); n != fair {
			t.Errorf("%d term index entries after deleting an article, want the other article's %d", n, fair)
		}
	})
}

// TestStoryIndexGoesWithItsWorkspace: deleting a workspace deletes its
// term index entries and its document frequencies and leaves another
// workspace's.
func TestStoryIndexGoesWithItsWorkspace(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		gone, goneSrcs := seed(t, s, "https://a.example/feed")
		kept, keptSrcs := seedNamed(t, s, "kept-"+t.Name(), "https://b.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		for _, w := range []struct {
			ws  *model.Workspace
			src *model.FeedSource
		}{{gone, goneSrcs[0]}, {kept, keptSrcs[0]}} {
			arts := []model.NewArticle{
				storyArticle(w.src.URL+"/quake", "Quake off Chile", wire, t0, false),
				storyArticle(w.src.URL+"/fair", "County fair opens", "The county fair opened on Saturday with a pie contest and a tractor parade.", t0, false),
			}
			savePoll(t, s, w.ws, w.src, placer(t, arts), arts...)
		}
		rows := func(table string, ws int64) int {
			return count(t, s, `SELECT COUNT(*) FROM `+table+` WHERE workspace_id = ?`, ws)
		}
		keptTerms, keptFreq := rows("story_terms", kept.ID), rows("story_doc_freq", kept.ID)
		if rows("story_terms", gone.ID) == 0 || rows("story_doc_freq", gone.ID) == 0 || keptTerms == 0 || keptFreq == 0 {
			t.Fatal("the workspaces have no term index entries or document frequencies")
		}
		if _, err := s.DB().Exec(s.DB().Rebind(`DELETE FROM workspaces WHERE id = ?`), gone.ID); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			table string
			want  int
		}{{"story_terms", keptTerms}, {"story_doc_freq", keptFreq}} {
			if n := count(t, s, `SELECT COUNT(*) FROM `+c.table); n != c.want {
				t.Errorf("%d rows of %s after deleting a workspace, want the other workspace's %d", n, c.table, c.want)
			}
		}
	})
}

// TestStoryTermsOfAnArticleAtASecondsEdge: an article's entries are
// found by it — re-examination reads them, deleting the article and the
// prune delete them — also when its reported time lies within half a
// microsecond below a whole second, which PostgreSQL stores rounded up
// to the next second while the entries carry the second the save
// computed.
func TestStoryTermsOfAnArticleAtASecondsEdge(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		edge, after := t0.Add(time.Second-300*time.Nanosecond), t0.Add(time.Second+400*time.Nanosecond)
		arts := []model.NewArticle{
			storyArticle("https://a.example/edge", "Quake off Chile", wire, edge, false),
			storyArticle("https://a.example/after", "Quake off Chile", wire, after, false),
		}
		arts[1].Article.ContentTextHash = "hash-after"
		savePoll(t, s, ws, srcs[0], placerWith(t, arts, stories.GroupOptions{}), arts...)
		story := storyOf(t, s, "https://a.example/edge")
		termsOf := `SELECT COUNT(*) FROM story_term_entries t JOIN feed_articles a ON a.id = t.feed_article_id WHERE a.external_url = ?`
		edgeTerms, afterTerms := count(t, s, termsOf, "https://a.example/edge"), count(t, s, termsOf, "https://a.example/after")
		if edgeTerms == 0 || afterTerms == 0 {
			t.Fatal("the articles have no term index entries")
		}
		m := &membersPlacer{q: model.StoryMemberQuery{Stories: []int64{story}, Since: t0.Add(-time.Hour), Until: t0.Add(time.Hour), PerStory: 5}}
		savePoll(t, s, ws, srcs[1], m, storyArticle("https://b.example/x", "Rates", other, t0, false))
		if len(m.got) != 2 {
			t.Fatalf("%d members of the story, want both articles", len(m.got))
		}
		for _, mb := range m.got {
			if want := count(t, s, `SELECT COUNT(*) FROM story_term_entries WHERE feed_article_id = ?`, mb.ArticleID); len(mb.Terms) != want {
				t.Errorf("member %d read with %d index terms, the index holds %d", mb.ArticleID, len(mb.Terms), want)
			}
		}
		if _, err := s.DB().Exec(s.DB().Rebind(`DELETE FROM feed_articles WHERE external_url = ?`), "https://a.example/edge"); err != nil {
			t.Fatal(err)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM story_term_entries WHERE workspace_id = ?`, ws.ID); n != afterTerms+count(t, s, termsOf, "https://b.example/x") {
			t.Fatalf("%d entries after deleting the article at the edge, want the others' only", n)
		}
		if _, err := s.PruneStoryTerms(context.Background(), after.Add(time.Second), t0.Add(-24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if n := count(t, s, termsOf, "https://a.example/after"); n != 0 {
			t.Errorf("%d entries of an article reported before the prune's time left", n)
		}
	})
}

// TestOneSecondaryTermIndexMigrationKeepsEntries: migrations 0023 to
// 0025 keep every term index entry and document frequency of a
// PostgreSQL database, 0023 leaves one secondary index, and the entries
// are still found by their article afterwards.
func TestOneSecondaryTermIndexMigrationKeepsEntries(t *testing.T) {
	const version = 23
	ctx := context.Background()
	s := migrateTo(t, store.Postgres, version)
	ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	arts := quakeReports(6, func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }, false)
	// This binary's save reads and writes the log of small workspaces'
	// counts (migration 0030): it gets one for this save, and counts in
	// the table, whose rows the migrations under test convert.
	s.LogDocFreqUnder(0)
	if _, err := s.DB().Exec(`CREATE TABLE story_doc_freq_log (workspace_id BIGINT, period INTEGER, id BIGINT, terms INTEGER[], docs INTEGER[])`); err != nil {
		t.Fatal(err)
	}
	savePoll(t, s, ws, srcs[0], placerWith(t, arts, stories.GroupOptions{}), arts...)
	if _, err := s.DB().Exec(`DROP TABLE story_doc_freq_log`); err != nil {
		t.Fatal(err)
	}
	entries := func() string {
		return text(t, s, `SELECT COALESCE(string_agg(concat_ws(':', workspace_id, term::bigint & 4294967295, reported_unix, feed_article_id, story_id), ','
			ORDER BY workspace_id, term::bigint & 4294967295, reported_unix, feed_article_id), '') FROM story_terms`)
	}
	// Terms compared as unsigned: INTEGERs since migrations 0024
	// (document frequencies) and 0025 (the term index).
	freqs := func() string {
		return text(t, s, `SELECT COALESCE(string_agg(concat_ws(':', workspace_id, term::bigint & 4294967295, period, shard, docs), ','
			ORDER BY workspace_id, term::bigint & 4294967295, period, shard), '') FROM story_doc_freq`)
	}
	// Terms of 2^31 and above, which the migration stores as negative
	// INTEGERs.
	if _, err := s.DB().Exec(`INSERT INTO story_doc_freq (workspace_id, term, period, shard, docs)
		VALUES ($1, 2147483648, $2, 0, 2), ($1, 4294967295, $2, 0, 3)`, ws.ID, model.StoryPeriod(t0)); err != nil {
		t.Fatal(err)
	}
	migrateKeepingIndex(t, ctx, s, entries, freqs, false)
	if got := text(t, s, `SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'story_terms'`); got != "story_terms_pkey,story_terms_reported_article" {
		t.Errorf("indexes of story_terms after the migration: %s", got)
	}
	story := storyOf(t, s, "https://a.example/0")
	m := &membersPlacer{q: model.StoryMemberQuery{Stories: []int64{story}, Since: t0.Add(-time.Hour), Until: t0.Add(time.Hour), PerStory: 10}}
	savePoll(t, s, ws, srcs[1], m, storyArticle("https://b.example/x", "Rates", other, t0, false))
	if len(m.got) != len(arts) {
		t.Fatalf("%d members after the migration, want %d", len(m.got), len(arts))
	}
	for _, mb := range m.got {
		if len(mb.Terms) == 0 || len(mb.Terms) != count(t, s, `SELECT COUNT(*) FROM story_term_entries WHERE feed_article_id = ?`, mb.ArticleID) {
			t.Errorf("member %d read with %d index terms after the migration", mb.ArticleID, len(mb.Terms))
		}
	}
	if _, err := s.DB().Exec(`DELETE FROM feed_articles WHERE external_url LIKE 'https://a.example/%'`); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM story_term_entries t LEFT JOIN feed_articles a ON a.id = t.feed_article_id WHERE a.id IS NULL`); n != 0 {
		t.Errorf("%d entries left of deleted articles after the migration", n)
	}
}

// TestStoryTermsOfAnArticleCarriedTwice: a poll that carries one article
// twice is saved, and the article's term index entries are filed once.
func TestStoryTermsOfAnArticleCarriedTwice(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		a := storyArticle("https://a.example/quake", "Quake off Chile", wire, t0, false)
		arts := []model.NewArticle{a, a}
		savePoll(t, s, ws, srcs[0], placer(t, arts), arts...)
		if n := count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE workspace_id = ?`, ws.ID); n != 1 {
			t.Fatalf("%d articles stored, want 1", n)
		}
		entries := count(t, s, `SELECT COUNT(*) FROM story_term_entries WHERE workspace_id = ?`, ws.ID)
		distinct := count(t, s, `SELECT COUNT(DISTINCT term) FROM story_term_entries WHERE workspace_id = ?`, ws.ID)
		if entries == 0 || entries != distinct {
			t.Errorf("%d term index entries of %d terms, want each term once", entries, distinct)
		}
	})
}

// TestSQLiteTermRowFiledTwice: SQLite keeps an article's entries in one
// row (migration 0029). When the save files an article's entries in two
// statements (an article the poll carried twice, its copies in two
// batches), the second adds the terms the row lacked and keeps its
// story, as the entries filed one by one were kept: the first of each.
func TestSQLiteTermRowFiledTwice(t *testing.T) {
	ctx := context.Background()
	s := testdb.Store(t, store.SQLite)
	ws, srcs := seed(t, s, "https://a.example/feed")
	a := article("https://a.example/1", "hash-1", false)
	savePoll(t, s, ws, srcs[0], nil, a)
	id := int64(count(t, s, `SELECT id FROM feed_articles WHERE external_url = 'https://a.example/1'`))
	at := int64(1741068000)
	if err := s.FileTermRows(ctx, ws.ID, []int64{9, 5}, []int64{at, at}, []int64{id, id}, []int64{1, 1}); err != nil {
		t.Fatal(err)
	}
	if err := s.FileTermRows(ctx, ws.ID, []int64{3, 9, 4_000_000_000}, []int64{at, at, at}, []int64{id, id, id}, []int64{2, 2, 2}); err != nil {
		t.Fatal(err)
	}
	if got := text(t, s, `SELECT terms FROM story_terms WHERE feed_article_id = ?`, id); got != "[3,5,9,4000000000]" {
		t.Errorf("the article's row holds %s, want [3,5,9,4000000000]", got)
	}
	if n := count(t, s, `SELECT COUNT(*) FROM story_term_entries WHERE feed_article_id = ? AND story_id = 1`, id); n != 4 {
		t.Errorf("%d of the article's entries under its first story, want 4", n)
	}
}

// termsPlacer files every article under the terms it is given, in a
// story of its own, after reading the term index and the members of
// stories through the save's view.
type termsPlacer struct {
	terms    []uint32
	postings model.StoryTermQuery
	members  model.StoryMemberQuery
	gotPost  []model.StoryPosting
	gotMemb  []model.StoryMember
}

func (p *termsPlacer) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	if len(p.postings.Terms) > 0 {
		q := p.postings
		q.WorkspaceID = req.WorkspaceID
		got, err := view.StoryPostings(ctx, q)
		if err != nil {
			return model.StoryPlacement{}, err
		}
		p.gotPost = got
	}
	if len(p.members.Stories) > 0 {
		q := p.members
		q.WorkspaceID = req.WorkspaceID
		got, err := view.StoryMembers(ctx, q)
		if err != nil {
			return model.StoryPlacement{}, err
		}
		p.gotMemb = got
	}
	out := model.StoryPlacement{Articles: make([]model.StoryChoice, len(req.Facts))}
	for i := range out.Articles {
		out.Articles[i] = model.NewStory()
		out.Articles[i].Terms = p.terms
	}
	return out, nil
}

// TestStoryTermsOfEveryTermReadBack: a term is any 32-bit value; the term
// index files an article under it and finds it again by it, whatever its
// high bit, and a member's terms read back as filed, in ascending order
// (PostgreSQL keeps terms in 32-bit INTEGERs, migration 0025).
func TestStoryTermsOfEveryTermReadBack(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		terms := []uint32{7, 1<<31 - 1, 1 << 31, 0xdeadbeef, 0xffffffff}
		savePoll(t, s, ws, srcs[0], &termsPlacer{terms: terms}, storyArticle("https://a.example/q", "Quake", wire, t0, false))
		story := storyOf(t, s, "https://a.example/q")
		p := &termsPlacer{terms: []uint32{1},
			postings: model.StoryTermQuery{Terms: append([]uint32{8}, terms...), Since: t0.Add(-time.Hour), PerTerm: 4},
			members:  model.StoryMemberQuery{Stories: []int64{story}, Since: t0.Add(-time.Hour), Until: t0.Add(time.Hour), PerStory: 4}}
		savePoll(t, s, ws, srcs[1], p, storyArticle("https://b.example/x", "Rates", other, t0, false))
		var found []uint32
		for _, post := range p.gotPost {
			if post.StoryID != story || !post.ReportedAt.Equal(t0) {
				t.Errorf("posting %+v, want story %d reported %v", post, story, t0)
			}
			found = append(found, post.Term)
		}
		slices.Sort(found)
		if !slices.Equal(found, terms) {
			t.Errorf("terms found in the index %#x, want %#x", found, terms)
		}
		if len(p.gotMemb) != 1 || !slices.Equal(p.gotMemb[0].Terms, terms) {
			t.Errorf("members %+v, want one with the terms %#x", p.gotMemb, terms)
		}
	})
}

// TestNarrowTermIndexMigrationKeepsEntries: migration 0025 keeps every
// term index entry of a PostgreSQL database, terms of 2^31 and above
// included, and they are found by their terms afterwards.
func TestNarrowTermIndexMigrationKeepsEntries(t *testing.T) {
	const version = 25
	s := migrateTo(t, store.Postgres, version)
	ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	terms := []uint32{7, 1<<31 - 1, 1 << 31, 0xdeadbeef, 0xffffffff}
	// Filed as a binary before the migration filed them: unsigned.
	savePoll(t, s, ws, srcs[0], &termsPlacer{}, storyArticle("https://a.example/q", "Quake", wire, t0, false))
	story := storyOf(t, s, "https://a.example/q")
	for _, term := range terms {
		if _, err := s.DB().Exec(`INSERT INTO story_terms (workspace_id, term, reported_unix, feed_article_id, story_id)
			SELECT workspace_id, $1, $2, id, story_id FROM feed_articles WHERE id = (SELECT first_article_id FROM stories WHERE id = $3)`,
			int64(term), t0.Unix(), story); err != nil {
			t.Fatal(err)
		}
	}
	entries := func() string {
		return text(t, s, `SELECT COALESCE(string_agg(concat_ws(':', workspace_id, term::bigint & 4294967295, reported_unix, feed_article_id, story_id), ','
			ORDER BY workspace_id, term::bigint & 4294967295, reported_unix, feed_article_id), '') FROM story_terms`)
	}
	before := entries()
	if n := count(t, s, `SELECT COUNT(*) FROM story_terms WHERE term >= 2147483648`); n != 3 {
		t.Fatalf("%d entries of terms from 2^31 before the migration, want 3", n)
	}
	if _, err := s.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := entries(); after != before {
		t.Fatalf("entries after the migration:\n%s\nbefore:\n%s", after, before)
	}
	p := &termsPlacer{terms: []uint32{1}, postings: model.StoryTermQuery{Terms: terms, Since: t0.Add(-time.Hour), PerTerm: 4}}
	savePoll(t, s, ws, srcs[1], p, storyArticle("https://b.example/x", "Rates", other, t0, false))
	if len(p.gotPost) != len(terms) {
		t.Errorf("%d postings of the article's %d terms after the migration: %+v", len(p.gotPost), len(terms), p.gotPost)
	}
}

// harbourReports are 40 short reports under https://a.example/, one a
// minute from t0, about five towns' harbours.
func harbourReports(t0 time.Time) []model.NewArticle {
	var arts []model.NewArticle
	for i := range 40 {
		arts = append(arts, storyArticle(fmt.Sprintf("https://a.example/%d", i), fmt.Sprintf("Harbour news %d", i),
			fmt.Sprintf("Item %d about the harbour of town%d and its ferry.", i, i%5), t0.Add(time.Duration(i)*time.Minute), false))
	}
	return arts
}

// migrateKeepingIndex runs s's pending migrations and fails unless the
// term index entries and document frequencies (as entries and freqs read
// them) are what they were; there must be entries before, and frequencies
// too when withFreqs.
func migrateKeepingIndex(t *testing.T, ctx context.Context, s *store.Store, entries, freqs func() string, withFreqs bool) {
	t.Helper()
	before, beforeFreqs := entries(), freqs()
	if before == "" || withFreqs && beforeFreqs == "" {
		t.Fatal("no story index before the migration")
	}
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if after := entries(); after != before {
		t.Fatalf("entries after the migration:\n%s\nbefore:\n%s", after, before)
	}
	if after := freqs(); after != beforeFreqs {
		t.Fatalf("document frequencies after the migration:\n%s\nbefore:\n%s", after, beforeFreqs)
	}
}
