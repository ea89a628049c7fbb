package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/webhooks"
)

type webhookJSON struct {
	ID             int64    `json:"id"`
	WorkspaceID    int64    `json:"workspace_id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	IsActive       bool     `json:"is_active"`
	DisabledReason string   `json:"disabled_reason"`
	Secret         string   `json:"secret"`
}

type deliveryJSON struct {
	ID            string `json:"id"`
	Status        string `json:"status"`
	Attempts      int    `json:"attempts"`
	FailureReason string `json:"failure_reason"`
}

// A webhook's whole life over the API: created (a generated secret is
// answered once, a given one never), listed without secrets, turned off
// and enabled again, its delivery log paged and filtered, deleted with
// its log. A workspace token manages its own workspace's webhooks and
// sees another's as missing.
func TestWebhookLifecycle(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "hooks")
		other := e.createWorkspace(t, "other")
		var gen webhookJSON
		e.do("POST", path("/%d/webhooks", ws.ID), e.admin, map[string]any{"url": "http://127.0.0.1:9/hook"}).
			want(t, http.StatusCreated).decode(t, &gen)
		if !strings.HasPrefix(gen.Secret, "whsec_") || !gen.IsActive || fmt.Sprint(gen.Events) != "[content_item.promoted]" {
			t.Fatalf("created %+v", gen)
		}
		var own webhookJSON
		r := e.do("POST", path("/%d/webhooks", ws.ID), e.admin, map[string]any{"url": "https://hooks.example.com/in",
			"secret": "a-secret-of-my-own", "events": []string{"content_item.promoted"}}).want(t, http.StatusCreated)
		r.decode(t, &own)
		if own.Secret != "" || strings.Contains(string(r.body), "a-secret-of-my-own") {
			t.Fatalf("a given secret was answered: %s", r.body)
		}
		list := e.do("GET", path("/%d/webhooks", ws.ID), e.admin, nil).want(t, http.StatusOK)
		var hooks struct{ Items []webhookJSON }
		list.decode(t, &hooks)
		if len(hooks.Items) != 2 || strings.Contains(string(list.body), gen.Secret) || strings.Contains(string(list.body), "a-secret-of-my-own") ||
			strings.Contains(string(list.body), `"secret"`) {
			t.Fatalf("list %s", list.body)
		}

		var off webhookJSON
		e.do("PATCH", path("/%d/webhooks/%d", ws.ID, gen.ID), e.admin, map[string]any{"is_active": false}).want(t, http.StatusOK).decode(t, &off)
		if off.IsActive || off.DisabledReason == "" {
			t.Fatalf("turned off: %+v", off)
		}
		var on webhookJSON
		e.do("PATCH", path("/%d/webhooks/%d", ws.ID, gen.ID), e.admin, map[string]any{"is_active": true}).want(t, http.StatusOK).decode(t, &on)
		if !on.IsActive || on.DisabledReason != "" {
			t.Fatalf("enabled: %+v", on)
		}
		e.do("PATCH", path("/%d/webhooks/%d", ws.ID, gen.ID), e.admin, map[string]any{}).want(t, http.StatusBadRequest)
		e.do("PATCH", path("/%d/webhooks/%d", ws.ID, 9999), e.admin, map[string]any{"is_active": true}).want(t, http.StatusNotFound)

		// The log: three deliveries, one failed by the worker's outbox.
		ctx := context.Background()
		t0 := time.Now().UTC()
		for i := range 3 {
			if _, err := e.store.DB().Exec(e.store.DB().Rebind(`INSERT INTO webhook_deliveries (id, webhook_id, workspace_id, event, payload,
				next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`), fmt.Sprintf("d-%d", i), gen.ID, ws.ID,
				webhooks.EventContentItemPromoted, `{}`, t0, t0); err != nil {
				t.Fatal(err)
			}
		}
		claimed, err := e.store.Outbox().ClaimDue(ctx, "w", t0.Add(time.Second), 1, time.Minute)
		if err != nil || len(claimed) != 1 {
			t.Fatalf("claim %v %v", claimed, err)
		}
		if err := e.store.Outbox().MarkFailed(ctx, "w", claimed[0].ID, model.DeliveryAttempt{Number: 1, StatusCode: 404, Error: "receiver answered 404 Not Found"},
			"gave up after 1 attempts"); err != nil {
			t.Fatal(err)
		}
		var log struct {
			Items      []deliveryJSON
			NextCursor *string `json:"next_cursor"`
		}
		e.do("GET", path("/%d/webhooks/%d/deliveries?limit=2", ws.ID, gen.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &log)
		if len(log.Items) != 2 || log.Items[0].ID != "d-2" || log.NextCursor == nil {
			t.Fatalf("first page %+v", log)
		}
		cursor := *log.NextCursor
		log.Items, log.NextCursor = nil, nil
		e.do("GET", path("/%d/webhooks/%d/deliveries?limit=2&cursor=%s", ws.ID, gen.ID, cursor), e.admin, nil).want(t, http.StatusOK).decode(t, &log)
		if len(log.Items) != 1 || log.Items[0].ID != "d-0" || log.NextCursor != nil {
			t.Fatalf("second page %+v", log)
		}
		log.Items = nil
		e.do("GET", path("/%d/webhooks/%d/deliveries?status=failed", ws.ID, gen.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &log)
		if len(log.Items) != 1 || log.Items[0].FailureReason != "gave up after 1 attempts" || log.Items[0].Attempts != 1 {
			t.Fatalf("failed %+v", log)
		}
		for _, q := range []string{"status=lost", "limit=0", "limit=500", "colour=blue"} {
			e.do("GET", path("/%d/webhooks/%d/deliveries?%s", ws.ID, gen.ID, q), e.admin, nil).want(t, http.StatusBadRequest)
		}

		// A workspace token: its own webhooks, not another workspace's.
		tok := e.workspaceToken(t, ws.ID)
		e.do("GET", path("/%d/webhooks", ws.ID), tok, nil).want(t, http.StatusOK)
		e.do("GET", path("/%d/webhooks", other.ID), tok, nil).want(t, http.StatusNotFound)
		e.do("GET", path("/%d/webhooks/%d/deliveries", other.ID, gen.ID), e.admin, nil).want(t, http.StatusNotFound)
		e.do("DELETE", path("/%d/webhooks/%d", other.ID, gen.ID), e.admin, nil).want(t, http.StatusNotFound)

		e.do("DELETE", path("/%d/webhooks/%d", ws.ID, gen.ID), tok, nil).want(t, http.StatusOK)
		e.do("DELETE", path("/%d/webhooks/%d", ws.ID, gen.ID), e.admin, nil).want(t, http.StatusNotFound)
		e.do("GET", path("/%d/webhooks/%d/deliveries", ws.ID, gen.ID), e.admin, nil).want(t, http.StatusNotFound)
		if n := e.countRows(t, "webhook_deliveries"); n != 0 {
			t.Errorf("%d deliveries kept after their webhook was deleted", n)
		}
	})
}

// A webhook URL must pass the address policy of every fetch when it is
// created: internal hosts answer 400 naming the host and how to allow it;
// malformed URLs, unknown events and short secrets answer 400 naming the
// field. Nothing is stored.
func TestWebhookCreateRefusals(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "refusals")
		for _, c := range []struct {
			body        map[string]any
			field, want string
		}{
			{map[string]any{"url": "http://127.0.0.2:8080/hook"}, "url", "host 127.0.0.2 is not allowed (loopback)"},
			{map[string]any{"url": "http://10.1.2.3/hook"}, "url", "host 10.1.2.3 is not allowed (private)"},
			{map[string]any{"url": "http://169.254.169.254/latest/meta-data"}, "url", "host 169.254.169.254 is not allowed"},
			{map[string]any{"url": "http://[::ffff:10.0.0.1]/hook"}, "url", "is not allowed"},
			{map[string]any{"url": "https://wiki.internal.example/hook"}, "url", "host wiki.internal.example is not allowed (private)"},
			{map[string]any{"url": "https://user:pw@hooks.example.com/x"}, "url", "credentials"},
			{map[string]any{"url": "gopher://hooks.example.com/x"}, "url", "http(s)"},
			{map[string]any{"url": ""}, "url", "is required"},
			{map[string]any{"url": "https://hooks.example.com/x", "events": []string{"everything"}}, "events[0]", "content_item.promoted"},
			{map[string]any{"url": "https://hooks.example.com/x", "secret": "short"}, "secret", "at least 16"},
		} {
			r := e.do("POST", path("/%d/webhooks", ws.ID), e.admin, c.body).want(t, http.StatusBadRequest)
			eb := r.errBody(t)
			if !strings.Contains(eb.Fields[c.field], c.want) {
				t.Errorf("%v: fields %v, want %s to say %q", c.body, eb.Fields, c.field, c.want)
			}
			if strings.Contains(c.want, "not allowed") && !strings.Contains(eb.Error, "FEEDPOLLER_FETCH_ALLOW") {
				t.Errorf("%v: %q does not say how to allow the host", c.body, eb.Error)
			}
			if strings.Contains(string(r.body), "10.0.0.5") {
				t.Errorf("%v: the answer shows the address an internal name resolves to: %s", c.body, r.body)
			}
		}
		e.do("POST", path("/%d/webhooks", ws.ID), e.admin, map[string]any{"url": "https://x.example.com", "colour": "red"}).want(t, http.StatusBadRequest)
		e.do("POST", path("/%d/webhooks", 9999), e.admin, map[string]any{"url": "https://x.example.com"}).want(t, http.StatusNotFound)
		if n := e.countRows(t, "webhooks"); n != 0 {
			t.Fatalf("%d webhooks stored by refused requests", n)
		}
	})
}

// The cap of webhooks per workspace holds under concurrent creates, on
// both databases: of 40 creates at once, exactly 20 succeed and the rest
// answer 409, and 20 are stored.
func TestWebhookCapHoldsUnderConcurrency(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "crowded")
		const attempts = 40
		codes := make(chan int, attempts)
		start := make(chan struct{})
		for i := range attempts {
			go func() {
				<-start
				req, err := http.NewRequest("POST", e.srv.URL+path("/%d/webhooks", ws.ID),
					strings.NewReader(fmt.Sprintf(`{"url": "https://hooks.example.com/%d"}`, i)))
				if err != nil {
					codes <- 0
					return
				}
				req.Header.Set("Authorization", "Bearer "+e.admin)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					codes <- 0
					return
				}
				resp.Body.Close()
				codes <- resp.StatusCode
			}()
		}
		close(start)
		count := map[int]int{}
		for range attempts {
			count[<-codes]++
		}
		if count[http.StatusCreated] != 20 || count[http.StatusConflict] != attempts-20 {
			t.Fatalf("answers %v, want 20 × 201 and %d × 409", count, attempts-20)
		}
		var hooks struct{ Items []webhookJSON }
		e.do("GET", path("/%d/webhooks", ws.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &hooks)
		if len(hooks.Items) != 20 {
			t.Fatalf("%d webhooks stored, want 20", len(hooks.Items))
		}
	})
}
