package console

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/webhooks"
)

type webhooksData struct {
	Hooks   []model.Webhook
	URL     string
	Problem string
	Fields  map[string]string
	// Secret is a generated signing secret, shown once after creation.
	Secret string
	Events []string
}

func (c *Console) webhooksPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	return c.showWebhooks(w, r, rq, http.StatusOK, webhooksData{})
}

func (c *Console) showWebhooks(w http.ResponseWriter, r *http.Request, rq *request, status int, d webhooksData) error {
	hooks, err := c.svc.ListWebhooks(r.Context(), rq.ws.ID)
	if err != nil {
		return err
	}
	d.Hooks, d.Events = hooks, webhooks.Events
	c.renderView(w, r, status, "webhooks", view{Title: "Webhooks", Req: rq, Section: "webhooks", Data: d})
	return nil
}

// addWebhook creates a webhook with a generated secret, shown once on
// the answer (never kept for another page).
func (c *Console) addWebhook(w http.ResponseWriter, r *http.Request, rq *request) error {
	u := strings.TrimSpace(r.PostFormValue("url"))
	created, err := c.svc.CreateWebhook(r.Context(), rq.ws.ID, service.WebhookSpec{URL: u})
	if err != nil {
		se := asServiceError(err)
		if se == nil {
			return err
		}
		status, msg := c.statusOf(r, err)
		if len(se.Fields) > 0 {
			msg = "Correct the marked field."
		}
		return c.showWebhooks(w, r, rq, status, webhooksData{URL: u, Problem: msg, Fields: se.Fields})
	}
	return c.showWebhooks(w, r, rq, http.StatusCreated, webhooksData{Secret: created.Secret})
}

func (c *Console) setWebhookActive(active bool) handler {
	return func(w http.ResponseWriter, r *http.Request, rq *request) error {
		id, ok := pathID(r, "id")
		if !ok {
			return pageErr(http.StatusNotFound, "Webhook not found.")
		}
		if _, err := c.svc.SetWebhookActive(r.Context(), rq.ws.ID, id, active); err != nil {
			return err
		}
		msg := "Webhook turned off: its events are no longer queued."
		if active {
			msg = "Webhook enabled: its pending deliveries go out."
		}
		c.setFlash(r, rq, true, msg)
		return redirect(w, r, wsURL(rq.ws.ID, "/webhooks"))
	}
}

type deliveriesData struct {
	Hook       *model.Webhook
	Deliveries []model.WebhookDelivery
}

// deliveriesPage shows a webhook's latest deliveries.
func (c *Console) deliveriesPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, ok := pathID(r, "id")
	if !ok {
		return pageErr(http.StatusNotFound, "Webhook not found.")
	}
	hooks, err := c.svc.ListWebhooks(r.Context(), rq.ws.ID)
	if err != nil {
		return err
	}
	d := deliveriesData{}
	for i := range hooks {
		if hooks[i].ID == id {
			d.Hook = &hooks[i]
		}
	}
	if d.Hook == nil {
		return pageErr(http.StatusNotFound, "Webhook not found.")
	}
	if d.Deliveries, err = c.svc.ListDeliveries(r.Context(), rq.ws.ID, id, model.DeliveryFilter{Limit: 100}); err != nil {
		return err
	}
	c.renderView(w, r, http.StatusOK, "deliveries", view{Title: "Deliveries", Req: rq, Section: "webhooks", Data: d})
	return nil
}

type tokensData struct {
	// Admin: the admin tokens' page, else the workspace's.
	Admin   bool
	Tokens  []model.APIToken
	Name    string
	Problem string
	Created *service.CreatedToken
	Note    string
}

// tokenScope is the workspace of a /w/{ws}/tokens path, or 0 for the
// admin tokens of /tokens.
func tokenScope(rq *request) int64 {
	if rq.ws != nil {
		return rq.ws.ID
	}
	return 0
}

func (c *Console) tokensPath(rq *request) string {
	if rq.ws != nil {
		return wsURL(rq.ws.ID, "/tokens")
	}
	return Prefix + "/tokens"
}

// tokensPage lists tokens: the admin's on /tokens, a workspace's on its
// own page (as the API lets a workspace's tokens list them).
func (c *Console) tokensPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	return c.showTokens(w, r, rq, http.StatusOK, tokensData{})
}

func (c *Console) showTokens(w http.ResponseWriter, r *http.Request, rq *request, status int, d tokensData) error {
	scope := tokenScope(rq)
	if scope == 0 {
		if err := requireAdmin(rq); err != nil {
			return err
		}
	}
	toks, err := c.svc.ListTokens(r.Context(), scope)
	if err != nil {
		return err
	}
	d.Admin, d.Tokens, d.Note = scope == 0, toks, service.TokenNote
	section := "tokens"
	if scope == 0 {
		section = "admin-tokens"
	}
	c.renderView(w, r, status, "tokens", view{Title: "Tokens", Req: rq, Section: section, Data: d})
	return nil
}

// createToken makes a token (admin only, as in the API) and shows its
// secret on this answer only.
func (c *Console) createToken(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := requireAdmin(rq); err != nil {
		return err
	}
	var ws *int64
	if rq.ws != nil {
		ws = &rq.ws.ID
	}
	name := r.PostFormValue("name")
	created, err := c.svc.CreateToken(r.Context(), ws, service.TokenSpec{Name: name, ReadOnly: r.PostFormValue("read_only") != ""})
	if err != nil {
		if asServiceError(err) == nil {
			return err
		}
		status, msg := c.statusOf(r, err)
		return c.showTokens(w, r, rq, status, tokensData{Name: name, Problem: msg})
	}
	return c.showTokens(w, r, rq, http.StatusCreated, tokensData{Created: created})
}

// revokeToken revokes a token of the page's scope; the service keeps the
// last admin credential.
func (c *Console) revokeToken(w http.ResponseWriter, r *http.Request, rq *request) error {
	scope := tokenScope(rq)
	if scope == 0 {
		if err := requireAdmin(rq); err != nil {
			return err
		}
	}
	id, ok := pathID(r, "id")
	if !ok {
		return pageErr(http.StatusNotFound, "Token not found.")
	}
	if err := c.svc.RevokeToken(r.Context(), scope, id, c.admin != ""); err != nil {
		if se := asServiceError(err); se != nil {
			c.setFlash(r, rq, false, se.Message)
			return redirect(w, r, c.tokensPath(rq))
		}
		return err
	}
	c.setFlash(r, rq, true, fmt.Sprintf("Token %d revoked: it no longer works, and its console sessions end.", id))
	return redirect(w, r, c.tokensPath(rq))
}
