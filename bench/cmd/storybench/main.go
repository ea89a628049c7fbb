// Command storybench measures story grouping on ECB+, a public corpus of
// news articles labelled by the event they report (CC BY 3.0; see
// bench/README.md for where to get it). It draws a week of reporting
// times and outlet polls for the articles (stream.go), runs grouping
// online over the polls in the order the daemon would see them, through
// the code the daemon runs (stories.Group over stories.MemGroups), and
// prints pairwise and B³ precision, recall and F1 for the development
// topics 1–35 and the test topics 36–45, beside a plain TF-IDF cosine
// baseline whose threshold is tuned on topics 1–35 (baseline.go).
//
//	go run ./bench/cmd/storybench -ecb DIR
//	go run ./bench/cmd/storybench -ecb DIR -sweep   # development topics only
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/feedpoller/feedpoller/analysis/stories"
)

// lastDevTopic is the last topic that may be tuned on; the topics after
// it are the test split, reported and never tuned on.
const lastDevTopic = 35

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "storybench: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("storybench", flag.ContinueOnError)
	dir := fs.String("ecb", "", "the ECB+ folder (one sub-folder of tokenised XML per topic)")
	seed := fs.Uint64("seed", 1, "seed of the drawn reporting times and polls")
	var opts stories.GroupOptions
	fs.Float64Var(&opts.Threshold, "threshold", 0, "grouping threshold (0: the default)")
	fs.Float64Var(&opts.SizeMargin, "margin", 0, "size margin (0: the default)")
	fs.Float64Var(&opts.MergeThreshold, "merge", 0, "merge threshold (0: the default)")
	sweep := fs.Bool("sweep", false, "print development-topic figures over the grid below, and nothing of the test topics")
	ths := fs.String("sweep-threshold", "0.18,0.20,0.22,0.24,0.26", "thresholds of the sweep")
	margins := fs.String("sweep-margin", "0.08,0.12,0.16", "size margins of the sweep")
	merges := fs.String("sweep-merge", "0.10,0.15,0.20", "merge thresholds of the sweep, as amounts above the threshold")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("-ecb is required: the ECB+ folder of the ECB+ corpus")
	}
	docs, err := loadECB(*dir)
	if err != nil {
		return err
	}
	st := buildStream(docs, *seed)
	dev := func(i int) bool { return st.Articles[i].Topic <= lastDevTopic }
	test := func(i int) bool { return st.Articles[i].Topic > lastDevTopic }
	fmt.Fprintf(out, "%d articles, %d polls of %d outlets, seed %d\n", len(st.Articles), len(st.Polls), countOutlets(st), *seed)
	profiles := profilesOf(st)

	// The baseline's threshold: the best pairwise F1 on topics 1–35.
	best, sim := newBaseline().nearest(st, int64(stories.DefaultWindow.Seconds()))
	baseTh, baseDev := 0.0, scores{}
	for th := 0.02; th < 1; th += 0.01 {
		if s := score(st.Articles, assign(st, best, sim, th), dev); s.F1 > baseDev.F1 {
			baseTh, baseDev = th, s
		}
	}

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	if *sweep {
		return sweepDev(tw, st, profiles, dev, *ths, *margins, *merges, baseTh, baseDev)
	}
	story, err := groupProfiles(st, profiles, opts)
	if err != nil {
		return err
	}
	baseStory := assign(st, best, sim, baseTh)
	fmt.Fprintln(tw, "topics\tmethod\tarticles\tevents\tstories\tpairwise P\tR\tF1\tB³ P\tR\tF1\t")
	for _, split := range []struct {
		name string
		in   func(int) bool
	}{{"1–35 (dev)", dev}, {"36–45 (test)", test}} {
		for _, m := range []struct {
			name  string
			story []int64
		}{{"grouping", story}, {fmt.Sprintf("TF-IDF baseline (%.2f)", baseTh), baseStory}} {
			s := score(st.Articles, m.story, split.in)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", split.name, m.name, s.Articles, s.Events, s.Stories,
				s.P, s.R, s.F1, s.B3P, s.B3R, s.B3F1)
		}
	}
	return tw.Flush()
}

// sweepDev prints the development topics' figures over a grid of
// options, two runs at a time.
func sweepDev(tw *tabwriter.Writer, st stream, profiles []stories.Profile, dev func(int) bool, ths, margins, merges string,
	baseTh float64, baseDev scores) error {
	var grid []stories.GroupOptions
	for _, th := range floats(ths) {
		for _, mg := range floats(margins) {
			for _, up := range floats(merges) {
				grid = append(grid, stories.GroupOptions{Threshold: th, SizeMargin: mg, MergeThreshold: min(1, th+up)})
			}
		}
	}
	res := make([]scores, len(grid))
	errs := make([]error, len(grid))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i := range grid {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			story, err := groupProfiles(st, profiles, grid[i])
			if err != nil {
				errs[i] = err
				return
			}
			res[i] = score(st.Articles, story, dev)
		})
	}
	wg.Wait()
	fmt.Fprintln(tw, "threshold\tmargin\tmerge\tpairwise P\tR\tF1\tB³ P\tR\tF1\tstories\t")
	for i, o := range grid {
		if errs[i] != nil {
			return errs[i]
		}
		s := res[i]
		fmt.Fprintf(tw, "%.2f\t%.2f\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t\n", o.Threshold, o.SizeMargin, o.MergeThreshold,
			s.P, s.R, s.F1, s.B3P, s.B3R, s.B3F1, s.Stories)
	}
	fmt.Fprintf(tw, "baseline %.2f\t\t\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t\n", baseTh, baseDev.P, baseDev.R, baseDev.F1,
		baseDev.B3P, baseDev.B3R, baseDev.B3F1, baseDev.Stories)
	return tw.Flush()
}

// profilesOf computes every article's profile once.
func profilesOf(st stream) []stories.Profile {
	ps := make([]stories.Profile, len(st.Articles))
	for i, a := range st.Articles {
		ps[i] = stories.NewProfile(a.Title, a.Body)
	}
	return ps
}

// groupProfiles runs grouping over the stream's polls, one Place per
// poll as a save does, and returns each article's story at the end
// (merges followed).
func groupProfiles(st stream, profiles []stories.Profile, opts stories.GroupOptions) ([]int64, error) {
	mem, err := stories.NewMemGroups(opts)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	ids := make([]int64, len(st.Articles))
	for _, p := range st.Polls {
		arrivals := make([]stories.Arrival, len(p.Articles))
		for k, i := range p.Articles {
			arrivals[k] = stories.Arrival{Profile: profiles[i], At: st.Articles[i].ReportedAt}
		}
		arts, _, _, err := mem.Place(ctx, 1, arrivals)
		if err != nil {
			return nil, err
		}
		for k, i := range p.Articles {
			ids[i] = arts[k]
		}
	}
	story := make([]int64, len(st.Articles))
	for i, id := range ids {
		story[i] = mem.StoryOf(1, id)
	}
	return story, nil
}

func floats(s string) []float64 {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			continue
		}
		out = append(out, x)
	}
	return out
}

func countOutlets(st stream) int {
	m := map[string]bool{}
	for _, a := range st.Articles {
		m[a.Outlet] = true
	}
	return len(m)
}
