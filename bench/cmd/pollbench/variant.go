package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Workspace layouts of a variant's sources.
const (
	layoutOne  = "one"  // every source in one workspace
	layoutMany = "many" // one workspace per source
)

// variant is one binary and one layout of the sources, measured on a
// database, a farm and daemons of its own beside the other variants.
type variant struct {
	name   string // "current", or the revision it was built from
	bin    string
	layout string
}

// label names the variant in the report: its binary, and its layout when
// it is not the one workspace.
func (v variant) label() string {
	if v.layout == layoutOne {
		return v.name
	}
	return v.name + "/" + v.layout
}

// makeVariants is the binary under test in every layout asked for, then
// the -against binary in the same layouts, built from its revision when
// needed. The first variant is the reference the others are compared
// with.
func makeVariants(ctx context.Context, cfg config, work string, progress func(string, ...any)) ([]variant, error) {
	bins := []variant{{name: "current", bin: cfg.bin}}
	switch {
	case cfg.againstBin != "":
		bins = append(bins, variant{name: filepath.Base(cfg.againstBin), bin: cfg.againstBin})
	case cfg.against != "":
		progress("building feedpoller at %s…", cfg.against)
		bin, err := buildRevision(ctx, cfg.against, work)
		if err != nil {
			return nil, err
		}
		bins = append(bins, variant{name: cfg.against, bin: bin})
	}
	var out []variant
	for _, b := range bins {
		for _, l := range cfg.layouts {
			b.layout = l
			out = append(out, b)
		}
	}
	return out, nil
}

// buildRevision builds cmd/feedpoller as it was at rev: the revision's
// files are exported with git archive into the work directory (nothing is
// added to the repository, not even a worktree) and built there with its
// own go.mod, so the binary carries that revision's migrations too.
func buildRevision(ctx context.Context, rev, work string) (string, error) {
	top, err := exec.CommandContext(ctx, "git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", fmt.Errorf("build %s: find the repository: %w", rev, err)
	}
	safe := strings.NewReplacer("/", "_", ":", "_", "~", "_", "^", "_").Replace(rev)
	src := filepath.Join(work, "src-"+safe)
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	tarball := filepath.Join(work, "src-"+safe+".tar")
	archive := exec.CommandContext(ctx, "git", "-C", strings.TrimSpace(string(top)), "archive", "-o", tarball, rev)
	if out, err := archive.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: git archive: %w: %s", rev, err, out)
	}
	if out, err := exec.CommandContext(ctx, "tar", "-xf", tarball, "-C", src).CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: unpack: %w: %s", rev, err, out)
	}
	bin := filepath.Join(work, "feedpoller-"+safe)
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/feedpoller")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w: %s", rev, err, out)
	}
	return bin, nil
}
