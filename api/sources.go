package api

import (
	"net/http"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// sourceView is a source with its poll state spelled out.
type sourceView struct {
	model.FeedSource
	// Due says whether the scheduler would take the source now.
	Due bool `json:"due"`
	// RecentPolls is filled only when one source is read.
	RecentPolls []model.PollRun `json:"recent_polls,omitempty"`
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

func viewSource(src model.FeedSource, now time.Time) sourceView {
	return sourceView{
		FeedSource: src,
		Due:        src.IsActive && src.ConsecutiveFailures < model.MaxConsecutiveFailures && !src.NextPollAt.After(now),
	}
}

func viewCreated(c *service.CreatedSource) createdSource {
	out := createdSource{sourceView: viewSource(c.Source, time.Now()), Hint: c.Hint}
	if c.Validated {
		switch c.Source.SourceType {
		case model.SourceRSS:
			out.FeedTitle, out.InitialArticleCount = &c.FeedTitle, &c.ItemCount
		case model.SourceWeb:
			out.PageTitle, out.FeedLinks = &c.PageTitle, &c.FeedLinks
		}
	}
	return out
}

// workspaceID resolves {id} to a workspace the caller may act in, without
// reading it: a workspace token asking for another workspace gets the same
// 404 as for an id that does not exist.
func workspaceID(r *http.Request) (int64, error) {
	id, ok := pathID(r, "id")
	if !ok || !principalFrom(r.Context()).May(id) {
		return 0, notFound("workspace")
	}
	return id, nil
}

// source resolves {id} and {sourceId} to a source the caller may see.
func (s *Server) source(r *http.Request) (*model.FeedSource, error) {
	wsID, err := workspaceID(r)
	if err != nil {
		return nil, err
	}
	id, _ := pathID(r, "sourceId")
	return s.svc.GetSource(r.Context(), wsID, id)
}

func (s *Server) createSource(w http.ResponseWriter, r *http.Request) error {
	// The path is resolved before the body is read: a request for a
	// missing workspace is a 404 whatever its body.
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	var spec service.SourceSpec
	if err := decodeBody(w, r, &spec); err != nil {
		return err
	}
	created, err := s.svc.CreateSource(r.Context(), ws.ID, spec)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, viewCreated(created))
	return nil
}

func (s *Server) listSources(w http.ResponseWriter, r *http.Request) error {
	wsID, err := workspaceID(r)
	if err != nil {
		return err
	}
	srcs, err := s.svc.ListSources(r.Context(), wsID)
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

// recentPolls is how many poll runs a single-source read shows.
const recentPolls = 10

func (s *Server) getSource(w http.ResponseWriter, r *http.Request) error {
	src, err := s.source(r)
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
	// Resolved first, as for create: a missing source is a 404 whatever
	// the body.
	src, err := s.source(r)
	if err != nil {
		return err
	}
	var ch service.SourceChange
	if err := decodeBody(w, r, &ch); err != nil {
		return err
	}
	updated, err := s.svc.UpdateSource(r.Context(), src.WorkspaceID, src.ID, ch)
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
	wsID, err := workspaceID(r)
	if err != nil {
		return err
	}
	id, _ := pathID(r, "sourceId")
	if err := s.svc.DeleteSource(r.Context(), wsID, id); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, deletedSource{
		Deleted: true, ID: id, Articles: "kept", ContentItems: "kept",
		Note: "the source and its poll history are deleted; its articles and content items are kept with feed_source_id null",
	})
	return nil
}
