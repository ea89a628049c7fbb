package mcp

import (
	"context"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/store/textquery"
)

// SearchInput are the search tool's arguments.
type SearchInput struct {
	Query        string   `json:"query" jsonschema:"what to look for: words (all must match), \"a phrase\", prefix* (2 letters at least), -excluded, a OR b"`
	WorkspaceID  int64    `json:"workspace_id,omitempty" jsonschema:"the workspace to search; a workspace token's own by default"`
	Since        string   `json:"since,omitempty" jsonschema:"only articles published (or stored) at or after this RFC 3339 time or date"`
	Until        string   `json:"until,omitempty" jsonschema:"only articles published (or stored) before this RFC 3339 time, or up to the end of this date"`
	SourceID     int64    `json:"source_id,omitempty" jsonschema:"only articles of this source (see list_sources)"`
	MinRelevance *float64 `json:"min_relevance,omitempty" jsonschema:"only articles whose relevance score for the workspace is at least this (0 to 1)"`
	Limit        int      `json:"limit,omitempty" jsonschema:"results at most (1 to 50, default 10)"`
}

// SearchResult is one article found.
type SearchResult struct {
	ID          int64      `json:"id" jsonschema:"the article id, for get_article"`
	Title       string     `json:"title"`
	URL         string     `json:"url"`
	SourceID    *int64     `json:"source_id,omitempty" jsonschema:"left out once the source is deleted"`
	Source      string     `json:"source" jsonschema:"the source's title, or its URL"`
	PublishedAt *time.Time `json:"published_at,omitempty" jsonschema:"left out when unknown"`
	Relevance   float64    `json:"relevance" jsonschema:"the article's relevance score for the workspace, 0 to 1"`
	Score       float64    `json:"score" jsonschema:"how well it matches the query; compare within one answer only"`
	Snippet     string     `json:"snippet" jsonschema:"a passage around the match, matched words between ** and **"`
	Summary     string     `json:"summary"`
	// ContentItem is the resource URI of the content item the article
	// was promoted to, or "".
	ContentItem string `json:"content_item,omitempty" jsonschema:"the feedpoller:// resource of the content item, when the article was promoted"`
}

// SearchOutput is the search tool's answer.
type SearchOutput struct {
	WorkspaceID int64          `json:"workspace_id"`
	Query       string         `json:"query"`
	Results     []SearchResult `json:"results"`
}

// summaryChars bounds the summary shown with each result; get_article
// has the whole of it.
const summaryChars = 600

func (h *handlers) search(ctx context.Context, req *sdk.CallToolRequest, in SearchInput) (SearchOutput, error) {
	if _, err := textquery.Parse(in.Query); err != nil {
		return SearchOutput{}, userErrorf("invalid query: %v", err)
	}
	f := model.SearchFilter{Query: in.Query, SourceID: in.SourceID, MinRelevance: in.MinRelevance, Limit: in.Limit}
	var err error
	if f.Since, err = parseTime(in.Since, "since", false); err != nil {
		return SearchOutput{}, err
	}
	if f.Until, err = parseTime(in.Until, "until", true); err != nil {
		return SearchOutput{}, err
	}
	if f.Since != nil && f.Until != nil && !f.Since.Before(*f.Until) {
		return SearchOutput{}, userErrorf("until must be later than since")
	}
	_, ws, err := h.workspace(ctx, req, in.WorkspaceID)
	if err != nil {
		return SearchOutput{}, err
	}
	hits, err := h.store.Search(ctx, ws, f)
	if err != nil {
		return SearchOutput{}, err
	}
	out := SearchOutput{WorkspaceID: ws, Query: in.Query, Results: make([]SearchResult, len(hits))}
	for i, hit := range hits {
		r := SearchResult{ID: hit.ID, Title: hit.Title, URL: hit.URL, SourceID: hit.SourceID, PublishedAt: hit.PublishedAt,
			Relevance: hit.Relevance, Score: hit.Score, Snippet: hit.Snippet, Summary: cutChars(hit.Summary, summaryChars)}
		switch {
		case hit.SourceTitle != nil && *hit.SourceTitle != "":
			r.Source = *hit.SourceTitle
		case hit.SourceURL != nil:
			r.Source = *hit.SourceURL
		}
		if hit.ContentItemID != nil {
			r.ContentItem = itemURI(ws, *hit.ContentItemID)
		}
		out.Results[i] = r
	}
	return out, nil
}

// parseTime reads an RFC 3339 time or a date; a date as until means the
// end of that day, as in the REST listings.
func parseTime(v, name string, endOfDay bool) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return &t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		if endOfDay {
			t = t.AddDate(0, 0, 1)
		}
		return &t, nil
	}
	return nil, userErrorf("%s must be an RFC 3339 time (2024-05-31T12:00:00Z) or a date (2024-05-31), not %q", name, v)
}

// cutChars shortens s to at most n characters at a word boundary, marked
// with an ellipsis.
func cutChars(s string, n int) string {
	s = strings.TrimSpace(s)
	end, chars := len(s), 0
	for i := range s {
		if chars == n {
			end = i
			break
		}
		chars++
	}
	if end == len(s) {
		return s
	}
	cut := s[:end]
	if i := strings.LastIndexAny(cut, " \n"); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimSpace(cut) + " …"
}
