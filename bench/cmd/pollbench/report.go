package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/feedpoller/feedpoller/store"
)

// writeReport prints the results as Markdown tables: every round, then how
// each figure grows from the smallest to the largest size; an error when
// they could not be written.
func writeReport(out io.Writer, cfg config, variants []variant, rs []result, stored []storage) error {
	var sb strings.Builder
	w := &sb
	fmt.Fprintf(w, "\n%d items per feed, ~%d B of HTML each, %.0f%% of feeds changing, %d new per changed poll, %s text; workers %s, batch %s\n\n",
		cfg.items, cfg.body, cfg.change*100, cfg.newItems, cfg.text, orDefault(cfg.workers), orDefault(cfg.batchSize))
	fmt.Fprintln(w, "| variant | db | pool | daemons | sources | round | polls | wall s | polls/s | daemon CPU s /1k polls | db CPU s /1k polls | server statements ms/poll | lag p50 s | lag p99 s | hist p50/p99 s | inserts/s | rows written/s | new articles | promoted | RSS MB | peak RSS MB | new PG sessions | outcomes |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range rs {
		incomplete := ""
		if !r.Complete {
			incomplete = fmt.Sprintf(" (incomplete: %d/%d)", r.Polls, r.Expected)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %s | %d | %.1f | %.1f | %.2f | %s | %s | %.2f | %.2f | %s/%s | %.0f | %.0f | %d | %d | %.0f | %.0f | %s | %s%s |\n",
			r.Variant, r.DB, r.Pool, r.Replicas, r.Sources, r.Round, r.Polls, r.WallS, r.PollsPS, r.DaemonCPUPer1k, dbCPU(r),
			serverMS(r), r.LagP50, r.LagP99, num(r.HistP50), num(r.HistP99), r.InsertsPS, r.WritesPS, r.ArticlesNew, r.Promoted,
			r.RSSMB, r.PeakRSSMB, sessions(r), outcomes(r.Outcomes), incomplete)
	}
	writeVariants(w, cfg, variants, rs)
	writeStorage(w, variants, stored)
	writeRelations(w, variants, stored)
	writeReplicas(w, cfg, variants[0].label(), rs)
	if len(cfg.sizes) < 2 || len(cfg.replicas) > 1 || len(variants) > 1 {
		_, err := io.WriteString(out, sb.String())
		return err
	}
	small, large := cfg.sizes[0], cfg.sizes[len(cfg.sizes)-1]
	fmt.Fprintf(w, "\nGrowth from %d to %d sources (×%.0f sources): large ÷ small\n\n", small, large, float64(large)/float64(small))
	fmt.Fprintln(w, "| db | pool | round | polls/s | daemon CPU /1k polls | lag p50 | lag p99 | rows written/s | peak RSS |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|")
	for _, db := range cfg.dbs {
		for _, pool := range cfg.pools {
			for _, round := range cfg.rounds {
				a, okA := find(rs, variants[0].label(), db, pool.name, 1, small, round)
				b, okB := find(rs, variants[0].label(), db, pool.name, 1, large, round)
				if !okA || !okB {
					continue
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", db, pool.name, round,
					ratio(b.PollsPS, a.PollsPS), ratio(b.DaemonCPUPer1k, a.DaemonCPUPer1k), ratio(b.LagP50, a.LagP50),
					ratio(b.LagP99, a.LagP99), ratio(b.WritesPS, a.WritesPS), ratio(b.PeakRSSMB, a.PeakRSSMB))
			}
		}
	}
	_, err := io.WriteString(out, sb.String())
	return err
}

// writeReplicas compares the runs with several daemons on one database
// against the one-daemon run of the same size and round: throughput, CPU
// per poll (daemons and PostgreSQL together), and double polls.
func writeReplicas(w io.Writer, cfg config, ref string, rs []result) {
	if len(cfg.replicas) < 2 {
		return
	}
	fmt.Fprintf(w, "\nReplicas on one PostgreSQL database (CPU per 1 000 polls: all daemons + PostgreSQL; ÷ 1: against one daemon; double polls: sources with two poll_runs rows in the round / feeds the farm served twice)\n\n")
	fmt.Fprintln(w, "| sources | round | daemons | polls | polls/s | × 1 | lag p50 s | lag p99 s | daemons CPU s /1k | db CPU s /1k | total CPU s /1k | ÷ 1 | double polls | polls per daemon |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
	for _, n := range cfg.sizes {
		for _, round := range cfg.rounds {
			one, ok := find(rs, ref, store.Postgres, cfg.pools[0].name, 1, n, round)
			for _, reps := range cfg.replicas {
				r, found := find(rs, ref, store.Postgres, cfg.pools[0].name, reps, n, round)
				if !found {
					continue
				}
				scale, cpu := "–", "–"
				total := r.DaemonCPUPer1k + r.DBCPUPer1k
				if ok {
					scale = ratio(r.PollsPS, one.PollsPS)
					cpu = ratio(total, one.DaemonCPUPer1k+one.DBCPUPer1k)
				}
				fmt.Fprintf(w, "| %d | %s | %d | %d | %.1f | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %d / %d | %s |\n",
					n, round, reps, r.Polls, r.PollsPS, scale, r.LagP50, r.LagP99, r.DaemonCPUPer1k, r.DBCPUPer1k, total, cpu,
					r.DoublePolls, r.FarmDoubles, strings.Trim(fmt.Sprint(r.PerDaemon), "[]"))
			}
		}
	}
}

func find(rs []result, variant, db, pool string, replicas, n int, round string) (result, bool) {
	for _, r := range rs {
		if r.Variant == variant && r.DB == db && r.Pool == pool && r.Replicas == replicas && r.Sources == n && r.Round == round && r.Rep == 0 {
			return r, true
		}
	}
	return result{}, false
}

func ratio(a, b float64) string {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

func num(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.2f", x)
}

// writeVariants compares the variants round by round: CPU per poll of
// the daemons and, on PostgreSQL, of the server, and the reference
// variant's (the first) total over each other variant's, paired by
// repetition of the round, as a range.
func writeVariants(w io.Writer, cfg config, variants []variant, rs []result) {
	if len(variants) < 2 {
		return
	}
	ref := variants[0].label()
	fmt.Fprintf(w, "\nSide by side, interleaved (CPU ms per poll: daemon + PostgreSQL's processes; a range over the repetitions of a round; %s ÷ variant pairs the totals of the same repetition)\n\n", ref)
	fmt.Fprintf(w, "| db | sources | round | variant | runs | daemon ms/poll | db ms/poll | server statements ms/poll | total ms/poll | %s ÷ variant | peak RSS MB |\n", ref)
	fmt.Fprintln(w, "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|")
	var rounds []string
	for _, name := range cfg.rounds {
		if !slices.Contains(rounds, name) {
			rounds = append(rounds, name)
		}
	}
	for _, db := range cfg.dbs {
		for _, n := range cfg.sizes {
			for _, round := range rounds {
				refRuns := pick(rs, db, n, round, ref)
				for _, v := range variants {
					runs := pick(rs, db, n, round, v.label())
					if len(runs) == 0 {
						continue
					}
					var daemon, dbms, server, total, ratios []float64
					peak := 0.0
					for i, r := range runs {
						daemon = append(daemon, r.DaemonCPUPer1k)
						dbms = append(dbms, r.DBCPUPer1k)
						server = append(server, r.ServerMSPerPoll)
						total = append(total, r.DaemonCPUPer1k+r.DBCPUPer1k)
						peak = max(peak, r.PeakRSSMB)
						if v.label() != ref && i < len(refRuns) && r.DaemonCPUPer1k+r.DBCPUPer1k > 0 {
							ratios = append(ratios, (refRuns[i].DaemonCPUPer1k+refRuns[i].DBCPUPer1k)/(r.DaemonCPUPer1k+r.DBCPUPer1k))
						}
					}
					ratio := "–"
					if len(ratios) > 0 {
						ratio = span(ratios, "%.2f") + "×"
					}
					dbCol, serverCol := span(dbms, "%.2f"), span(server, "%.2f")
					if db != store.Postgres {
						dbCol, serverCol = "(in daemon)", "–"
					}
					fmt.Fprintf(w, "| %s | %d | %s | %s | %d | %s | %s | %s | %s | %s | %.0f |\n", db, n, round, v.label(), len(runs),
						span(daemon, "%.2f"), dbCol, serverCol, span(total, "%.2f"), ratio, peak)
				}
			}
		}
	}
}

// pick is the complete rounds named round of one variant, in order of
// repetition.
func pick(rs []result, db string, n int, round, variant string) []result {
	var out []result
	for _, r := range rs {
		if r.DB == db && r.Sources == n && r.Round == round && r.Variant == variant && r.Complete {
			out = append(out, r)
		}
	}
	return out
}

// span prints the lowest and highest of xs ("a–b"), or the one value.
func span(xs []float64, format string) string {
	if len(xs) == 0 {
		return "–"
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	if fmt.Sprintf(format, lo) == fmt.Sprintf(format, hi) {
		return fmt.Sprintf(format, lo)
	}
	return fmt.Sprintf(format+"–"+format, lo, hi)
}

// writeStorage prints the bytes each variant stored per article: the
// whole database, the articles' own tables, and the largest tables.
func writeStorage(w io.Writer, variants []variant, stored []storage) {
	if len(stored) == 0 {
		return
	}
	ref := variants[0].label()
	fmt.Fprintf(w, "\nStored bytes per article at the end (tables with their indexes, TOAST and full-text index; %s ÷ variant on the articles' tables)\n\n", ref)
	fmt.Fprintf(w, "| db | sources | variant | articles | B/article, whole database | B/article, articles' tables | %s ÷ variant | largest tables, B/article |\n", ref)
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|---|")
	for _, s := range stored {
		ratio := "–"
		for _, o := range stored {
			if o.Variant == ref && o.DB == s.DB && o.Sources == s.Sources && s.Variant != ref && s.ArticlePerArticle() > 0 {
				ratio = fmt.Sprintf("%.2f×", o.ArticlePerArticle()/s.ArticlePerArticle())
			}
		}
		var tables []string
		for _, t := range s.bySize() {
			if len(tables) == 6 || s.Articles == 0 {
				break
			}
			tables = append(tables, fmt.Sprintf("%s %.0f", t, float64(s.Tables[t])/float64(s.Articles)))
		}
		fmt.Fprintf(w, "| %s | %d | %s | %d | %.0f | %.0f | %s | %s |\n", s.DB, s.Sources, s.Variant, s.Articles,
			s.PerArticle(), s.ArticlePerArticle(), ratio, strings.Join(tables, ", "))
	}
}

func serverMS(r result) string {
	if r.DB != store.Postgres {
		return "–"
	}
	return fmt.Sprintf("%.2f", r.ServerMSPerPoll)
}

func dbCPU(r result) string {
	if r.DB != "postgres" {
		return "(in daemon)"
	}
	return fmt.Sprintf("%.2f", r.DBCPUPer1k)
}

func sessions(r result) string {
	if r.NewSessions < 0 {
		return "–"
	}
	return fmt.Sprint(r.NewSessions)
}

func orDefault(n int) string {
	if n <= 0 {
		return "default"
	}
	return fmt.Sprint(n)
}

func outcomes(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// writeRelations prints, for each database and size measured with
// -relations, the bytes per article of each relation of the articles'
// tables in every variant, largest first in the first, and the first
// variant's ÷ each other's.
func writeRelations(w io.Writer, variants []variant, stored []storage) {
	type group struct {
		db      string
		sources int
	}
	var groups []group
	byGroup := map[group][]storage{}
	for _, s := range stored {
		if s.Relations == nil {
			continue
		}
		g := group{s.DB, s.Sources}
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], s)
	}
	ref := variants[0].label()
	for _, g := range groups {
		ss := byGroup[g]
		// The first variant's order; relations only the others have last.
		slices.SortStableFunc(ss, func(a, b storage) int {
			return cmpBool(a.Variant != ref, b.Variant != ref)
		})
		seen := map[string]bool{}
		var names []string
		for _, s := range ss {
			var own []string
			for n := range s.Relations {
				if !seen[n] {
					seen[n] = true
					own = append(own, n)
				}
			}
			slices.SortFunc(own, func(a, b string) int {
				if c := cmp.Compare(s.Relations[b], s.Relations[a]); c != 0 {
					return c
				}
				return strings.Compare(a, b)
			})
			names = append(names, own...)
		}
		fmt.Fprintf(w, "\nBytes per article by relation, %s, %d sources (%s ÷ variant)\n\n| relation |", g.db, g.sources, ref)
		for _, s := range ss {
			fmt.Fprintf(w, " %s |", s.Variant)
		}
		for _, s := range ss[1:] {
			fmt.Fprintf(w, " ÷ %s |", s.Variant)
		}
		fmt.Fprint(w, "\n|---|")
		fmt.Fprint(w, strings.Repeat("---:|", 2*len(ss)-1))
		fmt.Fprintln(w)
		for _, n := range names {
			fmt.Fprintf(w, "| %s |", n)
			for _, s := range ss {
				fmt.Fprintf(w, " %s |", perArticle(s, n))
			}
			for _, s := range ss[1:] {
				b, okB := s.Relations[n]
				a, okA := ss[0].Relations[n]
				if !okA || !okB || b == 0 || s.Articles == 0 || ss[0].Articles == 0 {
					fmt.Fprint(w, " – |")
					continue
				}
				fmt.Fprintf(w, " %.2f× |", (float64(a)/float64(ss[0].Articles))/(float64(b)/float64(s.Articles)))
			}
			fmt.Fprintln(w)
		}
	}
}

// perArticle is the bytes per article of relation n in s, "–" where s
// has no such relation.
func perArticle(s storage, n string) string {
	b, ok := s.Relations[n]
	if !ok || s.Articles == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", float64(b)/float64(s.Articles))
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}
