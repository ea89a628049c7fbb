package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/opml"
	"github.com/feedpoller/feedpoller/service"
)

const importAbout = `Creates a source for every outline of an OPML subscription list (an export of
Miniflux, FreshRSS, Feedly, Inoreader, NetNewsWire, feedpoller, …) through the source
service: the same checks, defaults and validation fetch as 'sources add'. Nested folders
become the source's category ("Tech/Go"); the outline's name its title. Outlines whose URL
the workspace already has, or that an earlier outline of the file has, are duplicates:
not added again, and not fetched. Validation fetches run --concurrency at a time, one per
host at a time, fetch.per_domain_gap apart. With --no-validate nothing is fetched: the
sources are stored as the file names them (an outline still needs an http(s) URL) and
each is checked at its first poll, where a dead feed shows as failing in 'sources list'.
Outlines with only a page URL are web sources with --web-pages; those of a feedpoller
export are marked as web sources and need no flag.

Progress (done/total, rate, ETA) goes to standard error; the outcome of every outline to
standard output. Exit status: 0 when every outline was added or was a duplicate; 1 when
an outline was rejected, or the import stopped before reaching some (they are reported
skipped). FILE - reads standard input.`

func sourcesImport(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlagsAbout(env, "sources import", "sources import --workspace ID [--web-pages] [--concurrency N] FILE.opml", importAbout)
	wsID := fs.Int64("workspace", 0, "workspace id (required)")
	webPages := fs.Bool("web-pages", false, "add outlines with only an htmlUrl as web sources")
	noValidate := fs.Bool("no-validate", false, "store the sources without fetching them; each is checked at its first poll")
	concurrency := fs.Int("concurrency", opml.DefaultConcurrency, "validation fetches in flight at most (one per host at a time)")
	file, err := oneArg(fs, args)
	if err != nil {
		return err
	}
	if *wsID <= 0 {
		return fmt.Errorf("--workspace is required")
	}
	if *concurrency < 1 || *concurrency > 64 {
		return fmt.Errorf("--concurrency must be 1..64")
	}
	body := io.Reader(env.stdin)
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return fmt.Errorf("open OPML file: %w", err)
		}
		defer f.Close() //nolint:errcheck // read only: the read's error is the one that matters
		body = f
	}
	a, err := env.wire(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	bar := newProgressLine(env.stderr, isTerminal(env.stderr), time.Now)
	rep, err := a.svc.ImportOPML(ctx, *wsID, body, service.ImportOptions{WebPages: *webPages, Unvalidated: *noValidate,
		Concurrency: *concurrency, Progress: bar.update})
	bar.finish()
	if rep.Outcomes == nil && err != nil {
		return err
	}
	printReport(env.stdout, rep)
	if err != nil {
		return fmt.Errorf("import stopped: %w", err)
	}
	if rep.Rejected+rep.Skipped > 0 {
		return exitCode(1)
	}
	return nil
}

// printReport writes one line per outline, then the totals.
func printReport(w io.Writer, rep opml.Report) {
	for _, o := range rep.Outcomes {
		where := fmt.Sprintf("#%d", o.Index+1)
		if o.Line > 0 {
			where = fmt.Sprintf("line %d", o.Line)
		}
		detail := o.Reason
		if o.Status == opml.StatusAdded {
			detail = fmt.Sprintf("source %d %q", o.SourceID, o.Title)
			if o.Category != "" {
				detail += " in " + o.Category
			}
		}
		fmt.Fprintf(w, "%-9s %-9s %s: %s\n", o.Status, where, orDefault(o.URL, "(no URL)"), detail)
	}
	fmt.Fprintf(w, "%d outlines: %d added, %d duplicate, %d rejected, %d skipped\n",
		len(rep.Outcomes), rep.Added, rep.Duplicates, rep.Rejected, rep.Skipped)
	if rep.Unvalidated && rep.Added > 0 {
		fmt.Fprintln(w, "added without validation: each source is checked at its first poll (see feedpoller sources list)")
	}
}

// progressLine shows import progress on standard error: rewritten in place
// on a terminal, else a line every few seconds, so a log stays short.
type progressLine struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	now      func() time.Time
	last     time.Time
	pending  *opml.Progress
	wrote    bool
}

func newProgressLine(w io.Writer, terminal bool, now func() time.Time) *progressLine {
	return &progressLine{w: w, terminal: terminal, now: now}
}

func (p *progressLine) update(pr opml.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	every := 5 * time.Second
	if p.terminal {
		every = 100 * time.Millisecond
	}
	if t := p.now(); pr.Done == pr.Total || t.Sub(p.last) >= every {
		p.last = t
		p.write(pr)
		p.pending = nil
		return
	}
	p.pending = &pr
}

func (p *progressLine) write(pr opml.Progress) {
	line := "importing: " + pr.String()
	if p.terminal {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
	p.wrote = true
}

// finish writes the last state if it was held back, and ends the line.
func (p *progressLine) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending != nil {
		p.write(*p.pending)
		p.pending = nil
	}
	if p.terminal && p.wrote {
		fmt.Fprintln(p.w)
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func sourcesExport(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "sources export", "sources export --workspace ID [--output FILE]")
	wsID := fs.Int64("workspace", 0, "workspace id (required)")
	output := fs.String("output", "", "write to FILE instead of standard output")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *wsID <= 0 {
		return fmt.Errorf("--workspace is required")
	}
	return withService(ctx, env, func(svc *service.Service) error {
		var b strings.Builder
		if err := svc.ExportOPML(ctx, *wsID, &b); err != nil {
			return err
		}
		if *output == "" {
			_, err := io.WriteString(env.stdout, b.String())
			return err
		}
		if err := os.WriteFile(*output, []byte(b.String()), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", *output, err)
		}
		return nil
	})
}
