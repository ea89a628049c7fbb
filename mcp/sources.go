package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// WorkspaceInput names the workspace of a tool that needs nothing else.
type WorkspaceInput struct {
	WorkspaceID int64 `json:"workspace_id,omitempty" jsonschema:"the workspace; a workspace token's own by default"`
}

// SourceHealth is a source as list_sources shows it.
type SourceHealth struct {
	ID                  int64      `json:"id"`
	URL                 string     `json:"url"`
	Title               string     `json:"title"`
	SourceType          string     `json:"source_type"`
	IsActive            bool       `json:"is_active"`
	IntervalMinutes     int        `json:"polling_interval_minutes"`
	Status              string     `json:"status" jsonschema:"the last poll's outcome (ok, not_modified, error, …); empty before the first poll"`
	LastError           string     `json:"last_error"`
	ConsecutiveFailures int        `json:"consecutive_failures" jsonschema:"failed polls in a row; at 10 the source is no longer polled until re-activated"`
	LastPolledAt        *time.Time `json:"last_polled_at,omitempty" jsonschema:"left out before the first poll"`
	NextPollAt          time.Time  `json:"next_poll_at"`
	NextPollReason      string     `json:"next_poll_reason" jsonschema:"why the next poll is then: the scheduler's rule and what it read (publishing rate, the feed's ttl, backoff after failures, …)"`
	Schedule            string     `json:"schedule" jsonschema:"adaptive (the interval is learnt from what polls find) or fixed"`
}

// SourcesOutput is list_sources' answer.
type SourcesOutput struct {
	WorkspaceID int64          `json:"workspace_id"`
	Sources     []SourceHealth `json:"sources"`
}

func health(src model.FeedSource) SourceHealth {
	return SourceHealth{ID: src.ID, URL: src.URL, Title: src.Title, SourceType: src.SourceType, IsActive: src.IsActive,
		IntervalMinutes: src.PollingIntervalMinutes, Status: src.LastPolledStatus, LastError: src.LastPolledError,
		ConsecutiveFailures: src.ConsecutiveFailures, LastPolledAt: src.LastPolledAt, NextPollAt: src.NextPollAt,
		NextPollReason: src.NextPollReason, Schedule: src.ScheduleMode}
}

func (h *handlers) listSources(ctx context.Context, req *sdk.CallToolRequest, in WorkspaceInput) (SourcesOutput, error) {
	_, ws, err := h.workspace(ctx, req, in.WorkspaceID)
	if err != nil {
		return SourcesOutput{}, err
	}
	srcs, err := h.svc.ListSources(ctx, ws)
	if err != nil {
		return SourcesOutput{}, err
	}
	out := SourcesOutput{WorkspaceID: ws, Sources: make([]SourceHealth, len(srcs))}
	for i, src := range srcs {
		out.Sources[i] = health(src)
	}
	return out, nil
}

// AddSourceInput are add_source's arguments: the API's source fields.
type AddSourceInput struct {
	WorkspaceID            int64   `json:"workspace_id,omitempty" jsonschema:"the workspace; a workspace token's own by default"`
	URL                    string  `json:"url" jsonschema:"the feed's or page's http(s) URL; it is fetched to validate it"`
	SourceType             string  `json:"source_type,omitempty" jsonschema:"rss (default: RSS, Atom or JSON Feed), web (a page) or api"`
	Title                  *string `json:"title,omitempty" jsonschema:"defaults to the feed's or page's own title"`
	PollingIntervalMinutes *int    `json:"polling_interval_minutes,omitempty" jsonschema:"minutes between polls, 1 to 43200; 30 for feeds and 360 for pages by default"`
}

// AddSourceOutput is add_source's answer.
type AddSourceOutput struct {
	Source    SourceHealth `json:"source"`
	FeedTitle string       `json:"feed_title,omitempty"`
	ItemCount int          `json:"item_count,omitempty" jsonschema:"the feed's items when it was validated"`
	FeedLinks []string     `json:"feed_links,omitempty" jsonschema:"feeds a web page advertises: following one of them is usually better"`
	Hint      string       `json:"hint,omitempty"`
}

func (h *handlers) addSource(ctx context.Context, req *sdk.CallToolRequest, in AddSourceInput) (AddSourceOutput, error) {
	c, ws, err := h.workspace(ctx, req, in.WorkspaceID)
	if err == nil {
		err = mayWrite(c, "add_source")
	}
	if err != nil {
		return AddSourceOutput{}, err
	}
	created, err := h.svc.CreateSource(ctx, ws, service.SourceSpec{URL: in.URL, SourceType: in.SourceType, Title: in.Title,
		PollingIntervalMinutes: in.PollingIntervalMinutes})
	if err != nil {
		return AddSourceOutput{}, err
	}
	return AddSourceOutput{Source: health(created.Source), FeedTitle: created.FeedTitle, ItemCount: created.ItemCount,
		FeedLinks: created.FeedLinks, Hint: created.Hint}, nil
}

// PollSourceInput are poll_source's arguments.
type PollSourceInput struct {
	WorkspaceID int64 `json:"workspace_id,omitempty" jsonschema:"the source's workspace; a workspace token's own by default"`
	SourceID    int64 `json:"source_id" jsonschema:"the source to poll now, whether or not it is due"`
}

func (h *handlers) pollSource(ctx context.Context, req *sdk.CallToolRequest, in PollSourceInput) (model.PollOutcome, error) {
	c, ws, err := h.workspace(ctx, req, in.WorkspaceID)
	if err == nil {
		err = mayWrite(c, "poll_source")
	}
	if err != nil {
		return model.PollOutcome{}, err
	}
	return h.svc.PollSource(ctx, ws, in.SourceID)
}
