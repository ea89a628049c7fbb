package api

import (
	"net/http"
	"strconv"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// createdWebhook is the 201 answer: the webhook, and its secret when it
// was generated (the only time it is shown).
type createdWebhook struct {
	model.Webhook
	Secret string `json:"secret,omitempty"`
	Note   string `json:"note,omitempty"`
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) error {
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	var spec service.WebhookSpec
	if err := decodeBody(w, r, &spec); err != nil {
		return err
	}
	c, err := s.svc.CreateWebhook(r.Context(), ws.ID, spec)
	if err != nil {
		return err
	}
	out := createdWebhook{Webhook: c.Webhook}
	if c.Secret != "" {
		out.Secret = c.Secret
		out.Note = "store this secret now: it signs every delivery and is never shown again"
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	wsID, err := workspaceID(r)
	if err != nil {
		return err
	}
	hooks, err := s.svc.ListWebhooks(r.Context(), wsID)
	if err != nil {
		return err
	}
	if hooks == nil {
		hooks = []model.Webhook{}
	}
	writeJSON(w, http.StatusOK, listBody[model.Webhook]{Items: hooks})
	return nil
}

// webhookChange is PATCH's body: enabling again after a 410, or turning
// the webhook off.
type webhookChange struct {
	IsActive *bool `json:"is_active"`
}

func (s *Server) patchWebhook(w http.ResponseWriter, r *http.Request) error {
	// Resolved before the body is read: a missing workspace is a 404
	// whatever the body.
	ws, err := s.workspace(r)
	if err != nil {
		return err
	}
	id, ok := pathID(r, "webhookId")
	if !ok {
		return notFound("webhook")
	}
	var ch webhookChange
	if err := decodeBody(w, r, &ch); err != nil {
		return err
	}
	if ch.IsActive == nil {
		return fieldError("is_active", "is required")
	}
	hook, err := s.svc.SetWebhookActive(r.Context(), ws.ID, id, *ch.IsActive)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, hook)
	return nil
}

type deletedWebhook struct {
	Deleted bool  `json:"deleted"`
	ID      int64 `json:"id"`
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	wsID, id, err := webhookPath(r)
	if err != nil {
		return err
	}
	if err := s.svc.DeleteWebhook(r.Context(), wsID, id); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, deletedWebhook{Deleted: true, ID: id})
	return nil
}

var deliveryParams = map[string]bool{"status": true, "limit": true, "cursor": true}

// listDeliveries answers a page of a webhook's delivery log, newest
// first; next_cursor is the last id of a full page.
func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request) error {
	wsID, id, err := webhookPath(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	for k := range q {
		if !deliveryParams[k] {
			return fieldError(k, "is not a known query parameter (known: status, limit, cursor)")
		}
	}
	f := model.DeliveryFilter{Status: q.Get("status"), Before: q.Get("cursor"), Limit: model.DefaultPageSize}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > service.MaxDeliveryPage {
			return fieldError("limit", "must be a whole number from 1 to "+strconv.Itoa(service.MaxDeliveryPage))
		}
		f.Limit = n
	}
	items, err := s.svc.ListDeliveries(r.Context(), wsID, id, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, newPage(items, f.Limit, func() string { return items[len(items)-1].ID }))
	return nil
}

// webhookPath reads the workspace and webhook ids of a …/webhooks/{webhookId}
// path; an id that is not one is a webhook not found.
func webhookPath(r *http.Request) (wsID, id int64, err error) {
	if wsID, err = workspaceID(r); err != nil {
		return 0, 0, err
	}
	id, ok := pathID(r, "webhookId")
	if !ok {
		return 0, 0, notFound("webhook")
	}
	return wsID, id, nil
}
