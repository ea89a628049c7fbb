package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
)

// Cross-validation over sites. The evaluator's per-page scores (its -out
// JSON) carry each page's site; sites, not pages, are dealt into folds by
// a hash of their name, so the two pages most sites have (one template)
// never sit on both sides. For a fixed extractor the held-out scores only
// say how much the figure moves between groups of sites. For an extractor
// with settings to choose (the variants of predict.go, scored under names
// that start with the -choose prefix), each fold gets the variant that
// scores best on the other folds, and the table reports what that choice
// gives on the fold it never saw: the figure to expect on new sites.

// pageScore is one page's result in the evaluator's JSON.
type pageScore struct {
	ID        string  `json:"id"`
	Site      string  `json:"site"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	TP        float64 `json:"tp"`
	FP        float64 `json:"fp"`
	Truth     int     `json:"truth_tokens"`
}

type system struct {
	Name  string      `json:"name"`
	Pages []pageScore `json:"page_results"`
}

func cvCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("cv", flag.ContinueOnError)
	folds := fs.Int("folds", 5, "number of site folds")
	choose := fs.String("choose", "feedpoller", "systems named PREFIX-VARIANT are one extractor's settings, chosen per fold")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var systems []system
	for _, f := range fs.Args() {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var s []system
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		systems = append(systems, s...)
	}
	if len(systems) == 0 || *folds < 2 {
		return fmt.Errorf("need score files and at least 2 folds")
	}
	t := crossValidate(systems, *folds, *choose+"-")
	t.write(w)
	return nil
}

// foldOf deals a site into one of k folds.
func foldOf(site string, k int) int {
	h := sha256.Sum256([]byte("feedpoller-cv/" + site))
	return int(binary.BigEndian.Uint64(h[:8]) % uint64(k))
}

// aggregate is the benchmark's own aggregation: precision averaged over
// pages with a non-empty prediction, recall over pages with a non-empty
// truth, F1 of the two means.
type aggregate struct{ P, R, F1 float64 }

func aggregateOf(pages []pageScore) aggregate {
	var ps, rs float64
	var np, nr int
	for _, p := range pages {
		if p.TP+p.FP > 0 {
			ps += p.Precision
			np++
		}
		if p.Truth > 0 {
			rs += p.Recall
			nr++
		}
	}
	var a aggregate
	if np > 0 {
		a.P = ps / float64(np)
	}
	if nr > 0 {
		a.R = rs / float64(nr)
	}
	if a.P+a.R > 0 {
		a.F1 = 2 * a.P * a.R / (a.P + a.R)
	}
	return a
}

type cvRow struct {
	name    string
	perFold []aggregate
	pooled  aggregate // all held-out pages together
	chosen  []string  // per fold, for a chosen extractor
}

type cvTable struct {
	folds     int
	foldSizes []int // pages
	foldSites []int
	rows      []cvRow
}

func crossValidate(systems []system, k int, prefix string) cvTable {
	t := cvTable{folds: k, foldSizes: make([]int, k), foldSites: make([]int, k)}
	sites := map[string]bool{}
	for _, p := range systems[0].Pages {
		t.foldSizes[foldOf(p.Site, k)]++
		if !sites[p.Site] {
			sites[p.Site] = true
			t.foldSites[foldOf(p.Site, k)]++
		}
	}
	split := func(pages []pageScore, f int) (in, out []pageScore) {
		for _, p := range pages {
			if foldOf(p.Site, k) == f {
				in = append(in, p)
			} else {
				out = append(out, p)
			}
		}
		return in, out
	}
	var variants []system
	for _, s := range systems {
		row := cvRow{name: s.Name}
		var held []pageScore
		for f := range k {
			in, _ := split(s.Pages, f)
			row.perFold = append(row.perFold, aggregateOf(in))
			held = append(held, in...)
		}
		row.pooled = aggregateOf(held)
		t.rows = append(t.rows, row)
		if strings.HasPrefix(s.Name, prefix) {
			variants = append(variants, s)
		}
	}
	if len(variants) > 1 {
		row := cvRow{name: strings.TrimSuffix(prefix, "-") + " (setting chosen on the other folds)"}
		var held []pageScore
		for f := range k {
			best, bestF1 := 0, -1.0
			for i, v := range variants {
				_, train := split(v.Pages, f)
				if a := aggregateOf(train); a.F1 > bestF1 {
					best, bestF1 = i, a.F1
				}
			}
			in, _ := split(variants[best].Pages, f)
			row.perFold = append(row.perFold, aggregateOf(in))
			row.chosen = append(row.chosen, strings.TrimPrefix(variants[best].Name, prefix))
			held = append(held, in...)
		}
		row.pooled = aggregateOf(held)
		t.rows = append(t.rows, row)
	}
	return t
}

func (t cvTable) write(w io.Writer) {
	fmt.Fprintf(w, "%d folds over sites; pages per fold %v, sites per fold %v\n\n", t.folds, t.foldSizes, t.foldSites)
	fmt.Fprintf(w, "| extractor | held-out F1 | precision | recall | F1 per fold (mean ± sd) | worst fold F1 |\n|---|---|---|---|---|---|\n")
	for _, r := range t.rows {
		var f1s []float64
		for _, a := range r.perFold {
			f1s = append(f1s, a.F1)
		}
		mean, sd := meanSD(f1s)
		fmt.Fprintf(w, "| %s | %.3f | %.3f | %.3f | %.3f ± %.3f | %.3f |\n", r.name, r.pooled.F1, r.pooled.P, r.pooled.R, mean, sd, slices.Min(f1s))
	}
	fmt.Fprintln(w)
	for _, r := range t.rows {
		fmt.Fprintf(w, "%s per fold:", r.name)
		for f, a := range r.perFold {
			fmt.Fprintf(w, " [%d] F1 %.3f P %.3f R %.3f", f, a.F1, a.P, a.R)
			if r.chosen != nil {
				fmt.Fprintf(w, " (%s)", r.chosen[f])
			}
		}
		fmt.Fprintln(w)
	}
}

func meanSD(xs []float64) (float64, float64) {
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sq / float64(len(xs)))
}
