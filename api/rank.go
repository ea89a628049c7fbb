package api

import (
	"context"
	"net/url"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// rankSort reads the listings' sort parameter: recent (the default:
// newest first, paged by id) or rank (relevance × reliability ×
// freshness, best first, paged by position).
func rankSort(q url.Values) (bool, error) {
	switch q.Get("sort") {
	case "", "recent":
		return false, nil
	case "rank":
		return true, nil
	}
	return false, service.Invalid("invalid query parameters", map[string]string{"sort": "must be recent or rank"})
}

// rankedArticle is an article with its rank.
type rankedArticle struct {
	model.FeedArticle
	Rank float64 `json:"rank"`
}

func (s *Server) rankedArticles(ctx context.Context, workspaceID int64, f model.ListFilter, at time.Time) ([]rankedArticle, error) {
	arts, ranks, err := s.store.ListArticlesByRank(ctx, workspaceID, f, at)
	if err != nil {
		return nil, err
	}
	out := make([]rankedArticle, len(arts))
	for i := range arts {
		out[i] = rankedArticle{FeedArticle: arts[i], Rank: ranks[i]}
	}
	return out, nil
}

// rankedContentItem is a content item as the API shows it, with its rank.
type rankedContentItem struct {
	contentItemView
	Rank float64 `json:"rank"`
}

func (s *Server) rankedContentItems(ctx context.Context, workspaceID int64, f model.ListFilter, at time.Time) ([]rankedContentItem, error) {
	items, err := s.store.ListContentItemsByRank(ctx, workspaceID, f, at)
	if err != nil {
		return nil, err
	}
	out := make([]rankedContentItem, len(items))
	for i, it := range items {
		out[i] = rankedContentItem{contentItemView: viewContentItem(it.ContentItemView), Rank: it.Rank}
	}
	return out, nil
}
