package api

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// page is the shape of every paginated list: next_cursor is null on the
// last page (a page that comes back full may be followed by an empty one).
type page[T any] struct {
	Items      []T     `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// newPage is the page of items asked for with limit; a full page has a
// next cursor, which next tells.
func newPage[T any](items []T, limit int, next func() string) page[T] {
	p := page[T]{Items: items}
	if p.Items == nil {
		p.Items = []T{}
	}
	if len(items) > 0 && len(items) >= limit {
		c := next()
		p.NextCursor = &c
	}
	return p
}

// listing is one of a workspace's paginated lists, read by recency
// (newest first, the cursor is the last id of the page) or by rank (best
// first, the cursor is the position after the page), with the same query
// parameters.
type listing[T, R any] struct {
	recent func(ctx context.Context, workspaceID int64, f model.ListFilter) ([]T, error)
	id     func(T) int64
	ranked func(ctx context.Context, workspaceID int64, f model.ListFilter, at time.Time) ([]R, error)
}

func (l listing[T, R]) serve(s *Server, w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	f, err := parseListFilter(r.URL.Query())
	if err != nil {
		return err
	}
	byRank, err := rankSort(r.URL.Query())
	if err != nil {
		return err
	}
	if byRank {
		items, err := l.ranked(r.Context(), ws.ID, f, time.Now())
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, newPage(items, f.Limit, func() string { return strconv.FormatInt(f.Cursor+int64(len(items)), 10) }))
		return nil
	}
	items, err := l.recent(r.Context(), ws.ID, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPage(items, f.Limit, func() string { return strconv.FormatInt(l.id(items[len(items)-1]), 10) }))
	return nil
}

var listParams = map[string]bool{"cursor": true, "limit": true, "source_id": true, "since": true, "until": true, "min_score": true, "q": true, "sort": true}

// parseListFilter reads the listing query parameters; every bad one is
// named in the 400.
func parseListFilter(q url.Values) (model.ListFilter, error) {
	f := model.ListFilter{Limit: model.DefaultPageSize}
	fields := map[string]string{}
	for k := range q {
		if !listParams[k] {
			fields[k] = "is not a known query parameter (known: cursor, limit, source_id, since, until, min_score, q, sort)"
		}
	}
	positive := func(name string) int64 {
		v := q.Get(name)
		if v == "" {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			fields[name] = "must be a positive whole number"
			return 0
		}
		return n
	}
	f.Cursor = positive("cursor")
	if _, bad := fields["cursor"]; bad {
		fields["cursor"] = "must be a next_cursor value from a previous page"
	}
	f.SourceID = positive("source_id")
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > model.MaxPageSize {
			fields["limit"] = "must be a whole number from 1 to " + strconv.Itoa(model.MaxPageSize)
		} else {
			f.Limit = n
		}
	}
	f.Since = parseTime(q.Get("since"), false, "since", fields)
	f.Until = parseTime(q.Get("until"), true, "until", fields)
	if f.Since != nil && f.Until != nil && !f.Since.Before(*f.Until) {
		fields["until"] = "must be later than since"
	}
	if v := q.Get("min_score"); v != "" {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			fields["min_score"] = "must be a number"
		} else {
			f.MinScore = &x
		}
	}
	f.Query = strings.TrimSpace(q.Get("q"))
	if msg := service.CheckQuery(f.Query); msg != "" {
		fields["q"] = msg
	}
	if len(fields) > 0 {
		return f, service.Invalid("invalid query parameters", fields)
	}
	return f, nil
}

// parseTime accepts RFC 3339 or a date. A date means the start of that day
// (UTC) for since, and the end of it for until, so until=2024-05-31
// includes the 31st.
func parseTime(v string, endOfDay bool, name string, fields map[string]string) *time.Time {
	if v == "" {
		return nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return &t
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		if endOfDay {
			t = t.AddDate(0, 0, 1)
		}
		return &t
	}
	fields[name] = "must be an RFC 3339 time (2024-05-31T12:00:00Z) or a date (2024-05-31)"
	return nil
}

func (s *Server) listArticles(w http.ResponseWriter, r *http.Request) error {
	return listing[model.FeedArticle, rankedArticle]{recent: s.store.ListArticles,
		id: func(a model.FeedArticle) int64 { return a.ID }, ranked: s.rankedArticles}.serve(s, w, r)
}

// sourceRef names the source a content item came from.
type sourceRef struct {
	ID    int64  `json:"id"`
	URL   string `json:"url"`
	Title string `json:"title"`
}

// contentItemView is a content item as the API shows it: the Markdown, the
// score, the matched terms, and the source (null once the source is
// deleted).
type contentItemView struct {
	model.ContentItem
	WordCount    int        `json:"word_count"`
	QualityScore float64    `json:"quality_score"`
	Source       *sourceRef `json:"source"`
}

func viewContentItem(v model.ContentItemView) contentItemView {
	out := contentItemView{ContentItem: v.ContentItem, WordCount: v.WordCount, QualityScore: v.QualityScore}
	if out.MatchedTerms == nil {
		out.MatchedTerms = []string{}
	}
	if v.SourceID != nil {
		ref := sourceRef{ID: *v.SourceID}
		if v.SourceURL != nil {
			ref.URL = *v.SourceURL
		}
		if v.SourceTitle != nil {
			ref.Title = *v.SourceTitle
		}
		out.Source = &ref
	}
	return out
}

func (s *Server) listContentItems(w http.ResponseWriter, r *http.Request) error {
	return listing[contentItemView, rankedContentItem]{recent: s.contentItems,
		id: func(v contentItemView) int64 { return v.ID }, ranked: s.rankedContentItems}.serve(s, w, r)
}

// contentItems is a page of content items as the API shows them.
func (s *Server) contentItems(ctx context.Context, workspaceID int64, f model.ListFilter) ([]contentItemView, error) {
	items, err := s.store.ListContentItems(ctx, workspaceID, f)
	if err != nil {
		return nil, err
	}
	views := make([]contentItemView, len(items))
	for i, it := range items {
		views[i] = viewContentItem(it)
	}
	return views, nil
}

func (s *Server) getContentItem(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	id, ok := pathID(r, "itemId")
	if !ok {
		return notFound("content item")
	}
	item, err := s.store.GetContentItem(r.Context(), ws.ID, id)
	if errors.Is(err, model.ErrNotFound) {
		return notFound("content item")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewContentItem(*item))
	return nil
}
