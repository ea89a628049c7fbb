package stories

import (
	"context"
	"fmt"
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Placer places one save's new articles in stories with this package's
// algorithm; it is the save's model.StoryPlacer. Prepare decides before
// the save from a lookup outside its transaction; the save then calls
// PlaceStories inside its transaction, where the decision is taken again,
// with a fresh lookup, only when another save of the workspace placed
// articles since Prepare's lookup. So a workspace's saves hold its story
// lock for the length of a lookup only when they raced.
type Placer struct {
	opts  Options
	items []Item
	// decided is Prepare's decision, taken at story generation seen.
	decided []Assignment
	seen    int64
}

// Facts is what a save stores of an article's story: when it counts as
// reported, its signature in stored form, and its band keys.
func Facts(sig Signature, reportedAt time.Time) (*model.StoryFacts, error) {
	f := &model.StoryFacts{ReportedAt: reportedAt, Keys: sig.Keys()}
	if sig.Empty() {
		return f, nil
	}
	b, err := sig.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode story signature: %w", err)
	}
	f.Signature = b
	return f, nil
}

// Prepare decides the stories of items (a save's new articles, in save
// order) from one candidate lookup through view, and returns the Placer
// the save hands that decision to.
func Prepare(ctx context.Context, view model.StoryView, workspaceID int64, items []Item, opts Options) (*Placer, error) {
	o, err := opts.checked()
	if err != nil {
		return nil, err
	}
	p := &Placer{opts: o, items: items}
	p.decided, p.seen, err = p.decide(ctx, view, workspaceID)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// PlaceStories implements model.StoryPlacer: Prepare's decision when the
// save's generation follows the one Prepare saw, else a new decision from
// a lookup through view (inside the save's transaction).
func (p *Placer) PlaceStories(ctx context.Context, view model.StoryView, req model.StoryRequest) (model.StoryPlacement, error) {
	if len(req.Facts) != len(p.items) {
		return model.StoryPlacement{}, fmt.Errorf("place stories: %d articles to save, %d decided", len(req.Facts), len(p.items))
	}
	if req.Generation == p.seen+1 {
		return model.StoryPlacement{Articles: p.Choices()}, nil
	}
	assign, _, err := p.decide(ctx, view, req.WorkspaceID)
	if err != nil {
		return model.StoryPlacement{}, err
	}
	out := model.StoryPlacement{Articles: make([]model.StoryChoice, len(assign))}
	for i, a := range assign {
		out.Articles[i] = choice(a)
	}
	return out, nil
}

// Choices is Prepare's decision, one choice per item, as the save would
// store it unless another save came in between.
func (p *Placer) Choices() []model.StoryChoice {
	out := make([]model.StoryChoice, len(p.decided))
	for i, a := range p.decided {
		out[i] = choice(a)
	}
	return out
}

// decide looks the candidates of p's items up through view and decides.
func (p *Placer) decide(ctx context.Context, view model.StoryView, workspaceID int64) ([]Assignment, int64, error) {
	if len(p.items) == 0 {
		return nil, 0, nil
	}
	var keys []int64
	since := p.items[0].At
	for _, it := range p.items {
		keys = append(keys, it.Signature.Keys()...)
		if it.At.Before(since) {
			since = it.At
		}
	}
	found, err := view.StoryCandidates(ctx, model.StoryQuery{WorkspaceID: workspaceID, Keys: keys,
		Since: since.Add(-p.opts.Window), PerKey: PerKeyLimit})
	if err != nil {
		return nil, 0, err
	}
	cands := make([]Candidate, 0, len(found.Candidates))
	for _, c := range found.Candidates {
		sig := new(Signature)
		if err := sig.UnmarshalBinary(c.Signature); err != nil {
			continue // another version's signature: that article stays a story of its own
		}
		cands = append(cands, Candidate{ArticleID: c.ArticleID, StoryID: c.StoryID, At: c.ReportedAt, Signature: sig})
	}
	assign, err := DecideReported(p.items, cands, p.opts)
	if err != nil {
		return nil, 0, fmt.Errorf("decide stories of workspace %d: %w", workspaceID, err)
	}
	return assign, found.Generation, nil
}

// choice is an assignment as the save stores it, with its reason.
func choice(a Assignment) model.StoryChoice {
	c := model.StoryChoice{StoryID: a.StoryID, JoinsArticle: a.JoinsItem}
	switch {
	case a.StoryID > 0 && a.MatchedArticleID > 0:
		c.Reason = fmt.Sprintf("similar to article %d (score %.2f)", a.MatchedArticleID, a.Similarity.Score())
	case a.StoryID > 0:
		c.Reason = fmt.Sprintf("similar to an article of story %d (score %.2f)", a.StoryID, a.Similarity.Score())
	case a.JoinsItem >= 0:
		c.Reason = fmt.Sprintf("similar to an earlier article of the same poll (score %.2f)", a.Similarity.Score())
	}
	return c
}
