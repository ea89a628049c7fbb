// Package mcp is feedpoller's Model Context Protocol server, on the
// official Go SDK: the tools search, get_article, digest, list_sources, add_source
// and poll_source, and each content item as a Markdown resource. It is
// served over stdio (`feedpoller mcp`) and Streamable HTTP (/mcp on the
// API listener), with the API's bearer tokens and the same scoping: a
// workspace token sees its own workspace only, a read-only token may not
// write. Sources are created and polled through the source service, so
// validation and errors are those of the API.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/feedpoller/feedpoller/analysis/tokens"
	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// Store is what the MCP server reads itself; workspaces and sources go
// through the source service. *store.Store satisfies it.
type Store interface {
	auth.TokenLookup
	Search(ctx context.Context, workspaceID int64, f model.SearchFilter) ([]model.SearchHit, error)
	GetArticle(ctx context.Context, workspaceID, id int64) (*model.FeedArticle, error)
	GetContentItem(ctx context.Context, workspaceID, id int64) (*model.ContentItemView, error)
	ListItemRefs(ctx context.Context, workspaceID, cursor int64, limit int) ([]model.ItemRef, error)
}

// Options configures a Server.
type Options struct {
	Store   Store
	Service *service.Service
	// AdminToken is FEEDPOLLER_ADMIN_TOKEN ("" when not set), accepted
	// as the API accepts it.
	AdminToken string
	// Version is reported to clients in the initialize answer.
	Version string
	// Log receives failures the client is not shown; nil uses
	// slog.Default().
	Log *slog.Logger
	// AllowedHosts are the Host names /mcp answers on a loopback listener
	// besides the loopback ones: those a reverse proxy forwards.
	AllowedHosts []string
}

// Server answers MCP requests for one daemon or one `feedpoller mcp`.
type Server struct {
	store     Store
	svc       *service.Service
	adminHash []byte
	version   string
	log       *slog.Logger
	counter   counter
	// allowedHosts: see Options.AllowedHosts.
	allowedHosts []string
}

// New builds a Server.
func New(opts Options) (*Server, error) {
	if opts.Store == nil || opts.Service == nil {
		return nil, errors.New("mcp: a store and a source service are required")
	}
	c, err := tokens.For(tokens.CL100kBase)
	if err != nil {
		return nil, fmt.Errorf("mcp: token counter: %w", err)
	}
	s := &Server{store: opts.Store, svc: opts.Service, adminHash: auth.AdminDigest(opts.AdminToken), version: opts.Version, log: opts.Log, counter: c,
		allowedHosts: opts.AllowedHosts}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.version == "" {
		s.version = "dev"
	}
	return s, nil
}

// instructions tell a client's model how to spend its tokens here.
const instructions = `feedpoller holds clean Markdown articles from the feeds and pages a workspace follows.
Start with search (ranked results with a snippet and the summary of each), then get_article at
level "summary" or "outline", and "full" only for what you need; long texts come in parts of at
most max_tokens, continue with the next_offset given. list_sources shows each source's health.`

// sdkServer builds the protocol server of h.
func (s *Server) sdkServer(h *handlers) *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "feedpoller", Title: "feedpoller", Version: s.version},
		// The SDK's own chatter (sessions starting and ending) stays out of
		// the log; failures are logged by the handlers.
		&sdk.ServerOptions{Instructions: instructions, Capabilities: &sdk.ServerCapabilities{}})
	h.Server = s
	srv.AddReceivingMiddleware(stopWhenClientGone, initializeOnce)
	h.addTools(srv)
	h.addResources(srv)
	return srv
}

// ServeStdio serves one client on in/out until it disconnects or ctx
// ends, acting as token for every request ("" for none: every workspace,
// read-only), which is checked again on each. Every request read is
// answered before it returns, also when the input ends first.
func (s *Server) ServeStdio(ctx context.Context, token string, in io.ReadCloser, out io.WriteCloser) error {
	t := &lineTransport{in: in, out: out}
	if err := s.sdkServer(&handlers{stdio: true, stdioToken: token}).Run(ctx, t); err != nil &&
		!errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp over stdio: %w", err)
	}
	return nil
}

// callerKey holds the auth.Caller in a TokenInfo's Extra.
const callerKey = "feedpoller.caller"

// verify checks a bearer token as the API does. A database failure is
// logged and answered without its details.
func (s *Server) verify(ctx context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
	c, err := auth.Authenticate(ctx, s.store, s.adminHash, token)
	if errors.Is(err, auth.ErrUnauthorized) {
		return nil, fmt.Errorf("missing or invalid bearer token: %w", sdkauth.ErrInvalidToken)
	}
	if err != nil {
		s.log.ErrorContext(ctx, "mcp: check token", "err", err)
		return nil, errors.New("the token could not be checked; the server log has the details")
	}
	return &sdkauth.TokenInfo{UserID: fmt.Sprintf("token %d admin %v workspace %d", c.TokenID, c.Admin, c.WorkspaceID),
		Extra: map[string]any{callerKey: c}}, nil
}
