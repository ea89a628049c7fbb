package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/feedpoller/feedpoller/store"
)

func runSources(ctx context.Context, env *cliEnv, args []string) error {
	return subcommands(ctx, env, "sources",
		"Usage: feedpoller sources add --workspace ID --url URL [--type rss|web|api] [--interval MINUTES] [--title T] [--track-changes] [--quiet]\n"+
			"       feedpoller sources list [--workspace ID]",
		args, map[string]func(context.Context, *cliEnv, []string) error{"add": sourcesAdd, "list": sourcesList})
}

func sourcesAdd(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "sources add", "sources add --workspace ID --url URL [--type rss|web|api] [--interval MINUTES] [--title T] [--track-changes] [--quiet]")
	wsID := fs.Int64("workspace", 0, "workspace id (required)")
	url := fs.String("url", "", "feed or page URL (required)")
	typ := fs.String("type", store.SourceRSS, "source type: rss, web or api")
	interval := fs.Int("interval", 0, "polling interval in minutes (default 30 for rss, web.default_interval_minutes for web)")
	title := fs.String("title", "", "title (default: the feed's or page's own)")
	track := fs.Bool("track-changes", false, "web sources: keep a new revision whenever the page's main content changes")
	quiet := fs.Bool("quiet", false, "print only the new source's id")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	switch {
	case *wsID <= 0:
		return fmt.Errorf("--workspace is required")
	case !strings.HasPrefix(*url, "http://") && !strings.HasPrefix(*url, "https://"):
		return fmt.Errorf("--url %q must be an http(s) URL", *url)
	case *typ != store.SourceRSS && *typ != store.SourceWeb && *typ != store.SourceAPI:
		return fmt.Errorf("--type %q: want rss, web or api", *typ)
	case *interval < 0 || *interval > 43200:
		return fmt.Errorf("--interval %d: want 1..43200 minutes", *interval)
	}
	a, err := env.wire(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	if _, err := a.store.GetWorkspace(ctx, *wsID); err != nil {
		return err
	}
	src := &store.FeedSource{WorkspaceID: *wsID, URL: *url, SourceType: *typ, Title: *title, IsActive: true,
		PollingIntervalMinutes: *interval, TrackChanges: *track}
	note := ""
	switch *typ {
	case store.SourceRSS:
		feedTitle, n, err := a.rss.Validate(ctx, *url)
		if err != nil {
			return fmt.Errorf("feed validation failed: %w", err)
		}
		src.Title = orDefault(src.Title, feedTitle)
		note = fmt.Sprintf("feed %q with %d items", feedTitle, n)
		if src.PollingIntervalMinutes == 0 {
			src.PollingIntervalMinutes = 30
		}
	case store.SourceWeb:
		v, err := a.web.Validate(ctx, *url)
		if err != nil {
			return fmt.Errorf("page validation failed: %w", err)
		}
		src.Title = orDefault(src.Title, v.Title)
		note = fmt.Sprintf("page %q", v.Title)
		if len(v.FeedLinks) > 0 {
			note += fmt.Sprintf("; it advertises a feed you may prefer: %s", strings.Join(v.FeedLinks, ", "))
		}
		if src.PollingIntervalMinutes == 0 {
			src.PollingIntervalMinutes = a.cfg.Web.DefaultIntervalMinutes
		}
	default:
		if src.PollingIntervalMinutes == 0 {
			src.PollingIntervalMinutes = 30
		}
		note = "api sources are stored, not polled yet"
	}
	if err := a.store.CreateSource(ctx, src); err != nil {
		return err
	}
	if *quiet {
		fmt.Fprintln(env.stdout, src.ID)
		return nil
	}
	fmt.Fprintf(env.stdout, "source %d added to workspace %d (%s, every %d min): %s\n",
		src.ID, src.WorkspaceID, src.SourceType, src.PollingIntervalMinutes, note)
	return nil
}

func sourcesList(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "sources list", "sources list [--workspace ID]")
	wsID := fs.Int64("workspace", 0, "only this workspace's sources")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	return withStore(ctx, env, func(st *store.Store) error {
		srcs, err := st.ListSources(ctx, *wsID)
		if err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, "ID\tWORKSPACE\tTYPE\tACTIVE\tSTATUS\tFAILURES\tNEXT POLL\tURL")
		for _, s := range srcs {
			status := orDefault(s.LastPolledStatus, "never polled")
			fmt.Fprintf(env.stdout, "%d\t%d\t%s\t%v\t%s\t%d\t%s\t%s\n", s.ID, s.WorkspaceID, s.SourceType, s.IsActive, status,
				s.ConsecutiveFailures, s.NextPollAt.UTC().Format("2006-01-02T15:04:05Z"), s.URL)
		}
		return nil
	})
}
