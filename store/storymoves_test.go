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

// placerWith is placer with other grouping options.
func placerWith(t *testing.T, arts []model.NewArticle, opts stories.GroupOptions) *stories.Placer {
	t.Helper()
	arrivals := make([]stories.Arrival, len(arts))
	for i, a := range arts {
		arrivals[i] = stories.Arrival{Profile: stories.NewProfile(a.Article.Title, a.Article.ContentMarkdown), At: a.Story.ReportedAt}
	}
	p, err := stories.NewPlacer(arrivals, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSaveReexaminesStoredArticles: bent options place the first Reid
// report in the Lohan story and keep the next two apart; a report saved
// with the shipped options (no merge through it) then has the save
// re-examine them. The first moves out of the Lohan story (its row, its
// reason, its content item and its term index entries carry the Reid
// story; the Lohan story counts one article again, first and last
// reported by the Lohan report), and the lone report's story, emptied,
// is merged into the Reid story, so its id still resolves. The save
// counts one move and one merge.
func TestSaveReexaminesStoredArticles(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seedArchived(t, s, 1, time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC))
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		var c model.SaveCounts
		before := map[string]int64{}
		saveReexamined(t, s, ws, srcs[0], t0, func(url string, saved model.SaveCounts) {
			c = saved
			before[url] = storyOf(t, s, "https://s0.example/"+url)
		})
		lohan, reid := storyOf(t, s, "https://s0.example/lohan"), storyOf(t, s, "https://s0.example/reid-4")
		if before["reid-1"] != lohan || before["reid-2"] == before["reid-3"] {
			t.Fatalf("stories before the last save %v: the test needs the first Reid report in the Lohan story and the next two apart", before)
		}
		if c.Stories.Moved != 1 || c.Stories.Merged != 1 {
			t.Errorf("the last save's story counts %+v, want one move and one merge", c.Stories)
		}
		for _, u := range []string{"reid-1", "reid-2", "reid-3"} {
			if got := storyOf(t, s, "https://s0.example/"+u); got != reid {
				t.Errorf("%s is in story %d, want the Reid story %d", u, got, reid)
			}
		}
		if got := storyOf(t, s, "https://s0.example/lohan"); got != lohan || lohan == reid {
			t.Errorf("the Lohan report is in story %d, want %d apart from the Reid story %d", got, lohan, reid)
		}
		id := func(u string) int {
			return count(t, s, `SELECT id FROM feed_articles WHERE external_url = ?`, "https://s0.example/"+u)
		}
		reason := text(t, s, `SELECT story_reason FROM feed_articles WHERE id = ?`, id("reid-1"))
		if want := fmt.Sprintf("moved from story %d (score ", lohan); !strings.HasPrefix(reason, want) ||
			!strings.Contains(reason, fmt.Sprintf("joined story %d: similar to its articles", reid)) || !strings.Contains(reason, "shared terms: ") {
			t.Errorf("the moved report's reason %q, want it to start %q, name story %d and the shared terms", reason, want, reid)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM content_items WHERE feed_article_id = ? AND story_id = ?`, id("reid-1"), reid); n != 1 {
			t.Errorf("the moved report's content item does not carry the Reid story")
		}
		terms := count(t, s, `SELECT COUNT(*) FROM story_term_entries WHERE feed_article_id = ?`, id("reid-1"))
		if n := count(t, s, `SELECT COUNT(*) FROM story_term_entries WHERE feed_article_id = ? AND story_id = ?`, id("reid-1"), reid); n != terms || n == 0 {
			t.Errorf("%d of the moved report's %d term entries carry the Reid story", n, terms)
		}
		var row struct {
			Count   int       `db:"article_count"`
			First   int64     `db:"first_article_id"`
			FirstAt time.Time `db:"first_reported_at"`
			LastAt  time.Time `db:"last_reported_at"`
		}
		if err := s.DB().Get(&row, s.DB().Rebind(`SELECT article_count, first_article_id, first_reported_at, last_reported_at FROM stories WHERE id = ?`), lohan); err != nil {
			t.Fatal(err)
		}
		if row.Count != 1 || row.First != int64(id("lohan")) || !row.FirstAt.Equal(t0) || !row.LastAt.Equal(t0) {
			t.Errorf("the Lohan story %+v, want 1 article, first reporter %d, first and last reported at %s", row, id("lohan"), t0)
		}
		if err := s.DB().Get(&row, s.DB().Rebind(`SELECT article_count, first_article_id, first_reported_at, last_reported_at FROM stories WHERE id = ?`), reid); err != nil {
			t.Fatal(err)
		}
		if row.Count != 4 || row.First != int64(id("reid-1")) || !row.FirstAt.Equal(t0.Add(time.Hour)) || !row.LastAt.Equal(t0.Add(4*time.Hour)) {
			t.Errorf("the Reid story %+v, want 4 articles, first reporter %d at %s, last report at %s", row, id("reid-1"), t0.Add(time.Hour), t0.Add(4*time.Hour))
		}
		emptied := before["reid-2"]
		if emptied == reid {
			emptied = before["reid-3"]
		}
		if n := count(t, s, `SELECT COUNT(*) FROM stories WHERE id = ? AND merged_into = ? AND article_count = 0`, emptied, reid); n != 1 {
			t.Errorf("the emptied story %d is not marked merged into the Reid story %d", emptied, reid)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE story_reason LIKE ?`, fmt.Sprintf("moved from story %d, where it was alone,%%", emptied)); n != 1 {
			t.Errorf("%d articles say they left the emptied story %d", n, emptied)
		}
		if n := count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE story_profile IS NOT NULL AND workspace_id = ?`, ws.ID); n == 0 {
			t.Error("no article was stored with its profile")
		}
	})
}

// saveReexamined saves, a poll each, the reports of
// TestSaveReexaminesStoredArticles: the last save moves the first Reid
// report out of the Lohan story and merges a story it empties. After
// each save, saved gets the report's url (under s0.example) and the
// save's counts.
func saveReexamined(t *testing.T, s *store.Store, ws *model.Workspace, src *model.FeedSource, t0 time.Time,
	saved func(url string, c model.SaveCounts)) {
	t.Helper()
	apart := stories.GroupOptions{Threshold: 0.99, MergeThreshold: 0.99}
	steps := []struct {
		url, title, body string
		opts             stories.GroupOptions
	}{
		{"lohan", "Lindsay Lohan checks into Betty Ford Center",
			"Lindsay Lohan has checked into the Betty Ford Center in Rancho Mirage to begin a 90-day court-ordered stay, her lawyer Shawn Holley said.",
			stories.GroupOptions{}},
		{"reid-1", "Tara Reid checks into Promises in Malibu",
			"Actress Tara Reid checked into the Promises Treatment Center in Malibu, publicist Jack Ketsoyan said.",
			stories.GroupOptions{Threshold: 0.01, MergeThreshold: 0.99, IndexTerms: stories.MaxProfileFeatures}},
		{"reid-2", "Tara Reid enters Promises in Malibu",
			"Actress Tara Reid has entered the Promises Treatment Center in Malibu, publicist Jack Ketsoyan said on Tuesday.", apart},
		{"reid-3", "Tara Reid is in rehab at Promises",
			"Tara Reid is being treated at the Promises Treatment Center in Malibu, her publicist Jack Ketsoyan confirmed.", apart},
		{"reid-4", "Tara Reid enters Promises in Malibu, publicist says",
			"Actress Tara Reid has entered the Promises Treatment Center in Malibu, publicist Jack Ketsoyan said on Tuesday.",
			stories.GroupOptions{MergeThreshold: 0.99}},
	}
	for i, st := range steps {
		a := storyArticle("https://s0.example/"+st.url, st.title, st.body, t0.Add(time.Duration(i)*time.Hour), true)
		a.Article.ContentTextHash = "hash-" + st.url
		saved(st.url, savePoll(t, s, ws, src, placerWith(t, []model.NewArticle{a}, st.opts), a))
	}
}

// membersPlacer reads the members of one story through the save's view
// and starts a story for every article.
type membersPlacer struct {
	q   model.StoryMemberQuery
	got []model.StoryMember
}

func (m *membersPlacer) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	q := m.q
	q.WorkspaceID = req.WorkspaceID
	got, err := view.StoryMembers(ctx, q)
	m.got = got
	out := model.StoryPlacement{Articles: make([]model.StoryChoice, len(req.Facts))}
	for i := range out.Articles {
		out.Articles[i] = model.NewStory()
	}
	return out, err
}

// TestStoryMembersReadsTheLatest: a story's members come back as
// re-examination reads them: per story the PerStory latest reported
// within [Since, Until] (ties: the higher id), each with its profile and
// its index terms, whatever the story's size; an article stored before
// profiles has none.
func TestStoryMembersReadsTheLatest(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		// Two articles each hour: the later of a pair has the higher id.
		arts := quakeReports(12, func(i int) time.Time { return t0.Add(time.Duration(i/2) * time.Hour) }, true)
		// All in one story: the first starts it, the others join it.
		p := placerWith(t, arts, stories.GroupOptions{})
		savePoll(t, s, ws, srcs[0], p, arts...)
		story := storyOf(t, s, "https://a.example/0")
		if n := count(t, s, `SELECT COUNT(*) FROM feed_articles WHERE story_id = ?`, story); n != 12 {
			t.Fatalf("%d articles in the story, want all 12", n)
		}
		// One stored without a profile, as before this version.
		if _, err := s.DB().Exec(s.DB().Rebind(`UPDATE feed_articles SET story_profile = NULL WHERE external_url = ?`), "https://a.example/9"); err != nil {
			t.Fatal(err)
		}
		m := &membersPlacer{q: model.StoryMemberQuery{Stories: []int64{story, story + 1000}, Since: t0.Add(time.Hour), Until: t0.Add(4 * time.Hour), PerStory: 5}}
		savePoll(t, s, ws, srcs[1], m, storyArticle("https://b.example/x", "Rates", other, t0, false))
		var got []string
		for _, mb := range m.got {
			url := text(t, s, `SELECT external_url FROM feed_articles WHERE id = ?`, mb.ArticleID)
			got = append(got, strings.TrimPrefix(url, "https://a.example/"))
			if mb.StoryID != story {
				t.Errorf("member %s of story %d, want %d", url, mb.StoryID, story)
			}
			terms := count(t, s, `SELECT COUNT(*) FROM story_term_entries WHERE feed_article_id = ?`, mb.ArticleID)
			if len(mb.Terms) != terms || terms == 0 {
				t.Errorf("member %s has %d index terms, the index %d", url, len(mb.Terms), terms)
			}
			if _, err := stories.DecodeProfile(mb.Profile); (err != nil) != (url == "https://a.example/9") {
				t.Errorf("member %s: profile %d bytes, decoding: %v", url, len(mb.Profile), err)
			}
		}
		slices.Sort(got)
		// Reported 1h..4h: articles 2..9; the five latest, ties to the
		// higher id: 9, 8 (4h), 7, 6 (3h), 5 (2h, the later of 4 and 5).
		if want := []string{"5", "6", "7", "8", "9"}; !slices.Equal(got, want) {
			t.Errorf("members %v, want %v", got, want)
		}
	})
}

// freqCountingPlacer places with a real placer through a view that
// records the frequency reads.
type freqCountingPlacer struct {
	p       *stories.Placer
	reads   [][]uint32
	members int
}

func (f *freqCountingPlacer) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	return f.p.PlaceStories(ctx, freqCountingView{view, f}, req)
}

type freqCountingView struct {
	model.StoryView
	f *freqCountingPlacer
}

func (v freqCountingView) StoryDocFreq(ctx context.Context, ws int64, terms []uint32, since time.Time) (*model.StoryDocFreq, error) {
	v.f.reads = append(v.f.reads, slices.Clone(terms))
	return v.StoryView.StoryDocFreq(ctx, ws, terms, since)
}

func (v freqCountingView) StoryMembers(ctx context.Context, q model.StoryMemberQuery) ([]model.StoryMember, error) {
	out, err := v.StoryView.StoryMembers(ctx, q)
	v.f.members += len(out)
	return out, err
}

// TestReexaminationReadsOldProfilesFrequencies: the profiles a save
// stores keep their IDFs, so a later poll that re-examines their story
// in an archive about as large reads no frequency beyond its own
// articles'; a member whose profile was stored without them (version 1)
// has its features' frequencies read, in one more statement.
func TestReexaminationReadsOldProfilesFrequencies(t *testing.T) {
	testdb.EachStore(t, func(t *testing.T, s *store.Store) {
		ws, srcs := seed(t, s, "https://a.example/feed", "https://b.example/feed")
		t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
		arts := quakeReports(8, func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }, true)
		savePoll(t, s, ws, srcs[0], placerWith(t, arts, stories.GroupOptions{}), arts...)
		var raw []byte
		if err := s.DB().QueryRow(s.DB().Rebind(`SELECT story_profile FROM feed_articles WHERE external_url = ?`), "https://a.example/3").Scan(&raw); err != nil {
			t.Fatal(err)
		}
		prof, docs, idfs, err := stories.DecodeProfileIDFs(raw)
		if err != nil || idfs == nil || docs != 8 {
			t.Fatalf("stored profile: %d IDFs over %d articles (%v), want one per feature over the poll's 8", len(idfs), docs, err)
		}
		// A shorter report of the quake: it joins the story, and the
		// members have features it has not.
		lead, _, _ := strings.Cut(wire, "\n")
		poll := func(i int) [][]uint32 {
			a := storyArticle(fmt.Sprintf("https://b.example/%d", i), "Quake off Chile", lead, t0.Add(time.Hour+time.Duration(i)*time.Minute), true)
			a.Article.ContentTextHash = fmt.Sprintf("hash-b-%d", i)
			f := &freqCountingPlacer{p: placerWith(t, []model.NewArticle{a}, stories.GroupOptions{})}
			savePoll(t, s, ws, srcs[1], f, a)
			if f.members == 0 {
				t.Fatalf("poll %d re-examined no member", i)
			}
			return f.reads
		}
		if reads := poll(0); len(reads) != 1 {
			t.Errorf("members with kept IDFs: %d frequency reads, want the poll's own only", len(reads))
		}
		var words []uint32
		for i, w := range prof.Words {
			if w != "" {
				words = append(words, prof.Features[i].Term)
			}
		}
		if _, err := s.DB().Exec(s.DB().Rebind(`UPDATE feed_articles SET story_profile = ? WHERE external_url = ?`),
			stories.EncodeProfile(&prof, words, 0, nil), "https://a.example/3"); err != nil {
			t.Fatal(err)
		}
		reads := poll(1)
		if len(reads) != 2 {
			t.Fatalf("a member stored without kept IDFs: %d frequency reads, want 2", len(reads))
		}
		// The second read asks for the member's features the first did
		// not read, and those only.
		for _, f := range prof.Features {
			if slices.Contains(reads[1], f.Term) == slices.Contains(reads[0], f.Term) {
				t.Errorf("term %d: read first %v, then %v", f.Term, slices.Contains(reads[0], f.Term), slices.Contains(reads[1], f.Term))
			}
		}
		if len(reads[1]) > len(prof.Features) {
			t.Errorf("the second read asks for %d terms, more than the member's %d features", len(reads[1]), len(prof.Features))
		}
	})
}

// TestSQLiteMoveTermsSeekTheirArticles: moving articles sets the story of
// their term index entries found through story_terms_article; it never
// reads the workspace's part of the primary key, every entry of the
// workspace's index, for the few articles a poll moves.
func TestSQLiteMoveTermsSeekTheirArticles(t *testing.T) {
	ctx := context.Background()
	s := testdb.Store(t, store.SQLite)
	ws, srcs := seed(t, s, "https://a.example/feed")
	t0 := time.Date(2025, 3, 4, 6, 0, 0, 0, time.UTC)
	arts := harbourReports(t0)
	savePoll(t, s, ws, srcs[0], placer(t, arts), arts...)
	// A large index: 500 more rows for each article (a row per article
	// and time, migration 0029).
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO story_terms (workspace_id, reported_unix, feed_article_id, story_id, terms)
		SELECT a.workspace_id, 1741000000 - n.n, a.id, a.story_id, '[' || (100000 + n.n) || ']' FROM feed_articles a CROSS JOIN `+series(s, "n", 1, 500)+`
		WHERE a.workspace_id = ?`, ws.ID); err != nil {
		t.Fatal(err)
	}
	var moved []int64
	if err := s.DB().Select(&moved, `SELECT id FROM feed_articles WHERE workspace_id = ? ORDER BY id LIMIT 2`, ws.ID); err != nil {
		t.Fatal(err)
	}
	plan, err := s.ExplainMoveTerms(ctx, ws.ID, map[int64]int64{moved[0]: 1, moved[1]: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "story_terms_article") || strings.Contains(plan, "PRIMARY KEY (workspace_id=?)") {
		t.Errorf("moving two articles' term index entries reads the workspace's index:\n%s", plan)
	}
}

// TestPostgresMoveTermsSeekTheirArticles: on PostgreSQL, in one big
// workspace among many small ones, the plan cached for moving articles'
// term index entries finds them through story_terms_reported_article; it
// used to read the workspace's part of the primary key, every entry of
// the workspace's index, for each article moved.
func TestPostgresMoveTermsSeekTheirArticles(t *testing.T) {
	ctx := context.Background()
	s := testdb.Store(t, store.Postgres)
	ws, srcs := seed(t, s, "https://a.example/feed")
	for _, q := range []string{
		`INSERT INTO workspaces (name) SELECT 'other-' || n FROM generate_series(1, 1000) n`,
		`INSERT INTO feed_articles (workspace_id, external_url, title, content_markdown, reported_at)
			SELECT w.id, 'https://small.example/' || w.id || '/' || s.n, 'Title', 'Body', now()
			FROM workspaces w CROSS JOIN generate_series(1, 3) s(n) WHERE w.name LIKE 'other-%'`,
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO feed_articles (workspace_id, feed_source_id, external_url, title, content_markdown, reported_at)
		SELECT $1, $2, 'https://news.example/' || n, 'Title', 'Body', now() - n * interval '1 minute'
		FROM generate_series(1, 5000) n`, ws.ID, srcs[0].ID); err != nil {
		t.Fatal(err)
	}
	// Twelve entries an article, as a save files them.
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO story_terms (workspace_id, term, reported_unix, feed_article_id, story_id)
		SELECT a.workspace_id, hashint4(a.id::int * 16 + k) % 100000, FLOOR(EXTRACT(EPOCH FROM a.reported_at))::bigint, a.id, 1
		FROM feed_articles a CROSS JOIN generate_series(1, 12) k ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	if err := s.DB().SelectContext(ctx, &ids, `SELECT id FROM feed_articles WHERE workspace_id = $1 ORDER BY id LIMIT 3`, ws.ID); err != nil {
		t.Fatal(err)
	}
	plan, err := s.ExplainMoveTerms(ctx, ws.ID, map[int64]int64{ids[0]: 7, ids[1]: 7, ids[2]: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "story_terms_reported_article") || strings.Contains(plan, "story_terms_pkey") {
		t.Errorf("moving articles does not find their term index entries through story_terms_reported_article:\n%s", plan)
	}
	var moved int
	if err := s.DB().GetContext(ctx, &moved, `SELECT COUNT(*) FROM story_terms WHERE story_id IN (7, 8)`); err != nil {
		t.Fatal(err)
	}
	if moved != 36 {
		t.Errorf("%d entries moved, want the 36 of the three articles", moved)
	}
}
