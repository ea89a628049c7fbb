package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// postingsCopy is a workspace's term index entries reported from floor
// on (Unix seconds), once loaded.
type postingsCopy struct {
	loaded bool
	floor  int64
	// byTerm holds each term's entries newest first (ties: the higher
	// article id first), as a read takes them.
	byTerm map[uint32][]copyPosting
	// storyOf is the story every entry of an article is filed under (all
	// of an article's entries have one, which a move changes), and
	// merged the stories of those merged into another since
	// (stories.merged_into): a read follows it, as the statement does.
	storyOf map[int64]int64
	merged  map[int64]int64
}

type copyPosting struct {
	reported, article int64
}

// newer orders entries as byTerm holds them.
func newer(a, b copyPosting) int {
	if c := cmp.Compare(b.reported, a.reported); c != 0 {
		return c
	}
	return cmp.Compare(b.article, a.article)
}

// readPostings answers a placement's read of the term index from cs's
// copy, as the statement does (storyPostings): per term asked, the
// entries reported since q.Since, the PerTerm newest and any tied with
// the last of them, each with its story followed through a merge.
func (c *storyCopies) readPostings(ctx context.Context, tx *sqlx.Tx, cs *copySave, q model.StoryTermQuery) ([]model.StoryPosting, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return cs.entry.postings.read(ctx, tx, cs.ws, q)
}

// readSaved answers the read of a workspace without a copy the same way,
// from the entries its save read once: a placement reads the term index
// two or three times before the save writes to it, and a small
// workspace's entries since the window began are a short range of the
// table's key, read faster whole than a statement picks each term's
// newest from them (it filtered them by term, sorted them and ranked
// them in every read). They are the save's alone and go with it.
func (cs *copySave) readSaved(ctx context.Context, tx *sqlx.Tx, q model.StoryTermQuery) ([]model.StoryPosting, error) {
	if cs.saved == nil {
		cs.saved = &postingsCopy{}
	}
	return cs.saved.read(ctx, tx, cs.ws, q)
}

// read answers q from p, loading the entries since q.Since first where p
// does not hold them.
func (p *postingsCopy) read(ctx context.Context, tx *sqlx.Tx, ws int64, q model.StoryTermQuery) ([]model.StoryPosting, error) {
	since := q.Since.Unix()
	if !p.loaded || since < p.floor {
		if err := p.load(ctx, tx, ws, since); err != nil {
			return nil, err
		}
	}
	terms := slices.Clone(q.Terms)
	slices.Sort(terms)
	out := make([]model.StoryPosting, 0, len(terms)*q.PerTerm)
	for _, t := range slices.Compact(terms) {
		ps := p.byTerm[t]
		n, _ := slices.BinarySearchFunc(ps, since, func(e copyPosting, since int64) int { return cmp.Compare(since, e.reported) })
		// ps[:n] were reported since; keep the PerTerm newest and the
		// entries tied with the last of them.
		if n > q.PerTerm {
			last := ps[q.PerTerm-1].reported
			n = q.PerTerm
			for n < len(ps) && ps[n].reported == last {
				n++
			}
		}
		for _, e := range ps[:n] {
			out = append(out, model.StoryPosting{Term: t, ArticleID: e.article, StoryID: p.resolve(p.storyOf[e.article]),
				ReportedAt: time.Unix(e.reported, 0).UTC()})
		}
	}
	return out, nil
}

// resolve is the story a story's entries count for: the one it was
// merged into, if any (a merge points every story merged into the one
// it folds at the survivor, so one step resolves).
func (p *postingsCopy) resolve(story int64) int64 {
	if into, ok := p.merged[story]; ok {
		return into
	}
	return story
}

// load reads the entries reported from from on that p does not hold,
// a range of the primary key (workspace, time: migration 0027), a row per
// article with its terms (migration 0029), with the stories merged since
// of those they are filed under.
func (p *postingsCopy) load(ctx context.Context, tx *sqlx.Tx, ws, from int64) error {
	if p.byTerm == nil {
		p.byTerm, p.storyOf, p.merged = map[uint32][]copyPosting{}, map[int64]int64{}, map[int64]int64{}
	}
	query := `SELECT t.terms, t.reported_unix, t.feed_article_id, t.story_id, s.merged_into FROM story_terms t
		LEFT JOIN stories s INDEXED BY stories_merged_id ON s.id = t.story_id AND s.merged_into IS NOT NULL
		WHERE t.workspace_id = ? AND t.reported_unix >= ?`
	args := []any{ws, from}
	if p.loaded {
		query += ` AND t.reported_unix < ?`
		args = append(args, p.floor)
	}
	var cols [5]any
	touched := map[uint32]bool{}
	var terms []uint32
	err := scanRows(ctx, tx, query, args, func(r *sql.Rows) error {
		if err := r.Scan(&cols[0], &cols[1], &cols[2], &cols[3], &cols[4]); err != nil {
			return err
		}
		merged := cols[4]
		c, err := int64s(cols[1:4])
		if err != nil {
			return err
		}
		if terms, err = parseTermList(terms[:0], cols[0]); err != nil {
			return fmt.Errorf("article %d: %w", c[1], err)
		}
		for _, term := range terms {
			p.byTerm[term] = append(p.byTerm[term], copyPosting{reported: c[0], article: c[1]})
			touched[term] = true
		}
		p.storyOf[c[1]] = c[2]
		if merged != nil {
			into, err := asInt64(merged)
			if err != nil {
				return err
			}
			p.merged[c[2]] = into
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the story terms of workspace %d: %w", ws, err)
	}
	for t := range touched {
		slices.SortFunc(p.byTerm[t], newer)
	}
	p.floor, p.loaded = from, true
	return nil
}

// parseTermList appends to dst the terms of a story_terms row's JSON
// array (termList's form: integers, no spaces), as the driver hands it.
func parseTermList(dst []uint32, v any) ([]uint32, error) {
	switch x := v.(type) {
	case string:
		return appendTermArray(dst, x)
	case []byte:
		return appendTermArray(dst, x)
	}
	return dst, fmt.Errorf("index terms of type %T", v)
}

func appendTermArray[T string | []byte](dst []uint32, list T) ([]uint32, error) {
	if len(list) < 2 || list[0] != '[' || list[len(list)-1] != ']' {
		return dst, fmt.Errorf("index terms %q: not a JSON array", string(list))
	}
	return appendTerms(dst, list[1:len(list)-1])
}

// add files a committed save's entries reported from p's floor on (the
// others are read from the table when asked for, with them).
func (p *postingsCopy) add(rows termRows) {
	if !p.loaded {
		return
	}
	for i, t := range rows.terms {
		if rows.reported[i] < p.floor {
			continue
		}
		e := copyPosting{reported: rows.reported[i], article: rows.articles[i]}
		term := uint32(t)
		at, _ := slices.BinarySearchFunc(p.byTerm[term], e, newer)
		p.byTerm[term] = slices.Insert(p.byTerm[term], at, e)
		p.storyOf[e.article] = rows.stories[i]
	}
}

// merge follows a committed save's merges: each From story, and every
// story merged into it before, now resolves to its Into.
func (p *postingsCopy) merge(merges []model.StoryMerge) {
	if !p.loaded || len(merges) == 0 {
		return
	}
	into := make(map[int64]int64, len(merges))
	for _, m := range merges {
		if _, ok := into[m.From]; !ok {
			into[m.From] = m.Into
		}
	}
	for story, was := range p.merged {
		if to, ok := into[was]; ok {
			p.merged[story] = to
		}
	}
	for from, to := range into {
		if _, ok := p.merged[from]; !ok {
			p.merged[from] = to
		}
	}
}

// move files the entries of a committed save's moved articles under
// their new stories (the first move of an article wins, as in the
// statement).
func (p *postingsCopy) move(moves []model.StoryMove) {
	if !p.loaded {
		return
	}
	seen := map[int64]bool{}
	for _, mv := range moves {
		if seen[mv.ArticleID] {
			continue
		}
		seen[mv.ArticleID] = true
		if _, ok := p.storyOf[mv.ArticleID]; ok {
			p.storyOf[mv.ArticleID] = mv.Into
		}
	}
}
