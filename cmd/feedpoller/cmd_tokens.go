package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/store"
)

const tokensHelp = `Usage: feedpoller tokens list [--admin | --workspace ID]
       feedpoller tokens create (--admin | --workspace ID) [--read-only] [--name NAME] [--quiet]
       feedpoller tokens revoke ID

Manage API bearer tokens on the host, admin and workspace alike: the way back in when
the admin token is lost (feedpoller tokens create --admin). Only hashes are stored; a
new token's secret is printed once.`

func runTokens(ctx context.Context, env *cliEnv, args []string) error {
	return subcommands(ctx, env, "tokens", tokensHelp, args,
		map[string]func(context.Context, *cliEnv, []string) error{"list": tokensList, "create": tokensCreate, "revoke": tokensRevoke})
}

func tokensList(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "tokens list", "tokens list [--admin | --workspace ID]")
	admin := fs.Bool("admin", false, "only admin tokens")
	wsID := fs.Int64("workspace", 0, "only this workspace's tokens")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *admin && *wsID != 0 {
		return errors.New("--admin and --workspace exclude each other")
	}
	return withStore(ctx, env, func(st *store.Store) error {
		var toks []model.APIToken
		var err error
		switch {
		case *admin:
			toks, err = st.ListTokens(ctx, 0)
		case *wsID != 0:
			if _, err := st.GetWorkspace(ctx, *wsID); err != nil {
				return err
			}
			toks, err = st.ListTokens(ctx, *wsID)
		default:
			toks, err = st.AllTokens(ctx)
		}
		if err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, "ID\tSCOPE\tSTATE\tCREATED\tNAME")
		for _, t := range toks {
			scope := "admin"
			if t.WorkspaceID != nil {
				scope = fmt.Sprintf("workspace %d", *t.WorkspaceID)
			}
			if t.ReadOnly {
				scope += " (read-only)"
			}
			state := "live"
			if t.RevokedAt != nil {
				state = "revoked " + t.RevokedAt.UTC().Format("2006-01-02T15:04:05Z")
			}
			fmt.Fprintf(env.stdout, "%d\t%s\t%s\t%s\t%s\n", t.ID, scope, state, t.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), t.Name)
		}
		return nil
	})
}

func tokensCreate(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "tokens create", "tokens create (--admin | --workspace ID) [--read-only] [--name NAME] [--quiet]")
	readOnly := fs.Bool("read-only", false, "a token that may only read (GET requests; no MCP write tools)")
	admin := fs.Bool("admin", false, "an admin token (may do anything)")
	wsID := fs.Int64("workspace", 0, "a token acting only inside this workspace")
	name := fs.String("name", "", "what the token is for (default: created on the command line)")
	quiet := fs.Bool("quiet", false, "print only the token")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *admin == (*wsID != 0) {
		return errors.New("say which token: --admin or --workspace ID")
	}
	n := strings.TrimSpace(*name)
	if n == "" {
		n = "created on the command line"
	}
	// The token service makes the token as the API and the console do:
	// one check of the workspace and of the name.
	return withService(ctx, env, func(svc *service.Service) error {
		var ws *int64
		if !*admin {
			ws = wsID
		}
		c, err := svc.CreateToken(ctx, ws, service.TokenSpec{Name: n, ReadOnly: *readOnly})
		if err != nil {
			return err
		}
		if *quiet {
			fmt.Fprintln(env.stdout, c.Secret)
			return nil
		}
		scope := "admin token"
		if ws != nil {
			scope = fmt.Sprintf("token of workspace %d", *ws)
		}
		if c.Token.ReadOnly {
			scope = "read-only " + scope
		}
		fmt.Fprintf(env.stdout, "%s %d %q created; store it now, it is not shown again:\n%s\n", scope, c.Token.ID, c.Token.Name, c.Secret)
		return nil
	})
}

func tokensRevoke(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "tokens revoke", "tokens revoke ID")
	arg, err := oneArg(fs, args)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("token id %q: want a positive number (see feedpoller tokens list)", arg)
	}
	return withStore(ctx, env, func(st *store.Store) error {
		if err := st.RevokeAnyToken(ctx, id); err != nil {
			if errors.Is(err, model.ErrNotFound) {
				return fmt.Errorf("no live token %d (see feedpoller tokens list)", id)
			}
			return err
		}
		fmt.Fprintf(env.stdout, "token %d revoked\n", id)
		return nil
	})
}
