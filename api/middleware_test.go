package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/model"
)

// panickingPoller stands for a bug deep in a handler.
type panickingPoller struct{}

func (panickingPoller) PollNow(context.Context, int64, int64) (model.PollOutcome, error) {
	panic("poller bug: nil map")
}

func TestPanicBecomesLoggedJSON500(t *testing.T) {
	e := newEnv(t, "sqlite", func(o *apiOptions) { o.Poller = panickingPoller{} })
	ws := e.createWorkspace(t, "panic")
	src := e.createSource(t, ws.ID, map[string]any{"url": "https://example.com/api", "source_type": "api"})
	r := e.call(call{method: "POST", path: path("/%d/sources/%d/poll", ws.ID, src.ID), token: e.admin, serverError: true}).
		want(t, http.StatusInternalServerError)
	if eb := r.errBody(t); strings.Contains(eb.Error, "nil map") {
		t.Fatalf("500 leaks the panic: %q", eb.Error)
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "panic serving request") || !strings.Contains(logs, "poller bug: nil map") {
		t.Fatalf("panic not logged:\n%s", logs)
	}
	// The server keeps serving.
	e.do("GET", path("/%d", ws.ID), e.admin, nil).want(t, http.StatusOK)
}

func TestRequestLogNamesRequestsNotTokens(t *testing.T) {
	e := newEnv(t, "sqlite")
	ws := e.createWorkspace(t, "logged")
	tok := e.workspaceToken(t, ws.ID)
	e.do("GET", path("/%d/sources", ws.ID), tok, nil).want(t, http.StatusOK)
	e.do("GET", path("/%d/sources", ws.ID), "wrong-"+tok, nil).want(t, http.StatusUnauthorized)
	logs := e.logs.String()
	for _, want := range []string{"method=GET", "path=/api/intelligence/workspaces/1/sources", "status=200", "status=401", "duration_ms="} {
		if !strings.Contains(logs, want) {
			t.Errorf("request log lacks %q", want)
		}
	}
	for _, secret := range []string{tok, e.admin, "Bearer", "Authorization"} {
		if strings.Contains(logs, secret) {
			t.Errorf("request log contains %q", secret)
		}
	}
}

// Probes (/healthz, /readyz, /metrics), called every few seconds by
// orchestrators and Prometheus, are logged at debug; requests to the API
// stay at info.
func TestProbeRequestsLogAtDebug(t *testing.T) {
	e := newEnv(t, "sqlite")
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		e.call(call{method: "GET", path: p})
	}
	e.do("GET", wsPath, e.admin, nil).want(t, http.StatusOK)
	levels := map[string]string{}
	for _, line := range strings.Split(e.logs.String(), "\n") {
		if !strings.Contains(line, `msg="http request"`) {
			continue
		}
		for _, f := range strings.Fields(line) {
			if p, ok := strings.CutPrefix(f, "path="); ok {
				level, _, _ := strings.Cut(line[strings.Index(line, "level=")+len("level="):], " ")
				levels[p] = level
			}
		}
	}
	for p, want := range map[string]string{"/healthz": "DEBUG", "/readyz": "DEBUG", "/metrics": "DEBUG", wsPath: "INFO"} {
		if levels[p] != want {
			t.Errorf("request line of %s at level %q, want %s (all: %v)", p, levels[p], want, levels)
		}
	}
}

// A WebSub callback's path holds the subscription's token: the request
// log shows the route, never the token.
func TestRequestLogRedactsCallbackTokens(t *testing.T) {
	const token = "0123456789abcdef0123456789abcdef0123456789abcdef"
	e := newEnv(t, "sqlite", func(o *apiOptions) { o.WebSub = http.NotFoundHandler() })
	for _, p := range []string{"/websub/" + token, "/websub/" + token + "?hub.mode=denied&hub.topic=x"} {
		// The callbacks are the hubs' protocol, not the API's document.
		e.call(call{method: "GET", path: p, offSpec: true})
		e.call(call{method: "POST", path: p, offSpec: true})
	}
	logs := e.logs.String()
	if strings.Contains(logs, token) {
		t.Errorf("request log contains the callback token:\n%s", logs)
	}
	if n := strings.Count(logs, "path=/websub/[redacted]"); n != 4 {
		t.Errorf("%d request lines name the callback route, want 4:\n%s", n, logs)
	}
}
