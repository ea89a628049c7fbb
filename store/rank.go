package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// defaultTier is the tier of a source created without one: the general
// web. defaultDecayClass is a new workspace's decay class (the column
// default).
const (
	defaultTier       = int(model.TierGeneral)
	defaultDecayClass = string(model.DefaultDecayClass)
)

// SetWorkspaceDecayClass sets how fast a workspace's articles age for
// rank (fast, moderate or stable; the database refuses anything else).
func (s *Store) SetWorkspaceDecayClass(ctx context.Context, id int64, class string) error {
	res, err := s.db.ExecContext(ctx, s.q(`UPDATE workspaces SET decay_class = ? WHERE id = ?`), class, id)
	return byID(res, err, "set decay class of workspace", "workspace", id)
}

// ApplyReliabilityTiers gives every source whose tier was not set by hand
// the tier tierOf finds for its URL (the configured domain rules), so that
// a changed rule applies to every such source and SQL users read real
// tiers. It reads the sources once and writes one statement per tier
// that changed; it returns how many sources changed.
func (s *Store) ApplyReliabilityTiers(ctx context.Context, tierOf func(url string) int) (int, error) {
	var rows []struct {
		ID   int64  `db:"id"`
		URL  string `db:"url"`
		Tier int    `db:"reliability_tier"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT id, url, reliability_tier FROM feed_sources WHERE NOT reliability_tier_manual`); err != nil {
		return 0, fmt.Errorf("read source tiers: %w", err)
	}
	byTier := map[int][]int64{}
	for _, r := range rows {
		if t := tierOf(r.URL); t != r.Tier {
			byTier[t] = append(byTier[t], r.ID)
		}
	}
	changed := 0
	for tier, ids := range byTier {
		for start := 0; start < len(ids); start += 500 {
			chunk := ids[start:min(start+500, len(ids))]
			q, args, err := inQuery(`UPDATE feed_sources SET reliability_tier = ? WHERE id IN (?) AND NOT reliability_tier_manual`, tier, chunk)
			if err != nil {
				return changed, err
			}
			if _, err := s.db.ExecContext(ctx, s.q(q), args...); err != nil {
				return changed, fmt.Errorf("set reliability tier %d on %d sources: %w", tier, len(chunk), err)
			}
			changed += len(chunk)
		}
	}
	return changed, nil
}

// rankExpr is rank = relevance × reliability × freshness as SQL, for the
// article alias a (relevance, reported_at), its source s (tier, decay
// class; NULL once deleted: the general web and the workspace's class)
// and its workspace w, seen at the time in the first parameter. The
// scores and rates come from package rank, so SQL and Go rank alike.
func (s *Store) rankExpr() string {
	var tier strings.Builder
	tier.WriteString("CASE s.reliability_tier")
	for t := model.TierOfficial; t <= model.TierGeneral; t++ {
		fmt.Fprintf(&tier, " WHEN %d THEN %s", t, strconv.FormatFloat(t.Score(), 'g', -1, 64))
	}
	tier.WriteString(" ELSE " + strconv.FormatFloat(model.TierGeneral.Score(), 'g', -1, 64) + " END")
	rate := "CASE COALESCE(s.decay_class, w.decay_class)"
	for _, c := range []model.DecayClass{model.DecayFast, model.DecayModerate, model.DecayStable} {
		rate += " WHEN '" + string(c) + "' THEN " + strconv.FormatFloat(c.Rate(), 'g', -1, 64)
	}
	rate += " ELSE " + strconv.FormatFloat(model.DefaultDecayClass.Rate(), 'g', -1, 64) + " END"
	days := s.d.daysBetween("COALESCE(a.reported_at, a.created_at)", "?")
	g, l := s.d.greatest, s.d.least
	relevance := l(g("a.relevance_score", "0"), "1")
	freshness := g("0", "1 - "+g("0", days)+" / 365.0 * ("+rate+")")
	return relevance + " * (" + tier.String() + ") * " + freshness
}

// rankedArticle is an article row with its rank.
type rankedArticle struct {
	articleRow
	Rank float64 `db:"rank"`
}

// ListArticlesByRank is ListArticles ordered by rank at at, best first;
// f.Cursor is the number of articles of the earlier pages.
func (s *Store) ListArticlesByRank(ctx context.Context, workspaceID int64, f model.ListFilter, at time.Time) ([]model.FeedArticle, []float64, error) {
	where, args, err := filterWhere(withoutCursor(f), workspaceID, "a", "a", "created_at", s.d)
	if err != nil {
		return nil, nil, err
	}
	q := `SELECT ` + articleColumns + `, a.matched_terms, ` + s.rankExpr() + ` AS rank
		FROM feed_articles a LEFT JOIN feed_sources s ON s.id = a.feed_source_id JOIN workspaces w ON w.id = a.workspace_id
		WHERE ` + where + fmt.Sprintf(` ORDER BY rank DESC, a.id DESC LIMIT %d OFFSET %d`, f.PageSize(), f.Cursor)
	var rows []rankedArticle
	if err := s.listing(ctx, f, func(ctx context.Context) error {
		return s.db.SelectContext(ctx, &rows, s.q(q), append([]any{at.UTC()}, args...)...)
	}); err != nil {
		return nil, nil, fmt.Errorf("list articles of workspace %d by rank: %w", workspaceID, err)
	}
	out := make([]model.FeedArticle, len(rows))
	ranks := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = r.FeedArticle
		out[i].MatchedTerms = decodeTerms(r.Terms)
		ranks[i] = r.Rank
	}
	return out, ranks, nil
}

// ListContentItemsByRank is ListContentItems ordered by rank at at, best
// first; f.Cursor is the number of items of the earlier pages.
func (s *Store) ListContentItemsByRank(ctx context.Context, workspaceID int64, f model.ListFilter, at time.Time) ([]model.RankedContentItem, error) {
	where, args, err := filterWhere(withoutCursor(f), workspaceID, "c", "a", "promoted_at", s.d)
	if err != nil {
		return nil, err
	}
	q := strings.Replace(itemSelect, "SELECT ", "SELECT "+s.rankExpr()+" AS rank, ", 1) +
		` JOIN workspaces w ON w.id = c.workspace_id WHERE ` + where +
		fmt.Sprintf(` ORDER BY rank DESC, c.id DESC LIMIT %d OFFSET %d`, f.PageSize(), f.Cursor)
	var rows []model.RankedContentItem
	if err := s.listing(ctx, f, func(ctx context.Context) error {
		return s.db.SelectContext(ctx, &rows, s.q(q), append([]any{at.UTC()}, args...)...)
	}); err != nil {
		return nil, fmt.Errorf("list content items of workspace %d by rank: %w", workspaceID, err)
	}
	for i := range rows {
		rows[i].MatchedTerms = decodeTerms(rows[i].Terms)
	}
	return rows, nil
}

// withoutCursor is f with its cursor taken out of the WHERE clause: rank
// listings page by offset.
func withoutCursor(f model.ListFilter) model.ListFilter {
	f.Cursor = 0
	return f
}
