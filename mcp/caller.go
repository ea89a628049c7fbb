package mcp

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// handlers answer the requests of one protocol server.
type handlers struct {
	*Server
	// stdio: the session of `feedpoller mcp`, which acts as stdioToken
	// ("" for none: every workspace, read-only); else each HTTP request
	// carries its own token.
	stdio      bool
	stdioToken string
}

// errNoCaller: an HTTP request reached a handler without a checked token,
// which the bearer middleware prevents.
var errNoCaller = errors.New("this request carries no valid bearer token")

// errTokenRevoked: the token a stdio session was started with is no
// longer valid.
var errTokenRevoked = userError{"the token this session was started with (--token or FEEDPOLLER_MCP_TOKEN) is no " +
	"longer valid: it was revoked or deleted; start the MCP server again with a valid token"}

// caller is who req acts as. A stdio session's token is checked again on
// every request, as HTTP requests are: a token revoked while the session
// runs stops working at once.
func (h *handlers) caller(ctx context.Context, req sdk.Request) (auth.Caller, error) {
	if h.stdio {
		if h.stdioToken == "" {
			return auth.Caller{Admin: true, ReadOnly: true}, nil
		}
		c, err := auth.Authenticate(ctx, h.store, h.adminHash, h.stdioToken)
		if errors.Is(err, auth.ErrUnauthorized) {
			return c, errTokenRevoked
		}
		return c, err
	}
	if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
		if c, ok := extra.TokenInfo.Extra[callerKey].(auth.Caller); ok {
			return c, nil
		}
	}
	return auth.Caller{}, errNoCaller
}

// workspace resolves the workspace a tool acts in: the one asked for,
// which must exist and be the caller's (else "not found", as the API
// answers), or, when none is asked for, the workspace token's own or the
// only workspace there is.
func (h *handlers) workspace(ctx context.Context, req sdk.Request, asked int64) (auth.Caller, int64, error) {
	c, err := h.caller(ctx, req)
	if err != nil {
		return c, 0, err
	}
	if asked == 0 && !c.Admin {
		asked = c.WorkspaceID
	}
	if asked == 0 {
		wss, err := h.svc.ListWorkspaces(ctx)
		if err != nil {
			return c, 0, err
		}
		if len(wss) == 1 {
			return c, wss[0].ID, nil
		}
		return c, 0, userError{needWorkspace(wss)}
	}
	if !c.May(asked) {
		return c, 0, userErrorf("workspace %d not found", asked)
	}
	if _, err := h.svc.GetWorkspace(ctx, asked); err != nil {
		return c, 0, err
	}
	return c, asked, nil
}

// needWorkspace asks an admin caller to choose, naming the choices.
func needWorkspace(wss []model.Workspace) string {
	if len(wss) == 0 {
		return "there is no workspace yet: create one with the REST API or `feedpoller workspaces add`"
	}
	sort.Slice(wss, func(i, j int) bool { return wss[i].ID < wss[j].ID })
	names := make([]string, 0, min(len(wss), 20))
	for _, w := range wss[:min(len(wss), 20)] {
		names = append(names, fmt.Sprintf("%d (%s)", w.ID, w.Name))
	}
	more := ""
	if len(wss) > 20 {
		more = fmt.Sprintf(" and %d more", len(wss)-20)
	}
	return "workspace_id is required: this token sees several workspaces: " + strings.Join(names, ", ") + more
}

// mayWrite refuses read-only callers.
func mayWrite(c auth.Caller, tool string) error {
	if c.ReadOnly {
		return userErrorf("%s changes the workspace, and this token may only read: use a token created without read_only", tool)
	}
	return nil
}

// toolError turns a failure into what the client is shown: the message of
// a service error or a not-found, and for anything else a generic
// sentence, the details going to the log.
func (h *handlers) toolError(ctx context.Context, tool string, err error) error {
	var se *service.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return errors.New(se.Message)
	case errors.Is(err, model.ErrNotFound), errors.Is(err, errNoCaller):
		return err
	case errors.Is(err, model.ErrSearchTimeout):
		return fmt.Errorf("%s was stopped: it ran too long; use rarer words or a phrase, or narrow it with source_id, since or until", tool)
	case errors.Is(err, model.ErrSearchBusy):
		return fmt.Errorf("%s could not start: too many searches are running at once; try again in a moment", tool)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s was cancelled", tool)
	}
	var ue userError
	if errors.As(err, &ue) {
		return err
	}
	h.log.ErrorContext(ctx, "mcp tool failed", "tool", tool, "err", err)
	return fmt.Errorf("%s failed with an internal error; the server log has the details", tool)
}

// userError is a failure worded for the caller (bad arguments, a denied
// workspace).
type userError struct{ msg string }

func (e userError) Error() string { return e.msg }

func userErrorf(format string, args ...any) error { return userError{fmt.Sprintf(format, args...)} }
