package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/store"
)

const sourcesUsage = "Usage: feedpoller sources add --workspace ID --url URL [--type rss|web|api] [--interval MINUTES] [--schedule adaptive|fixed] [--title T] [--category C] [--track-changes] [--tier 1-5] [--decay-class C] [--quiet]\n" +
	"       feedpoller sources set ID [--schedule adaptive|fixed] [--interval MINUTES] [--title T] [--active=true|false] [--track-changes=true|false] [--tier 1-5|rules] [--decay-class fast|moderate|stable|workspace]\n" +
	"       feedpoller sources list [--workspace ID]\n" +
	"       feedpoller sources import --workspace ID [--web-pages] [--concurrency N] FILE.opml\n" +
	"       feedpoller sources export --workspace ID [--output FILE]"

func runSources(ctx context.Context, env *cliEnv, args []string) error {
	return subcommands(ctx, env, "sources", sourcesUsage, args,
		map[string]func(context.Context, *cliEnv, []string) error{"add": sourcesAdd, "set": sourcesSet, "list": sourcesList,
			"import": sourcesImport, "export": sourcesExport})
}

// scheduleHelp is the --schedule flag's help, the same for add and set.
const scheduleHelp = "adaptive (learn the interval from what polls find, starting at --interval) or fixed (every --interval)"

// sourcesAdd creates a source through the source service, as the API
// does: the same checks, defaults and errors.
func sourcesAdd(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "sources add", "sources add --workspace ID --url URL [--type rss|web|api] [--interval MINUTES] [--schedule adaptive|fixed] [--title T] [--category C] [--track-changes] [--tier 1-5] [--decay-class C] [--quiet]")
	wsID := fs.Int64("workspace", 0, "workspace id (required)")
	url := fs.String("url", "", "feed or page URL (required)")
	typ := fs.String("type", model.SourceRSS, "source type: rss, web or api")
	settings := sourceFlags(fs, "polling interval in minutes (default 30 for rss and api, web.default_interval_minutes for web)")
	category := fs.String("category", "", "the folder the source is filed under, \"/\" between nested folders (OPML export writes it)")
	quiet := fs.Bool("quiet", false, "print only the new source's id")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *wsID <= 0 {
		return fmt.Errorf("--workspace is required")
	}
	st, err := settings()
	if err != nil {
		return err
	}
	spec := service.SourceSpec{URL: *url, SourceType: *typ, Title: st.title, PollingIntervalMinutes: st.interval,
		Schedule: st.schedule, TrackChanges: st.trackChanges, DecayClass: st.decayClass}
	if st.tier != nil && *st.tier > 0 {
		spec.ReliabilityTier = st.tier
	}
	if setFlags(fs)["category"] {
		spec.Category = category
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
	case model.SourceRSS:
		note = fmt.Sprintf("feed %q with %d items", created.FeedTitle, created.ItemCount)
	case model.SourceWeb:
		note = fmt.Sprintf("page %q", created.PageTitle)
		if len(created.FeedLinks) > 0 {
			note += fmt.Sprintf("; it advertises a feed you may prefer: %s", strings.Join(created.FeedLinks, ", "))
		}
	default:
		note = "api sources are stored, not polled yet"
	}
	fmt.Fprintf(env.stdout, "source %d added to workspace %d (%s, %s): %s; %s\n",
		src.ID, src.WorkspaceID, src.SourceType, scheduleText(src), note, rankText(src))
	return nil
}

// scheduleText says how a source is scheduled: "every 30 min" or
// "adaptive, starting at 30 min".
func scheduleText(src model.FeedSource) string {
	if src.ScheduleMode == model.ScheduleFixed {
		return fmt.Sprintf("every %d min", src.PollingIntervalMinutes)
	}
	return fmt.Sprintf("adaptive, starting at %d min", src.PollingIntervalMinutes)
}

// rankText says what a source contributes to rank.
func rankText(src model.FeedSource) string {
	how := "from the domain rules"
	if src.ReliabilityTierManual {
		how = "set by hand"
	}
	class := "the workspace's decay class"
	if src.DecayClass != nil {
		class = "decay class " + *src.DecayClass
	}
	return fmt.Sprintf("reliability tier %d %s, %s", src.ReliabilityTier, how, class)
}

// sourcesSet changes a source through the source service, as PATCH does.
// Only the flags given change anything.
func sourcesSet(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagsAbout(env, "sources set", "sources set ID [--schedule adaptive|fixed] [--interval MINUTES] [--title T] [--active=true|false] [--track-changes=true|false] [--tier 1-5|rules] [--decay-class fast|moderate|stable|workspace]",
		"Changes what the flags given say; a schedule or interval change takes effect from the source's next poll.\n"+
			"--active=true on a paused source clears its failures and makes it due at once.")
	settings := sourceFlags(fs, "polling interval in minutes: the fixed interval, or where an adaptive source starts")
	active := fs.Bool("active", true, "poll the source (false pauses it)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	id, err := strconv.ParseInt(pos[0], 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("source id %q: want a positive whole number", pos[0])
	}
	st, err := settings()
	if err != nil {
		return err
	}
	ch := service.SourceChange{Title: st.title, PollingIntervalMinutes: st.interval, Schedule: st.schedule,
		TrackChanges: st.trackChanges, ReliabilityTier: st.tier, DecayClass: st.decayClass}
	if setFlags(fs)["active"] {
		ch.IsActive = active
	}
	return withService(ctx, env, func(svc *service.Service) error {
		src, err := svc.UpdateSource(ctx, 0, id, ch)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "source %d (%s): %s, active %v; next poll %s (%s); %s\n", src.ID, src.SourceType, scheduleText(*src),
			src.IsActive, src.NextPollAt.UTC().Format(listTime), orDefault(src.NextPollReason, "-"), rankText(*src))
		return nil
	})
}

// sourceSettings are what sources add and sources set both take from
// their flags. A setting is nil when its flag was not given: add leaves
// it to the service's default, set leaves the source as it is. A tier of
// 0 ("rules") gives the source back to the domain rules' tier.
type sourceSettings struct {
	title, schedule, decayClass *string
	interval, tier              *int
	trackChanges                *bool
}

// sourceFlags declares the flags of sourceSettings on fs; the function it
// returns reads them once fs is parsed.
func sourceFlags(fs *flag.FlagSet, intervalHelp string) func() (sourceSettings, error) {
	schedule := fs.String("schedule", "", scheduleHelp+" (default adaptive)")
	interval := fs.Int("interval", 0, intervalHelp)
	title := fs.String("title", "", "title (default: the feed's or page's own)")
	track := fs.Bool("track-changes", false, "web sources: keep a new revision whenever the page's main content changes")
	tier := fs.String("tier", "", "reliability tier 1 (official) to 5 (general web) set by hand, or rules for the tier reliability.rules give")
	class := fs.String("decay-class", "", "freshness decay class fast, moderate or stable, or workspace for the workspace's")
	return func() (sourceSettings, error) {
		var st sourceSettings
		set := setFlags(fs)
		if set["schedule"] {
			st.schedule = schedule
		}
		if set["interval"] {
			st.interval = interval
		}
		if set["title"] {
			st.title = title
		}
		if set["track-changes"] {
			st.trackChanges = track
		}
		if set["tier"] {
			n := 0
			if *tier != "rules" {
				var err error
				if n, err = strconv.Atoi(*tier); err != nil || n < 1 {
					return st, fmt.Errorf("--tier %q: want 1 to 5, or rules", *tier)
				}
			}
			st.tier = &n
		}
		if set["decay-class"] {
			c := *class
			if c == "workspace" {
				c = ""
			}
			st.decayClass = &c
		}
		return st, nil
	}
}

// setFlags names the flags given on the command line, so that a flag
// left out takes the service's default rather than the flag's zero value.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// listTime is how the source commands print times: UTC, to the second.
const listTime = "2006-01-02T15:04:05Z"

// webSubText is a source's subscription in the list: "-" without one,
// "websub: verified until …" or the state and its last error.
func webSubText(w *model.WebSubStatus) string {
	switch {
	case w == nil:
		return "-"
	case w.State == model.SubVerified && w.LeaseExpiresAt != nil:
		return "websub: verified until " + w.LeaseExpiresAt.UTC().Format(listTime)
	case w.LastError != "":
		return "websub: " + w.State + " (" + w.LastError + ")"
	}
	return "websub: " + w.State
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
		tw := tabwriter.NewWriter(env.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tWORKSPACE\tTYPE\tACTIVE\tSTATUS\tFAILURES\tSCHEDULE\tNEXT POLL\tREASON\tWEBSUB\tTIER\tURL")
		for _, s := range srcs {
			status := orDefault(s.LastPolledStatus, "never polled")
			fmt.Fprintf(tw, "%d\t%d\t%s\t%v\t%s\t%d\t%s\t%s\t%s\t%s\t%d\t%s\n", s.ID, s.WorkspaceID, s.SourceType, s.IsActive, status,
				s.ConsecutiveFailures, orDefault(s.ScheduleMode, model.ScheduleAdaptive), s.NextPollAt.UTC().Format(listTime),
				orDefault(s.NextPollReason, "-"), webSubText(s.WebSub), s.ReliabilityTier, s.URL)
		}
		if err := tw.Flush(); err != nil {
			return errors.Join(errors.New("write the source list"), err)
		}
		return nil
	})
}
