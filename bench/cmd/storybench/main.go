// Command storybench measures story grouping on ECB+, a public corpus of
// news articles labelled by the event they report (CC BY 3.0; see
// bench/README.md for where to get it). It draws a week of reporting
// times and outlet polls for the articles (see stream.go), runs grouping
// online over the polls in the order the daemon would see them, through
// the same code the daemon runs (stories.Group with the in-memory
// storage), and prints pairwise and B³ precision, recall and F1 for the
// development topics 1–35 and the test topics 36–45, beside a plain
// TF-IDF cosine baseline whose threshold is tuned on topics 1–35.
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
	"text/tabwriter"

	"github.com/feedpoller/feedpoller/analysis/stories"
)

// devTopics are the topics that may be tuned on; the rest are the test
// split, reported and never tuned on.
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
	threshold := fs.Float64("threshold", 0, "grouping threshold (0: the default)")
	merge := fs.Float64("merge", 0, "merge threshold (0: the default)")
	sweep := fs.Bool("sweep", false, "print development-topic figures over a range of thresholds, and nothing of the test topics")
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

	window := int64(stories.DefaultWindow.Seconds())
	best, sim := newBaseline().nearest(st, window)
	baseTh, baseDev := 0.0, scores{}
	for th := 0.02; th < 1; th += 0.01 {
		if s := score(st.Articles, assign(st, best, sim, th), dev); s.F1 > baseDev.F1 {
			baseTh, baseDev = th, s
		}
	}

	if *sweep {
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "threshold\tmerge\tP\tR\tF1\tB3 P\tB3 R\tB3 F1\tstories\t")
		for th := 0.10; th <= 0.601; th += 0.02 {
			for _, mg := range []float64{th + 0.05, th + 0.10, th + 0.20, 1} {
				if mg > 1 {
					continue
				}
				story, err := group(st, stories.GroupOptions{Threshold: th, MergeThreshold: mg})
				if err != nil {
					return err
				}
				s := score(st.Articles, story, dev)
				fmt.Fprintf(tw, "%.2f\t%.2f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t\n", th, mg, s.P, s.R, s.F1, s.B3P, s.B3R, s.B3F1, s.Stories)
			}
		}
		fmt.Fprintf(tw, "baseline %.2f\t\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t\n", baseTh, baseDev.P, baseDev.R, baseDev.F1, baseDev.B3P, baseDev.B3R, baseDev.B3F1, baseDev.Stories)
		return tw.Flush()
	}

	story, err := group(st, stories.GroupOptions{Threshold: *threshold, MergeThreshold: *merge})
	if err != nil {
		return err
	}
	baseStory := assign(st, best, sim, baseTh)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "topics\tmethod\tarticles\tevents\tstories\tpairwise P\tR\tF1\tB3 P\tR\tF1\t")
	for _, split := range []struct {
		name string
		in   func(int) bool
	}{{"1-35 (dev)", dev}, {"36-45 (test)", test}} {
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

// group runs grouping over the stream's polls and returns each article's
// story at the end (merges followed).
func group(st stream, opts stories.GroupOptions) ([]int64, error) {
	mem, err := stories.NewMemGroups(opts)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	ids := make([]int64, len(st.Articles))
	for _, p := range st.Polls {
		arrivals := make([]stories.Arrival, len(p.Articles))
		for k, i := range p.Articles {
			a := st.Articles[i]
			arrivals[k] = stories.Arrival{Profile: stories.NewProfile(a.Title, a.Body), At: a.ReportedAt}
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

func countOutlets(st stream) int {
	m := map[string]bool{}
	for _, a := range st.Articles {
		m[a.Outlet] = true
	}
	return len(m)
}
