package api

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/service"
)

// Options configures a Server.
type Options struct {
	// Store is what the API reads and writes itself (tokens, listings,
	// readiness); required.
	Store Store
	// Service creates, reads, changes and polls workspaces and sources;
	// required.
	Service *service.Service
	// Gatherer serves /metrics; nil serves a fresh, empty registry.
	Gatherer prometheus.Gatherer
	// AdminToken is FEEDPOLLER_ADMIN_TOKEN. It is compared in constant time
	// and never stored. Admin tokens stored in the database work as well,
	// except the generated one, which EnsureAdminToken revokes once a
	// token is configured.
	AdminToken string
	// WebSub serves the WebSub callbacks under /websub/ without
	// authentication (the hubs hold an unguessable callback URL); nil
	// serves none.
	WebSub http.Handler
	// Log receives one line per request and every recovered panic; nil
	// uses slog.Default().
	Log *slog.Logger
	// MCP, when set, is served at /mcp (any method). It checks the
	// bearer token itself, with Authenticate.
	MCP http.Handler
	// Console, when set, is the web console, served under /ui/ (it signs
	// people in with the API's tokens itself); / then leads to it.
	Console http.Handler
}

// Server is the REST API of one daemon.
type Server struct {
	store     Store
	svc       *service.Service
	gatherer  prometheus.Gatherer
	adminHash []byte
	log       *slog.Logger
	rules     *service.Rules
	mcp       http.Handler
	console   http.Handler
	handler   http.Handler
	websub    http.Handler
}

// New builds a Server.
func New(opts Options) (*Server, error) {
	if opts.Store == nil {
		return nil, errors.New("api: a store is required")
	}
	if opts.Service == nil {
		return nil, errors.New("api: a source service is required")
	}
	s := &Server{
		store:    opts.Store,
		svc:      opts.Service,
		gatherer: opts.Gatherer,
		log:      opts.Log,
		rules:    service.NewRules(),
		mcp:      opts.MCP,
		console:  opts.Console,
		websub:   opts.WebSub,
	}
	if s.gatherer == nil {
		s.gatherer = prometheus.NewRegistry()
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.adminHash = auth.AdminDigest(opts.AdminToken)
	s.handler = s.routes()
	return s, nil
}

// Handler serves the whole API: logging and panic recovery around the
// routes, bearer auth in front of everything under /api/.
func (s *Server) Handler() http.Handler { return s.handler }

const prefix = "/api/intelligence"

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", s.metricsHandler())
	mux.HandleFunc("GET /openapi.yaml", serveOpenAPI)
	mux.HandleFunc("GET /llms.txt", s.serveLLMsTxt)
	if s.mcp != nil {
		mux.Handle("/mcp", s.mcp)
	}
	if s.websub != nil {
		mux.Handle(callbackPrefix, s.websub)
	}
	if s.console != nil {
		mux.Handle("/ui/", s.console)
		mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusSeeOther))
	}

	api := func(pattern string, h handlerFunc) {
		method, path, _ := strings.Cut(pattern, " ")
		mux.Handle(method+" "+prefix+path, s.requireAuth(h))
	}
	api("POST /workspaces", s.createWorkspace)
	api("GET /workspaces", s.listWorkspaces)
	api("GET /workspaces/{id}", s.getWorkspace)
	api("PATCH /workspaces/{id}", s.patchWorkspace)

	api("POST /workspaces/{id}/sources", s.createSource)
	api("GET /workspaces/{id}/sources", s.listSources)
	api("GET /workspaces/{id}/sources/{sourceId}", s.getSource)
	api("PATCH /workspaces/{id}/sources/{sourceId}", s.patchSource)
	api("DELETE /workspaces/{id}/sources/{sourceId}", s.deleteSource)
	api("POST /workspaces/{id}/sources/{sourceId}/poll", s.pollSource)
	api("POST /workspaces/{id}/sources/import", s.importSources)
	api("GET /workspaces/{id}/sources.opml", s.exportSources)

	api("POST /workspaces/{id}/webhooks", s.createWebhook)
	api("GET /workspaces/{id}/webhooks", s.listWebhooks)
	api("PATCH /workspaces/{id}/webhooks/{webhookId}", s.patchWebhook)
	api("DELETE /workspaces/{id}/webhooks/{webhookId}", s.deleteWebhook)
	api("GET /workspaces/{id}/webhooks/{webhookId}/deliveries", s.listDeliveries)

	api("GET /workspaces/{id}/articles", s.listArticles)
	api("GET /workspaces/{id}/content-items", s.listContentItems)
	api("GET /workspaces/{id}/content-items/{itemId}", s.getContentItem)
	api("GET /workspaces/{id}/digest", s.getDigest)

	api("POST /tokens", s.createAdminToken)
	api("GET /tokens", s.listAdminTokens)
	api("DELETE /tokens/{tokenId}", s.revokeAdminToken)

	api("POST /workspaces/{id}/tokens", s.createToken)
	api("GET /workspaces/{id}/tokens", s.listTokens)
	api("DELETE /workspaces/{id}/tokens/{tokenId}", s.revokeToken)

	return s.observe(s.jsonFallbacks(mux))
}
