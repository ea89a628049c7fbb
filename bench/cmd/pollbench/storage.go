package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// storage is what a variant's database holds at the end of its rounds:
// bytes on disk per table, its indexes, TOAST and full-text index
// included, and the articles stored.
type storage struct {
	Kind     string           `json:"kind"` // "storage", to tell these lines from rounds in -json output
	Variant  string           `json:"variant"`
	DB       string           `json:"db"`
	Sources  int              `json:"sources"`
	Articles int64            `json:"articles"`
	Tables   map[string]int64 `json:"tables"`
	// StorySizes counts the live stories (not merged into another) by
	// their number of articles; empty when the schema has none.
	StorySizes map[int]int64 `json:"story_sizes,omitempty"`
	// Relations are the bytes of each relation of the articles' tables
	// (-relations): a table's heap under its name, its TOAST table and
	// TOAST index as "table (TOAST)" and "table (TOAST index)", each
	// index under its own name. PostgreSQL counts the main fork only
	// (no free space or visibility map), so they add up to a little less
	// than Tables; SQLite counts every page (dbstat), the FTS5 index's
	// shadow tables under their names.
	Relations map[string]int64 `json:"relations,omitempty"`
}

// storySummary describes StorySizes in one line: how many stories, how
// many of one article, and the largest.
func (s storage) storySummary() string {
	if len(s.StorySizes) == 0 {
		return "no stories counted"
	}
	sizes := make([]int, 0, len(s.StorySizes))
	var stories, articles int64
	for size, n := range s.StorySizes {
		sizes = append(sizes, size)
		stories += n
		articles += int64(size) * n
	}
	sort.Sort(sort.Reverse(sort.IntSlice(sizes)))
	var top []string
	for _, size := range sizes {
		for i := int64(0); i < s.StorySizes[size] && len(top) < 10; i++ {
			top = append(top, fmt.Sprint(size))
		}
	}
	return fmt.Sprintf("%d stories of %d articles, %d of one article, %d of 2–4, the largest %s", stories, articles,
		s.StorySizes[1], s.StorySizes[2]+s.StorySizes[3]+s.StorySizes[4], strings.Join(top, ", "))
}

// articleTable reports whether a table holds articles or what is derived
// from them (promotions, stories and their keys, the full-text index),
// as opposed to sources, polls and settings, whose size does not follow
// the articles.
func articleTable(name string) bool {
	for _, p := range []string{"feed_articles", "content_items", "stories", "story_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Total is every table's bytes.
func (s storage) Total() int64 {
	var n int64
	for _, b := range s.Tables {
		n += b
	}
	return n
}

// PerArticle is the whole database's bytes per article stored.
func (s storage) PerArticle() float64 {
	if s.Articles == 0 {
		return 0
	}
	return float64(s.Total()) / float64(s.Articles)
}

// ArticlePerArticle is the articles' tables' bytes per article.
func (s storage) ArticlePerArticle() float64 {
	if s.Articles == 0 {
		return 0
	}
	var n int64
	for t, b := range s.Tables {
		if articleTable(t) {
			n += b
		}
	}
	return float64(n) / float64(s.Articles)
}

// byteSize orders the tables largest first.
func (s storage) bySize() []string {
	names := make([]string, 0, len(s.Tables))
	for t := range s.Tables {
		names = append(names, t)
	}
	sort.Slice(names, func(i, j int) bool { return s.Tables[names[i]] > s.Tables[names[j]] })
	return names
}

// storage measures r's database. On PostgreSQL each table's
// pg_total_relation_size (heap, TOAST, indexes); on SQLite, after a
// checkpoint, the pages dbstat counts under each table, its indexes and
// the FTS5 index's shadow tables under their own names.
func (r *run) storage(ctx context.Context) (storage, error) {
	s := storage{Kind: "storage", Variant: r.variant.label(), DB: r.db, Sources: len(r.ids), Tables: map[string]int64{}}
	db := r.st.DB()
	if err := db.GetContext(ctx, &s.Articles, `SELECT /* pollbench */ COUNT(*) FROM feed_articles`); err != nil {
		return s, fmt.Errorf("count articles: %w", err)
	}
	var q string
	if r.pgPID != 0 {
		q = `SELECT /* pollbench */ c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
			JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`
	} else {
		if _, err := db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			return s, fmt.Errorf("checkpoint: %w", err)
		}
		q = `SELECT /* pollbench */ m.tbl_name AS name, SUM(d.pgsize) AS bytes FROM dbstat d
			JOIN sqlite_schema m ON m.name = d.name GROUP BY m.tbl_name`
	}
	var rows []struct {
		Name  string `db:"name"`
		Bytes int64  `db:"bytes"`
	}
	if err := db.SelectContext(ctx, &rows, q); err != nil {
		return s, fmt.Errorf("measure tables: %w", err)
	}
	for _, t := range rows {
		s.Tables[t.Name] += t.Bytes
	}
	if r.relations {
		rel, err := r.relationSizes(ctx)
		if err != nil {
			return s, err
		}
		s.Relations = rel
	}
	var sizes []struct {
		Size    int   `db:"size"`
		Stories int64 `db:"stories"`
	}
	// An older revision (-against) may keep stories otherwise: then
	// there is nothing to count.
	if err := db.SelectContext(ctx, &sizes, `SELECT /* pollbench */ article_count AS size, COUNT(*) AS stories
		FROM stories WHERE merged_into IS NULL GROUP BY article_count`); err == nil {
		s.StorySizes = map[int]int64{}
		for _, z := range sizes {
			s.StorySizes[z.Size] = z.Stories
		}
	}
	return s, nil
}

// relationSizes measures each relation of the articles' tables
// (storage.Relations).
func (r *run) relationSizes(ctx context.Context) (map[string]int64, error) {
	q := `SELECT /* pollbench */ m.tbl_name AS tbl, d.name AS name, SUM(d.pgsize) AS bytes FROM dbstat d
		JOIN sqlite_schema m ON m.name = d.name GROUP BY m.tbl_name, d.name`
	if r.pgPID != 0 {
		q = `SELECT /* pollbench */ t.relname AS tbl, t.relname AS name, pg_relation_size(t.oid) AS bytes
			FROM pg_class t WHERE t.relnamespace = 'public'::regnamespace AND t.relkind = 'r'
		UNION ALL SELECT t.relname, t.relname || ' (TOAST)', pg_relation_size(t.reltoastrelid)
			FROM pg_class t WHERE t.relnamespace = 'public'::regnamespace AND t.relkind = 'r' AND t.reltoastrelid <> 0
		UNION ALL SELECT t.relname, t.relname || ' (TOAST index)', pg_indexes_size(t.reltoastrelid)
			FROM pg_class t WHERE t.relnamespace = 'public'::regnamespace AND t.relkind = 'r' AND t.reltoastrelid <> 0
		UNION ALL SELECT t.relname, i.relname, pg_relation_size(i.oid)
			FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
			WHERE t.relnamespace = 'public'::regnamespace AND t.relkind = 'r'`
	}
	var rows []struct {
		Table string `db:"tbl"`
		Name  string `db:"name"`
		Bytes int64  `db:"bytes"`
	}
	if err := r.st.DB().SelectContext(ctx, &rows, q); err != nil {
		return nil, fmt.Errorf("measure relations: %w", err)
	}
	out := map[string]int64{}
	for _, x := range rows {
		if articleTable(x.Table) {
			out[x.Name] += x.Bytes
		}
	}
	return out, nil
}
