package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/feedpoller/feedpoller/poller/urlnorm"
	"github.com/feedpoller/feedpoller/store"
)

type sourceCreateRequest struct {
	URL                    string  `json:"url"`
	SourceType             string  `json:"source_type" validate:"omitempty,oneof=rss web api"`
	Title                  *string `json:"title" validate:"omitnil,max=500"`
	PollingIntervalMinutes *int    `json:"polling_interval_minutes" validate:"omitnil,min=1,max=43200"`
	IsActive               *bool   `json:"is_active"`
	TrackChanges           *bool   `json:"track_changes"`
}

// sourcePatchRequest: a field left out (or null) is left unchanged.
type sourcePatchRequest struct {
	Title                  *string `json:"title" validate:"omitnil,max=500"`
	IsActive               *bool   `json:"is_active"`
	PollingIntervalMinutes *int    `json:"polling_interval_minutes" validate:"omitnil,min=1,max=43200"`
	TrackChanges           *bool   `json:"track_changes"`
}

// sourceView is a source with its poll state spelled out.
type sourceView struct {
	store.FeedSource
	// Due says whether the scheduler would take the source now.
	Due bool `json:"due"`
	// RecentPolls is filled only when one source is read.
	RecentPolls []store.PollRun `json:"recent_polls,omitempty"`
}

// createdSource is the 201 answer: the source plus what validation found.
type createdSource struct {
	sourceView
	FeedTitle           *string   `json:"feed_title,omitempty"`
	InitialArticleCount *int      `json:"initial_article_count,omitempty"`
	PageTitle           *string   `json:"page_title,omitempty"`
	FeedLinks           *[]string `json:"feed_links,omitempty"`
	Hint                string    `json:"hint,omitempty"`
}

func viewSource(src store.FeedSource, now time.Time) sourceView {
	return sourceView{
		FeedSource: src,
		Due:        src.IsActive && src.ConsecutiveFailures < store.MaxConsecutiveFailures && !src.NextPollAt.After(now),
	}
}

// validateTimeout bounds the fetch that validates a new source, whatever
// the fetcher's own limits.
const validateTimeout = 60 * time.Second

func (s *Server) createSource(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	var req sourceCreateRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	if req.Title != nil {
		t := strings.TrimSpace(*req.Title)
		req.Title = &t
	}
	extra := map[string]string{}
	if msg := checkURL(req.URL); msg != "" {
		extra["url"] = msg
	}
	key := ""
	if _, bad := extra["url"]; !bad {
		var err error
		if key, err = urlnorm.SourceKey(req.URL); err != nil {
			extra["url"] = "is not a usable URL: " + err.Error()
		}
	}
	if err := s.check(&req, extra); err != nil {
		return err
	}
	// Before the validation fetch: a duplicate costs the site no request.
	if err := s.sameSource(r.Context(), ws.ID, key); err != nil {
		return err
	}
	src := store.FeedSource{
		WorkspaceID:            ws.ID,
		URL:                    key,
		SourceType:             req.SourceType,
		IsActive:               req.IsActive == nil || *req.IsActive,
		TrackChanges:           req.TrackChanges != nil && *req.TrackChanges,
		PollingIntervalMinutes: s.rssMin,
	}
	if src.SourceType == "" {
		src.SourceType = store.SourceRSS
	}
	if src.SourceType == store.SourceWeb {
		src.PollingIntervalMinutes = s.webMin
	}
	if req.PollingIntervalMinutes != nil {
		src.PollingIntervalMinutes = *req.PollingIntervalMinutes
	}
	if req.Title != nil {
		src.Title = *req.Title
	}

	out := createdSource{}
	switch src.SourceType {
	case store.SourceRSS, store.SourceWeb:
		if s.sources == nil {
			return newError(http.StatusServiceUnavailable, "%s sources cannot be validated: this process runs without a source validator", src.SourceType)
		}
		if err := s.validateSource(r.Context(), &src, &out); err != nil {
			return err
		}
	}
	if err := s.store.CreateSource(r.Context(), &src); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return duplicateSource(src.URL, 0)
		}
		return err
	}
	out.sourceView = viewSource(src, time.Now())
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// sameSource answers 409 when the workspace already has a source whose URL
// is key written another way (see urlnorm.SourceKey): new sources are
// stored under their key, and sources stored before that are found by
// host and compared by key.
func (s *Server) sameSource(ctx context.Context, workspaceID int64, key string) error {
	u, err := url.Parse(key)
	if err != nil {
		return fmt.Errorf("parse source key %s: %w", key, err)
	}
	hosts := []string{u.Hostname()}
	if uni, err := idna.ToUnicode(u.Hostname()); err == nil && uni != u.Hostname() {
		hosts = append(hosts, uni)
	}
	cands, err := s.store.SourcesMentioning(ctx, workspaceID, hosts...)
	if err != nil {
		return err
	}
	for _, c := range cands {
		if k, err := urlnorm.SourceKey(c.URL); err == nil && k == key {
			return duplicateSource(c.URL, c.ID)
		}
	}
	return nil
}

func duplicateSource(stored string, id int64) *apiError {
	msg := "this workspace already has a source with url " + stored
	if id != 0 {
		msg = fmt.Sprintf("this workspace already has this feed as source %d (url %s)", id, stored)
	}
	return &apiError{Status: http.StatusConflict, Message: msg,
		Fields: map[string]string{"url": "is already a source of this workspace"}}
}

// validateSource fetches the new source's URL through the validator and
// fills the title default and the answer's extra fields. A failure is a
// 400 naming the url.
func (s *Server) validateSource(ctx context.Context, src *store.FeedSource, out *createdSource) error {
	ctx, cancel := context.WithTimeout(ctx, validateTimeout)
	defer cancel()
	var title string
	if src.SourceType == store.SourceRSS {
		t, n, err := s.sources.ValidateFeed(ctx, src.URL)
		if err != nil {
			return badRequest("feed validation failed: "+err.Error(), map[string]string{"url": "is not a readable feed: " + err.Error()})
		}
		title = t
		out.FeedTitle, out.InitialArticleCount = &t, &n
	} else {
		t, links, err := s.sources.ValidatePage(ctx, src.URL)
		if err != nil {
			return badRequest("page validation failed: "+err.Error(), map[string]string{"url": "is not a readable HTML page: " + err.Error()})
		}
		if links == nil {
			links = []string{}
		}
		title = t
		out.PageTitle, out.FeedLinks = &t, &links
		if len(links) > 0 {
			out.Hint = fmt.Sprintf("this page advertises %d feed(s); adding %s as an rss source gives per-entry articles instead of one per page change", len(links), links[0])
		}
	}
	if src.Title == "" {
		src.Title = truncateRunes(strings.TrimSpace(strings.ReplaceAll(strings.ToValidUTF8(title, ""), "\x00", "")), 500)
	}
	return nil
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

func (s *Server) listSources(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	srcs, err := s.store.ListSources(r.Context(), ws.ID)
	if err != nil {
		return err
	}
	now := time.Now()
	out := make([]sourceView, 0, len(srcs))
	for _, src := range srcs {
		out = append(out, viewSource(src, now))
	}
	writeJSON(w, http.StatusOK, listBody[sourceView]{Items: out})
	return nil
}

// source resolves {id} and {sourceId} to a source the caller may see.
func (s *Server) source(r *http.Request) (*store.Workspace, *store.FeedSource, error) {
	ws, err := s.workspace(r)
	if err != nil {
		return nil, nil, err
	}
	id, ok := pathID(r, "sourceId")
	if !ok {
		return nil, nil, notFound("source")
	}
	src, err := s.store.GetSource(r.Context(), ws.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, notFound("source")
	}
	return ws, src, err
}

// recentPolls is how many poll runs a single-source read shows.
const recentPolls = 10

func (s *Server) getSource(w http.ResponseWriter, r *http.Request) error {
	_, src, err := s.source(r)
	if err != nil {
		return err
	}
	runs, err := s.store.ListPollRuns(r.Context(), src.ID, recentPolls)
	if err != nil {
		return err
	}
	v := viewSource(*src, time.Now())
	v.RecentPolls = runs
	writeJSON(w, http.StatusOK, v)
	return nil
}

func (s *Server) patchSource(w http.ResponseWriter, r *http.Request) error {
	ws, src, err := s.source(r)
	if err != nil {
		return err
	}
	var req sourcePatchRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	if req.Title == nil && req.IsActive == nil && req.PollingIntervalMinutes == nil && req.TrackChanges == nil {
		return badRequest("nothing to change: send one or more of title, is_active, polling_interval_minutes, track_changes", nil)
	}
	if req.Title != nil {
		t := strings.TrimSpace(*req.Title)
		req.Title = &t
	}
	if err := s.check(&req, nil); err != nil {
		return err
	}
	updated, err := s.store.UpdateSource(r.Context(), ws.ID, src.ID, store.SourcePatch{
		Title:                  req.Title,
		IsActive:               req.IsActive,
		PollingIntervalMinutes: req.PollingIntervalMinutes,
		TrackChanges:           req.TrackChanges,
	})
	if errors.Is(err, store.ErrNotFound) {
		return notFound("source")
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, viewSource(*updated, time.Now()))
	return nil
}

// deletedSource answers DELETE: the source and its poll history are gone;
// its articles and content items stay, detached (feed_source_id null).
type deletedSource struct {
	Deleted      bool   `json:"deleted"`
	ID           int64  `json:"id"`
	Articles     string `json:"articles"`
	ContentItems string `json:"content_items"`
	Note         string `json:"note"`
}

func (s *Server) deleteSource(w http.ResponseWriter, r *http.Request) error {
	ws, src, err := s.source(r)
	if err != nil {
		return err
	}
	if err := s.store.DeleteSource(r.Context(), ws.ID, src.ID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return notFound("source")
		}
		return err
	}
	writeJSON(w, http.StatusOK, deletedSource{
		Deleted: true, ID: src.ID, Articles: "kept", ContentItems: "kept",
		Note: "the source and its poll history are deleted; its articles and content items are kept with feed_source_id null",
	})
	return nil
}
