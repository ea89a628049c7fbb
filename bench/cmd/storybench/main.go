// Command storybench measures story grouping on ECB+, a public corpus of
// news articles labelled by the event they report (CC BY 3.0; see
// bench/README.md for where to get it). It draws a week of reporting
// times and outlet polls for the articles (stream.go), runs grouping
// online over the polls in the order the daemon would see them, through
// the code the daemon runs (stories.Group and re-examination over
// stories.MemGroups), and
// prints pairwise and B³ precision, recall and F1 for the development
// topics 1–35 and the test topics 36–45, beside a plain TF-IDF cosine
// baseline whose threshold is tuned on topics 1–35 (baseline.go).
//
//	go run ./bench/cmd/storybench -ecb DIR
//	go run ./bench/cmd/storybench -ecb DIR -sweep   # development topics only
//	go run ./bench/cmd/storybench -ecb DIR -dev     # development topics only, per seed and mean
//	go run ./bench/cmd/storybench -ecb DIR -dev -background TXTDIR   # frequencies warmed with other news first
//	go run ./bench/cmd/storybench -ecb DIR -dev -reexamine 0         # without re-examination (on in the daemon), to compare
//	go run ./bench/cmd/storybench -ecb DIR -dev -late-joins          # with late joins (off in the daemon)
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	seedList := fs.String("seeds", "1,2,3", "seeds of the drawn reporting times and polls: one run each, then the mean")
	var opts stories.GroupOptions
	fs.Float64Var(&opts.Threshold, "threshold", 0, "grouping threshold (0: the default)")
	fs.Float64Var(&opts.SizeMargin, "margin", 0, "size margin (0: the default)")
	fs.Float64Var(&opts.MergeThreshold, "merge", 0, "merge threshold (0: the default)")
	fs.IntVar(&opts.IndexTerms, "index-terms", 0, "index terms per article (0: the default)")
	fs.IntVar(&opts.PerTermLimit, "per-term", 0, "postings per term and lookup (0: the default)")
	fs.IntVar(&opts.MaxCompared, "max-compared", 0, "candidate stories compared per arrival (0: the default)")
	lateJoins := fs.Bool("late-joins", false, "one-article stories join a story a later poll changed once they clear it (off by default, as in the daemon)")
	background := fs.String("background", "", "a folder of plain-text articles (one per .txt file), counted in the document frequencies before the stream and never placed")
	reexamine := fs.Int("reexamine", stories.DefaultReexamineMembers, "re-examine this many of each story's most recent members after each poll, as the daemon does (0: no re-examination, to compare)")
	devOnly := fs.Bool("dev", false, "print the grouping figures of the development topics only, per seed and their mean (what tuning looks at)")
	sweep := fs.Bool("sweep", false, "print development-topic figures over the grid below, and nothing of the test topics")
	ths := fs.String("sweep-threshold", "0.18,0.20,0.22,0.24,0.26", "thresholds of the sweep")
	margins := fs.String("sweep-margin", "0.08,0.12,0.16", "size margins of the sweep")
	merges := fs.String("sweep-merge", "0.10,0.15,0.20", "merge thresholds of the sweep, as amounts above the threshold")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts.LateJoins = *lateJoins
	opts.ReexamineMembers = *reexamine
	if *reexamine <= 0 {
		opts.ReexamineMembers = -1
	}
	if *dir == "" {
		return fmt.Errorf("-ecb is required: the ECB+ folder of the ECB+ corpus")
	}
	docs, err := loadECB(*dir)
	if err != nil {
		return err
	}
	var su setup
	if *background != "" {
		if su.background, err = loadBackground(*background); err != nil {
			return err
		}
	}
	var seeds []uint64
	for _, f := range strings.Split(*seedList, ",") {
		s, err := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		if err != nil {
			return fmt.Errorf("-seeds %q: %q is not a seed", *seedList, f)
		}
		seeds = append(seeds, s)
	}
	if *devOnly {
		return runDev(out, docs, su, seeds, opts)
	}
	if *sweep {
		// Tuning looks at the development topics of the first seed only.
		return sweepDev(out, buildStream(docs, seeds[0]), su, opts.LateJoins, *ths, *margins, *merges)
	}
	var all [][4]scores
	var labels []string
	for _, seed := range seeds {
		rows, baseTh, err := runSeed(out, buildStream(docs, seed), su, seed, opts)
		if err != nil {
			return err
		}
		all = append(all, rows)
		labels = append(labels, fmt.Sprintf("%.2f", baseTh))
	}
	if len(seeds) > 1 {
		fmt.Fprintf(out, "\nmean over seeds %s (baseline thresholds %s)\n", *seedList, strings.Join(labels, ", "))
		var mean [4]scores
		for _, rows := range all {
			for i, r := range rows {
				mean[i] = addScores(mean[i], r, 1/float64(len(all)))
			}
		}
		return printTable(out, mean, "TF-IDF baseline")
	}
	return nil
}

// runSeed runs grouping and the baseline over one drawn stream and prints
// their figures: dev grouping, dev baseline, test grouping, test baseline.
func runSeed(out io.Writer, st stream, su setup, seed uint64, opts stories.GroupOptions) ([4]scores, float64, error) {
	dev := func(i int) bool { return st.Articles[i].Topic <= lastDevTopic }
	test := func(i int) bool { return st.Articles[i].Topic > lastDevTopic }
	fmt.Fprintf(out, "\n%d articles, %d polls of %d outlets, seed %d\n", len(st.Articles), len(st.Polls), countOutlets(st), seed)
	profiles := profilesOf(st)

	baseTh, best, sim := tuneBaseline(st, dev)
	story, err := groupProfiles(st, profiles, su, opts)
	if err != nil {
		return [4]scores{}, 0, err
	}
	baseStory := assign(st, best, sim, baseTh)
	rows := [4]scores{score(st.Articles, story, dev), score(st.Articles, baseStory, dev),
		score(st.Articles, story, test), score(st.Articles, baseStory, test)}
	return rows, baseTh, printTable(out, rows, fmt.Sprintf("TF-IDF baseline (%.2f)", baseTh))
}

// runDev prints the grouping figures of the development topics for each
// seed and their mean, and nothing of the test topics.
func runDev(out io.Writer, docs []doc, su setup, seeds []uint64, opts stories.GroupOptions) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "seed\tstories\tpairwise P\tR\tF1\tB³ P\tR\tF1\t")
	var mean scores
	for _, seed := range seeds {
		st := buildStream(docs, seed)
		dev := func(i int) bool { return st.Articles[i].Topic <= lastDevTopic }
		story, err := groupProfiles(st, profilesOf(st), su, opts)
		if err != nil {
			return err
		}
		s := score(st.Articles, story, dev)
		mean = addScores(mean, s, 1/float64(len(seeds)))
		fmt.Fprintf(tw, "%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", seed, s.Stories, s.P, s.R, s.F1, s.B3P, s.B3R, s.B3F1)
	}
	fmt.Fprintf(tw, "mean\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", mean.StoriesMean, mean.P, mean.R, mean.F1, mean.B3P, mean.B3R, mean.B3F1)
	return tw.Flush()
}

// tuneBaseline returns the baseline's threshold with the best pairwise F1
// on the development topics, and its nearest neighbours.
func tuneBaseline(st stream, dev func(int) bool) (float64, []int, []float64) {
	best, sim := newBaseline().nearest(st, int64(stories.DefaultWindow.Seconds()))
	baseTh, baseDev := 0.0, scores{}
	for th := 0.02; th < 1; th += 0.01 {
		if s := score(st.Articles, assign(st, best, sim, th), dev); s.F1 > baseDev.F1 {
			baseTh, baseDev = th, s
		}
	}
	return baseTh, best, sim
}

// printTable prints dev grouping, dev baseline, test grouping, test
// baseline.
func printTable(out io.Writer, rows [4]scores, baseline string) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "topics\tmethod\tarticles\tevents\tstories\tpairwise P\tR\tF1\tB³ P\tR\tF1\t")
	for i, s := range rows {
		split, method := "1–35 (dev)", "grouping"
		if i >= 2 {
			split = "36–45 (test)"
		}
		if i%2 == 1 {
			method = baseline
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", split, method, s.Articles, s.Events, s.StoriesMean,
			s.P, s.R, s.F1, s.B3P, s.B3R, s.B3F1)
	}
	return tw.Flush()
}

// addScores adds w times b's figures to a (for means over seeds).
func addScores(a, b scores, w float64) scores {
	a.Articles, a.Events = b.Articles, b.Events
	a.StoriesMean += w * float64(b.Stories)
	a.P += w * b.P
	a.R += w * b.R
	a.F1 += w * b.F1
	a.B3P += w * b.B3P
	a.B3R += w * b.B3R
	a.B3F1 += w * b.B3F1
	return a
}

// sweepDev prints the development topics' figures over a grid of
// options, two runs at a time.
func sweepDev(out io.Writer, st stream, su setup, lateJoins bool, ths, margins, merges string) error {
	dev := func(i int) bool { return st.Articles[i].Topic <= lastDevTopic }
	profiles := profilesOf(st)
	baseTh, best, sim := tuneBaseline(st, dev)
	baseDev := score(st.Articles, assign(st, best, sim, baseTh), dev)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	var grid []stories.GroupOptions
	for _, th := range floats(ths) {
		for _, mg := range floats(margins) {
			for _, up := range floats(merges) {
				grid = append(grid, stories.GroupOptions{Threshold: th, SizeMargin: mg, MergeThreshold: min(1, th+up), LateJoins: lateJoins})
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
			story, err := groupProfiles(st, profiles, su, grid[i])
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

// setup is how grouping runs beside its options: the background counted
// in the document frequencies first (-background).
type setup struct {
	background []stories.Profile
}

// groupProfiles runs grouping over the stream's polls, one Place per
// poll as a save does, and returns each article's story at the end
// (merges followed).
func groupProfiles(st stream, profiles []stories.Profile, su setup, opts stories.GroupOptions) ([]int64, error) {
	mem, err := stories.NewMemGroups(opts)
	if err != nil {
		return nil, err
	}
	mem.Count(1, su.background)
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

// loadBackground reads the profiles of the .txt files of dir.
func loadBackground(dir string) ([]stories.Profile, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, fmt.Errorf("-background %s: %w", dir, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("-background %s: no .txt files", dir)
	}
	out := make([]stories.Profile, 0, len(names))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			return nil, fmt.Errorf("-background: %w", err)
		}
		out = append(out, stories.NewProfile("", string(b)))
	}
	return out, nil
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
