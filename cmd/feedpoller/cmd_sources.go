package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/store"
)

func runSources(ctx context.Context, env *cliEnv, args []string) error {
	return subcommands(ctx, env, "sources",
		"Usage: feedpoller sources add --workspace ID --url URL [--type rss|web|api] [--interval MINUTES] [--title T] [--category C] [--track-changes] [--quiet]\n"+
			"       feedpoller sources list [--workspace ID]\n"+
			"       feedpoller sources import --workspace ID [--web-pages] [--concurrency N] FILE.opml\n"+
			"       feedpoller sources export --workspace ID [--output FILE]",
		args, map[string]func(context.Context, *cliEnv, []string) error{"add": sourcesAdd, "list": sourcesList,
			"import": sourcesImport, "export": sourcesExport})
}

// sourcesAdd creates a source through the source service, as the API
// does: the same checks, defaults and errors.
func sourcesAdd(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "sources add", "sources add --workspace ID --url URL [--type rss|web|api] [--interval MINUTES] [--title T] [--category C] [--track-changes] [--quiet]")
	wsID := fs.Int64("workspace", 0, "workspace id (required)")
	url := fs.String("url", "", "feed or page URL (required)")
	typ := fs.String("type", store.SourceRSS, "source type: rss, web or api")
	interval := fs.Int("interval", 0, "polling interval in minutes (default 30 for rss and api, web.default_interval_minutes for web)")
	title := fs.String("title", "", "title (default: the feed's or page's own)")
	category := fs.String("category", "", "the folder the source is filed under, \"/\" between nested folders (OPML export writes it)")
	track := fs.Bool("track-changes", false, "web sources: keep a new revision whenever the page's main content changes")
	quiet := fs.Bool("quiet", false, "print only the new source's id")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *wsID <= 0 {
		return fmt.Errorf("--workspace is required")
	}
	spec := service.SourceSpec{URL: *url, SourceType: *typ}
	set := setFlags(fs)
	if set["interval"] {
		spec.PollingIntervalMinutes = interval
	}
	if set["title"] {
		spec.Title = title
	}
	if set["category"] {
		spec.Category = category
	}
	if set["track-changes"] {
		spec.TrackChanges = track
	}
	a, err := env.wire(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	created, err := a.svc.CreateSource(ctx, *wsID, spec)
	if err != nil {
		return err
	}
	src := created.Source
	if *quiet {
		fmt.Fprintln(env.stdout, src.ID)
		return nil
	}
	var note string
	switch src.SourceType {
	case store.SourceRSS:
		note = fmt.Sprintf("feed %q with %d items", created.FeedTitle, created.ItemCount)
	case store.SourceWeb:
		note = fmt.Sprintf("page %q", created.PageTitle)
		if len(created.FeedLinks) > 0 {
			note += fmt.Sprintf("; it advertises a feed you may prefer: %s", strings.Join(created.FeedLinks, ", "))
		}
	default:
		note = "api sources are stored, not polled yet"
	}
	fmt.Fprintf(env.stdout, "source %d added to workspace %d (%s, every %d min): %s\n",
		src.ID, src.WorkspaceID, src.SourceType, src.PollingIntervalMinutes, note)
	return nil
}

// setFlags names the flags given on the command line, so that a flag
// left out takes the service's default rather than the flag's zero value.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
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
