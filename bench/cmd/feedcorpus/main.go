// Command feedcorpus measures how faithfully feedpoller stores what real
// feeds say. It serves every feed file of a directory from loopback, adds
// each as the one source of its own workspace in a real `feedpoller serve`
// (fresh SQLite database), polls it through the API, and then compares the
// stored articles with the file:
//
//	parsed    items the poll saw (poll outcome items_seen)
//	reference items gofeed finds in the file on its own
//	stored    rows in feed_articles
//	skipped   items seen but not stored, with the daemon's logged reason
//	titles    stored titles, source titles and authors that still hold
//	          HTML tags or character entities
//	fffd      stored text with U+FFFD that the file did not contain
//	empty     stored articles with an empty body whose item had text or
//	          an image
//
// Files that are not feeds are reported as refused with the validation
// error. See docs/feeds.md for the figures on public corpora.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

type config struct {
	dir      string
	name     string
	bin      string
	out      string
	jsonOut  string
	parallel int
	keep     bool
	verbose  bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "feedcorpus:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var c config
	fs := flag.NewFlagSet("feedcorpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.dir, "dir", "", "directory of feed files (required; walked recursively)")
	fs.StringVar(&c.name, "name", "", "corpus name in the summary (default: the directory's base name)")
	fs.StringVar(&c.bin, "feedpoller", "", "feedpoller binary to run (default: build ./cmd/feedpoller)")
	fs.StringVar(&c.out, "out", "", "write the per-file report (tab-separated) to this file instead of stdout")
	fs.StringVar(&c.jsonOut, "json", "", "also write every file's result as JSON lines to this file")
	fs.IntVar(&c.parallel, "parallel", 2, "files polled at once")
	fs.BoolVar(&c.keep, "keep", false, "keep the work directory (database, daemon log)")
	fs.BoolVar(&c.verbose, "v", false, "print every finding (title, U+FFFD, empty body) under its file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.dir == "" {
		fs.Usage()
		return fmt.Errorf("-dir is required")
	}
	if c.name == "" {
		c.name = filepath.Base(filepath.Clean(c.dir))
	}
	c.parallel = max(c.parallel, 1)

	files, err := corpusFiles(c.dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no feed files under %s", c.dir)
	}
	work, err := os.MkdirTemp("", "feedcorpus-")
	if err != nil {
		return err
	}
	if c.keep {
		fmt.Fprintln(stderr, "work directory:", work)
	} else {
		defer removeWork(stderr, work)
	}
	if c.bin == "" {
		if c.bin, err = buildDaemon(ctx, work); err != nil {
			return err
		}
	}

	results, err := pollCorpus(ctx, c, files, work, stderr)
	if err != nil {
		return err
	}
	if err := writeTo(c.out, stdout, func(w io.Writer) error { return writeReport(w, results, c.verbose) }); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	if c.jsonOut != "" {
		if err := writeJSON(c.jsonOut, results); err != nil {
			return err
		}
	}
	return writeSummary(stdout, c.name, summarise(results))
}

// writeTo calls write on the file at path, created anew, or on stdout when
// path is empty; a file that fails to close (a full disk) is an error.
func writeTo(path string, stdout io.Writer, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close() // the write's error is the one to report
		return err
	}
	return f.Close()
}

// removeWork deletes the work directory, saying so when it cannot.
func removeWork(stderr io.Writer, work string) {
	if err := os.RemoveAll(work); err != nil {
		fmt.Fprintln(stderr, "work directory left behind:", err)
	}
}
