package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/mcp"
	"github.com/feedpoller/feedpoller/store"
)

const mcpAbout = `Serves the Model Context Protocol over standard input and output, for an MCP client that
starts the binary itself (a desktop agent, an IDE). It uses the configured database, which
must exist: it creates none (the client may start it in any folder, where the default
data/feedpoller.db would be a new, empty database), and says on standard error which one
it opened.

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
	cfg, err := env.config()
	if err != nil {
		return err
	}
	where, err := mcpDatabase(cfg.DatabaseURL)
	if err != nil {
		return err
	}
	a, err := env.wire(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	// The client shows standard error to whoever set it up: say which
	// database answers, since a wrong folder means another (empty) one.
	fmt.Fprintf(env.stderr, "feedpoller mcp: database %s\n", where)
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
	if err := srv.ServeStdio(ctx, *token, io.NopCloser(env.stdin), nopWriteCloser{env.stdout}); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// mcpDatabase names the database `feedpoller mcp` will use, and refuses a
// SQLite file that does not exist: an MCP client starts the binary from
// a folder of its own choosing, where the default data/feedpoller.db
// would be a new, empty database and every answer "no workspace yet".
func mcpDatabase(databaseURL string) (string, error) {
	dialect, dsn, err := store.ParseURL(databaseURL)
	if err != nil {
		return "", err
	}
	if dialect != store.SQLite {
		return store.RedactURL(databaseURL), nil
	}
	path, err := filepath.Abs(dsn)
	if err != nil {
		return "", fmt.Errorf("database path %s: %w", dsn, err)
	}
	if _, err := os.Stat(path); err != nil {
		how := "database_url (FEEDPOLLER_DATABASE_URL) names it"
		if strings.TrimSpace(databaseURL) == "" {
			how = "no database_url (FEEDPOLLER_DATABASE_URL) is set, and the default file is relative to the folder the " +
				"MCP client started feedpoller in"
		}
		return "", fmt.Errorf("feedpoller mcp uses an existing database and creates none: there is no SQLite database at %s (%s); "+
			"set FEEDPOLLER_DATABASE_URL in the MCP client's configuration to the daemon's database "+
			"(sqlite:/absolute/path/feedpoller.db, or its postgres:// URL)", path, how)
	}
	return "sqlite:" + path, nil
}

// nopWriteCloser leaves standard output open when the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
