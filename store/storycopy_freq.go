package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"github.com/jmoiron/sqlx"

	"github.com/feedpoller/feedpoller/model"
)

// freqCopy is a workspace's document frequencies of the periods from
// floor on (the periods before were never asked for), once loaded.
type freqCopy struct {
	loaded bool
	floor  int64
	// docs is the article count (term docFreqAll, its shards summed) and
	// terms every other term's, each by period in ascending order.
	docs  []periodDocs
	terms map[uint32][]periodDocs
}

type periodDocs struct {
	period int64
	docs   int
}

// readFreq answers a placement's read of the frequencies of terms from
// the period since on from cs's copy, reading first from tx the periods
// of the table the copy does not hold.
func (c *storyCopies) readFreq(ctx context.Context, tx *sqlx.Tx, cs *copySave, terms []uint32, since int64) (*model.StoryDocFreq, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := &cs.entry.freq
	if !f.loaded || since < f.floor {
		if err := f.load(ctx, tx, cs.ws, since); err != nil {
			return nil, err
		}
	}
	out := &model.StoryDocFreq{Docs: sumFrom(f.docs, since), Terms: make(map[uint32]int, len(terms))}
	for _, t := range terms {
		if t == docFreqAll {
			continue
		}
		if n := sumFrom(f.terms[t], since); n > 0 {
			out.Terms[t] = n
		}
	}
	return out, nil
}

// sumFrom is the docs of the periods of ps from since on.
func sumFrom(ps []periodDocs, since int64) int {
	n := 0
	for i := len(ps) - 1; i >= 0 && ps[i].period >= since; i-- {
		n += ps[i].docs
	}
	return n
}

// load reads the periods from from on that f does not hold, week by week
// along the table's primary key.
func (f *freqCopy) load(ctx context.Context, tx *sqlx.Tx, ws, from int64) error {
	if f.terms == nil {
		f.terms = map[uint32][]periodDocs{}
	}
	// The table's rows, then the logged ones (migration 0030), each term
	// of a logged row an article's count.
	until := int64(math.MaxInt64)
	if f.loaded {
		until = f.floor
	}
	query := `SELECT period, term, SUM(docs) FROM story_doc_freq WHERE workspace_id = ?1 AND period >= ?2 AND period < ?3
		GROUP BY period, term ORDER BY period, term`
	var cols [3]any
	err := scanRows(ctx, tx, query, []any{ws, from, until}, func(r *sql.Rows) error {
		if err := r.Scan(&cols[0], &cols[1], &cols[2]); err != nil {
			return err
		}
		c, err := int64s(cols[:])
		if err != nil {
			return err
		}
		f.addCount(model.StoryDocCount{Period: c[0], Term: uint32(c[1]), Docs: int(c[2])})
		return nil
	})
	if err == nil {
		err = eachLoggedRow(ctx, tx, sqliteDialect{}.docFreqLogRead(), ws, from, func(period int64, deltas []uint32) {
			if period >= until {
				return
			}
			var t uint32
			for _, d := range deltas {
				t += d
				f.addCount(model.StoryDocCount{Period: period, Term: t, Docs: 1})
			}
		})
	}
	if err != nil {
		return fmt.Errorf("read the document frequencies of workspace %d: %w", ws, err)
	}
	f.floor, f.loaded = from, true
	return nil
}

// add adds a committed save's counts to f's periods from its floor on: a
// copy not read yet, and the periods before the floor, are read from the
// table when asked for, with them.
func (f *freqCopy) add(counts []model.StoryDocCount) {
	if !f.loaded {
		return
	}
	for _, c := range counts {
		if c.Period >= f.floor {
			f.addCount(c)
		}
	}
}

func (f *freqCopy) addCount(c model.StoryDocCount) {
	if c.Term == docFreqAll {
		f.docs = addPeriod(f.docs, c.Period, c.Docs)
		return
	}
	f.terms[c.Term] = addPeriod(f.terms[c.Term], c.Period, c.Docs)
}

// addPeriod adds docs to period's count in ps, kept in period order.
func addPeriod(ps []periodDocs, period int64, docs int) []periodDocs {
	i, found := slices.BinarySearchFunc(ps, period, func(p periodDocs, t int64) int { return cmp.Compare(p.period, t) })
	if found {
		ps[i].docs += docs
		return ps
	}
	return slices.Insert(ps, i, periodDocs{period: period, docs: docs})
}
