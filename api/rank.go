package api

import (
	"net/http"
	"net/url"
	"strconv"
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

// rankPage is a page of a rank listing: its next cursor is the position
// of the next page's first item.
func rankPage[T any](items []T, f model.ListFilter) page[T] {
	p := page[T]{Items: items}
	if p.Items == nil {
		p.Items = []T{}
	}
	if len(items) > 0 && len(items) >= f.Limit {
		c := strconv.FormatInt(f.Cursor+int64(len(items)), 10)
		p.NextCursor = &c
	}
	return p
}

// rankedArticle is an article with its rank.
type rankedArticle struct {
	model.FeedArticle
	Rank float64 `json:"rank"`
}

func (s *Server) listArticlesByRank(w http.ResponseWriter, r *http.Request, wsID int64, f model.ListFilter) error {
	arts, ranks, err := s.store.ListArticlesByRank(r.Context(), wsID, f, time.Now())
	if err != nil {
		return err
	}
	out := make([]rankedArticle, len(arts))
	for i := range arts {
		out[i] = rankedArticle{FeedArticle: arts[i], Rank: ranks[i]}
	}
	writeJSON(w, http.StatusOK, rankPage(out, f))
	return nil
}

// rankedContentItem is a content item as the API shows it, with its rank.
type rankedContentItem struct {
	contentItemView
	Rank float64 `json:"rank"`
}

func (s *Server) listContentItemsByRank(w http.ResponseWriter, r *http.Request, wsID int64, f model.ListFilter) error {
	items, err := s.store.ListContentItemsByRank(r.Context(), wsID, f, time.Now())
	if err != nil {
		return err
	}
	out := make([]rankedContentItem, len(items))
	for i, it := range items {
		out[i] = rankedContentItem{contentItemView: viewContentItem(it.ContentItemView), Rank: it.Rank}
	}
	writeJSON(w, http.StatusOK, rankPage(out, f))
	return nil
}
