package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/store"
)

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func runWorkspaces(ctx context.Context, env *cliEnv, args []string) error {
	return subcommands(ctx, env, "workspaces",
		"Usage: feedpoller workspaces add --name NAME [--keyword TERM[:WEIGHT]]... [--exclude TERM]... [--threshold X] [--decay-class C] [--quiet]\n"+
			"       feedpoller workspaces set ID --decay-class fast|moderate|stable\n"+
			"       feedpoller workspaces list",
		args, map[string]func(context.Context, *cliEnv, []string) error{"add": workspacesAdd, "list": workspacesList, "set": workspacesSet})
}

// parseKeyword reads TERM or TERM:WEIGHT (weight default 1); the source
// service checks the term and the weight.
func parseKeyword(s string) model.Keyword {
	term, weight := s, 1.0
	if i := strings.LastIndex(s, ":"); i > 0 {
		w, err := strconv.ParseFloat(s[i+1:], 64)
		if err == nil {
			term, weight = s[:i], w
		}
	}
	return model.Keyword{Term: term, Weight: weight}
}

// workspacesAdd creates a workspace through the source service, as the
// API does: the same checks, defaults and errors.
func workspacesAdd(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "workspaces add", "workspaces add --name NAME [--keyword TERM[:WEIGHT]]... [--exclude TERM]... [--threshold X] [--decay-class C] [--quiet]")
	name := fs.String("name", "", "workspace name (required)")
	var keywords, excludes listFlag
	fs.Var(&keywords, "keyword", "a keyword or phrase with an optional weight, e.g. 'large language model:2' (repeatable)")
	fs.Var(&excludes, "exclude", "an exclusion term: articles containing it are never promoted (repeatable)")
	threshold := fs.Float64("threshold", service.DefaultOptions().DefaultThreshold, "relevance score (0..1) at or above which articles are promoted")
	quiet := fs.Bool("quiet", false, "print only the new workspace's id (for scripts: WS=$(feedpoller workspaces add … --quiet))")
	class := fs.String("decay-class", "", "how fast articles age for rank: fast, moderate or stable (default moderate)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	var decay *string
	if setFlags(fs)["decay-class"] {
		decay = class
	}
	profile := &service.ProfileSpec{Exclusions: excludes}
	for _, k := range keywords {
		profile.Keywords = append(profile.Keywords, parseKeyword(k))
	}
	if setFlags(fs)["threshold"] {
		profile.Threshold = threshold
	}
	return withService(ctx, env, func(svc *service.Service) error {
		ws, err := svc.CreateWorkspace(ctx, service.WorkspaceSpec{Name: *name, RelevanceProfile: profile, DecayClass: decay})
		if err != nil {
			return err
		}
		if *quiet {
			fmt.Fprintln(env.stdout, ws.ID)
			return nil
		}
		p := ws.Profile
		fmt.Fprintf(env.stdout, "workspace %d %q created (%d keywords, %d exclusions, threshold %.2f, decay class %s)\n",
			ws.ID, ws.Name, len(p.Keywords), len(p.Exclusions), p.Threshold, ws.DecayClass)
		return nil
	})
}

// workspacesSet changes a workspace's decay class through the source
// service, as PATCH does.
func workspacesSet(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "workspaces set", "workspaces set ID --decay-class fast|moderate|stable")
	class := fs.String("decay-class", "", "how fast articles age for rank: fast, moderate or stable")
	arg, err := oneArg(fs, args)
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("workspace id %q: want a positive whole number", arg)
	}
	if !setFlags(fs)["decay-class"] {
		return fmt.Errorf("nothing to change: give --decay-class")
	}
	return withService(ctx, env, func(svc *service.Service) error {
		ws, err := svc.UpdateWorkspace(ctx, id, service.WorkspaceChange{DecayClass: class})
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "workspace %d %q: decay class %s\n", ws.ID, ws.Name, ws.DecayClass)
		return nil
	})
}

func workspacesList(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "workspaces list", "workspaces list")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	return withStore(ctx, env, func(st *store.Store) error {
		wss, err := st.ListWorkspaces(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tTHRESHOLD\tDECAY\tKEYWORDS")
		for _, w := range wss {
			terms := make([]string, len(w.Profile.Keywords))
			for i, k := range w.Profile.Keywords {
				terms[i] = fmt.Sprintf("%s:%g", k.Term, k.Weight)
			}
			fmt.Fprintf(tw, "%d\t%s\t%.2f\t%s\t%s\n", w.ID, w.Name, w.Profile.Threshold, orDefault(w.DecayClass, "-"),
				orDefault(strings.Join(terms, ","), "-"))
		}
		if err := tw.Flush(); err != nil {
			return errors.Join(errors.New("write the workspace list"), err)
		}
		return nil
	})
}
