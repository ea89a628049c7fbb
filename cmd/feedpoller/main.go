// Command feedpoller is the daemon and its command line: serve, migrate,
// poll, workspaces, sources, webhooks, tokens, digest, extract, sql, config and
// version.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/store"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, env *cliEnv, args []string) error
}

// cliEnv is what every command gets: streams, environment and the config
// file flag.
type cliEnv struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	environ        []string
	configPath     string
	configExplicit bool
}

func (e *cliEnv) config() (Config, error) {
	return loadConfig(e.configPath, e.configExplicit, e.environ)
}

var errUsage = errors.New("usage")

func commands() map[string]command {
	return map[string]command{
		"serve":      {"run the daemon: poll on schedule and serve the API", runServe},
		"migrate":    {"apply database migrations and exit", runMigrate},
		"mcp":        {"serve the Model Context Protocol on stdin/stdout (--token TOKEN: act as that API token)", runMCP},
		"poll":       {"poll due sources once (or --source ID) and print the outcomes", runPoll},
		"workspaces": {"add or list workspaces (workspaces add|list)", runWorkspaces},
		"sources":    {"add, list, import (OPML) or export (OPML) feed sources (sources add|list|import|export)", runSources},
		"webhooks":   {"add, list, enable, disable or delete webhooks, or read a delivery log (webhooks add|list|…)", runWebhooks},
		"extract":    {"print what feedpoller would store for a page (file or URL)", runExtract},
		"config":     {"print the effective configuration, secrets redacted", runConfig},
		"sql":        {"run one read-only SQL query against the database and print the rows", runSQL},
		"tokens":     {"list, create or revoke API tokens, admin ones included (tokens list|create|revoke)", runTokens},
		"digest":     {"print a digest of a workspace's stories over a time window (markdown, json or compact)", runDigest},
		"version":    {"print the version", runVersion},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], &cliEnv{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, environ: os.Environ()})
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, env *cliEnv) int {
	env.configPath = "config.yaml"
	if v := envValue(env.environ, "FEEDPOLLER_CONFIG"); v != "" {
		env.configPath, env.configExplicit = v, true
	}
	// A global --config may come before the command.
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch {
		case args[0] == "--config" || args[0] == "-config":
			if len(args) < 2 {
				fmt.Fprintln(env.stderr, "feedpoller: --config needs a file path")
				return 2
			}
			env.configPath, env.configExplicit = args[1], true
			args = args[2:]
		case strings.HasPrefix(args[0], "--config="):
			env.configPath, env.configExplicit = strings.TrimPrefix(args[0], "--config="), true
			args = args[1:]
		case args[0] == "-h" || args[0] == "--help" || args[0] == "-help":
			usage(env.stdout)
			return 0
		default:
			fmt.Fprintf(env.stderr, "feedpoller: unknown flag %s\n", args[0])
			usage(env.stderr)
			return 2
		}
	}
	if len(args) == 0 {
		usage(env.stderr)
		return 2
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		if args[0] == "help" {
			usage(env.stdout)
			return 0
		}
		fmt.Fprintf(env.stderr, "feedpoller: unknown command %q\n", args[0])
		usage(env.stderr)
		return 2
	}
	if err := cmd.run(ctx, env, args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if errors.Is(err, errUsage) {
			return 2
		}
		var ec exitCode
		if errors.As(err, &ec) {
			return int(ec)
		}
		fmt.Fprintf(env.stderr, "feedpoller %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

// exitCode lets a command choose its status without an extra message.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func usage(w io.Writer) {
	fmt.Fprintln(w, "feedpoller polls RSS/Atom feeds and web pages into clean, deduplicated Markdown articles.")
	fmt.Fprintln(w, "\nUsage: feedpoller [--config FILE] COMMAND [flags]\n\nCommands:")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'feedpoller COMMAND --help' for a command's flags. Configuration: config.yaml in the")
	fmt.Fprintln(w, "working directory (or --config / FEEDPOLLER_CONFIG), every key overridable by FEEDPOLLER_* variables.")
}

func envValue(environ []string, key string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

// newFlags makes a command's flag set that prints its usage to stderr.
func newFlags(env *cliEnv, name, synopsis string) *flag.FlagSet {
	return newFlagsAbout(env, name, synopsis, "")
}

// newFlagsAbout is newFlags with a paragraph explaining the command,
// printed between the synopsis and the flags.
func newFlagsAbout(env *cliEnv, name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(env.stderr)
	fs.Usage = func() {
		fmt.Fprintf(env.stderr, "Usage: feedpoller %s\n", synopsis)
		if about != "" {
			fmt.Fprintf(env.stderr, "\n%s\n", strings.TrimRight(about, "\n"))
		}
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(env.stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses flags, letting them follow positional arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errUsage
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// subcommands dispatches "NAME add|list …" style commands.
func subcommands(ctx context.Context, env *cliEnv, name, help string, args []string,
	subs map[string]func(context.Context, *cliEnv, []string) error) error {
	if len(args) == 0 {
		fmt.Fprintln(env.stderr, help)
		return errUsage
	}
	if f, ok := subs[args[0]]; ok {
		return f(ctx, env, args[1:])
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprintln(env.stdout, help)
		return nil
	}
	fmt.Fprintf(env.stderr, "feedpoller %s: unknown subcommand %q\n%s\n", name, args[0], help)
	return errUsage
}

// withStore loads the configuration, opens (and migrates) the database and
// hands it to f.
func withStore(ctx context.Context, env *cliEnv, f func(st *store.Store) error) error {
	st, _, err := env.openStore(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	return f(st)
}

// withService is withStore for commands that change workspaces or
// sources without fetching or polling: the source service over the
// database, with the configured defaults.
func withService(ctx context.Context, env *cliEnv, f func(svc *service.Service) error) error {
	cfg, err := env.config()
	if err != nil {
		return err
	}
	log := newLogger(cfg, env.stderr)
	st, _, err := openStore(ctx, cfg, log, slog.LevelDebug)
	if err != nil {
		return err
	}
	defer st.Close()
	// Webhook URLs are checked by the fetcher's address policy.
	policy, err := fetch.NewPolicy(fetch.Options{AllowPrivateNetworks: cfg.Fetch.AllowPrivateNetworks, Allow: cfg.Fetch.Allow, Logger: log})
	if err != nil {
		log.Warn("fetch: ignoring allow entry", "err", err)
	}
	svc, err := newService(cfg, st, nil, nil, policy)
	if err != nil {
		return err
	}
	return f(svc)
}

// openStore loads the configuration and opens (and migrates) its database
// for a one-shot command; it returns the migration versions it applied.
func (e *cliEnv) openStore(ctx context.Context) (*store.Store, []int, error) {
	cfg, err := e.config()
	if err != nil {
		return nil, nil, err
	}
	return openStore(ctx, cfg, newLogger(cfg, e.stderr), slog.LevelDebug)
}

// oneArg parses flags and the one positional argument a command takes.
func oneArg(fs *flag.FlagSet, args []string) (string, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		fs.Usage()
		return "", errUsage
	}
	return pos[0], nil
}

// wire loads the configuration and builds the whole daemon for a one-shot
// command: its wiring is logged at debug only.
func (e *cliEnv) wire(ctx context.Context) (*app, error) {
	cfg, err := e.config()
	if err != nil {
		return nil, err
	}
	return wire(ctx, cfg, newLogger(cfg, e.stderr), slog.LevelDebug)
}
