package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/mcp"
)

const mcpAbout = `Serves the Model Context Protocol over standard input and output, for an MCP client that
starts the binary itself (a desktop agent, an IDE). It uses the configured database.

With --token (or FEEDPOLLER_MCP_TOKEN) it acts as that API token: a workspace token sees
its own workspace only, a read-only token may not use add_source and poll_source, a
token that is not valid refuses to start. Without a token it may read every workspace
and write nothing: whoever runs the binary can read the database anyway, but an agent
should not change sources unless it was handed a token for that.`

func runMCP(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagsAbout(env, "mcp", "mcp [--token TOKEN]", mcpAbout)
	token := fs.String("token", "", "act as this API token (default: FEEDPOLLER_MCP_TOKEN; none: read every workspace, write nothing)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *token == "" {
		*token = envValue(env.environ, "FEEDPOLLER_MCP_TOKEN")
	}
	a, err := env.wire(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	caller := auth.Caller{Admin: true, ReadOnly: true}
	if *token != "" {
		caller, err = auth.Authenticate(ctx, a.store, auth.AdminDigest(a.cfg.AdminToken), *token)
		if errors.Is(err, auth.ErrUnauthorized) {
			return errors.New("the token of --token or FEEDPOLLER_MCP_TOKEN is not a valid API token (unknown or revoked)")
		}
		if err != nil {
			return err
		}
	}
	srv, err := mcp.New(mcp.Options{Store: a.store, Service: a.svc, AdminToken: a.cfg.AdminToken, Version: Version, Log: a.log})
	if err != nil {
		return err
	}
	a.log.Debug("mcp serving on stdio", "admin", caller.Admin, "workspace", caller.WorkspaceID, "read_only", caller.ReadOnly)
	if err := srv.ServeStdio(ctx, caller, io.NopCloser(env.stdin), nopWriteCloser{env.stdout}); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// nopWriteCloser leaves standard output open when the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
