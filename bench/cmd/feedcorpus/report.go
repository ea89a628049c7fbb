package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// summary is one corpus's totals.
type summary struct {
	Files, Refused, Polled        int
	Reference, Parsed, Stored     int
	CountDiffers                  int // polled files whose parsed count is not gofeed's
	Skipped                       map[string]int
	Markup, FFFD, Empty, Unjudged int
	RefusedWhy                    map[string]int
	// AgainDiffers counts the files whose second poll stored something
	// or saw another count or outcome than the first; AgainUnchanged the
	// entries second polls left unparsed.
	AgainDiffers, AgainUnchanged int
}

func summarise(results []*fileResult) summary {
	s := summary{Skipped: map[string]int{}, RefusedWhy: map[string]int{}}
	for _, r := range results {
		s.Files++
		if r.Reference > 0 {
			s.Reference += r.Reference
		}
		if r.Refused != "" {
			s.Refused++
			s.RefusedWhy[refusalKind(r.Refused)]++
			continue
		}
		s.Polled++
		s.Parsed += r.Seen
		s.Stored += r.Stored
		if r.Reference >= 0 && r.Reference != r.Seen {
			s.CountDiffers++
		}
		for k, n := range r.Skipped {
			s.Skipped[k] += n
		}
		s.Markup += len(r.Markup)
		s.FFFD += len(r.FFFD)
		s.Empty += len(r.Empty)
		s.Unjudged += r.Unjudged
		if a := r.Again; a != nil {
			s.AgainUnchanged += a.Unchanged
			if a.New != 0 || a.Seen != r.Seen || a.Status != r.Status {
				s.AgainDiffers++
			}
		}
	}
	return s
}

// refusalKind shortens a validation error to its kind.
func refusalKind(msg string) string {
	msg = strings.TrimPrefix(msg, "feed validation failed: ")
	if i := strings.Index(msg, "not a feed: "); i >= 0 {
		msg = msg[i:]
	}
	if len(msg) > 60 {
		msg = msg[:60] + "…"
	}
	return msg
}

// writeReport prints one tab-separated line per file, findings indented
// under it when verbose, and reports a failed write.
func writeReport(out io.Writer, results []*fileResult, verbose bool) error {
	var b strings.Builder
	w := &b
	fmt.Fprintln(w, "file\treference\tparsed\tstored\tskipped\tmarkup\tfffd\tempty\toutcome\tsecond poll")
	for _, r := range results {
		outcome := r.Status
		if r.HTTP != 0 || r.Status != "" {
			outcome = fmt.Sprintf("%s http=%d", r.Status, r.HTTP)
		}
		if r.PollError != "" {
			outcome += " " + r.PollError
		}
		if r.Refused != "" {
			outcome = "refused: " + r.Refused
		}
		again := "-"
		if a := r.Again; a != nil {
			again = fmt.Sprintf("%s parsed=%d new=%d unchanged=%d", a.Status, a.Seen, a.New, a.Unchanged)
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%s\t%s\n", r.File, r.Reference, r.Seen, r.Stored,
			joinCounts(r.Skipped), len(r.Markup), len(r.FFFD), len(r.Empty), outcome, again)
		if verbose {
			for _, f := range r.Markup {
				fmt.Fprintln(w, "\tmarkup:", f)
			}
			for _, f := range r.FFFD {
				fmt.Fprintln(w, "\tU+FFFD:", f)
			}
			for _, f := range r.Empty {
				fmt.Fprintln(w, "\tempty body:", f)
			}
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}

func joinCounts(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, "; ")
}

func writeJSON(path string, results []*fileResult) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range results {
		if err := enc.Encode(r); err != nil {
			_ = f.Close() // the encoding error is the one to report
			return err
		}
	}
	return f.Close()
}

// writeSummary prints the corpus totals as a Markdown table row and the
// skip and refusal reasons below it.
func writeSummary(out io.Writer, name string, s summary) error {
	var b strings.Builder
	w := &b
	fmt.Fprintln(w, "| corpus | files | refused | polled | gofeed items | parsed | stored | count ≠ gofeed | skipped | markup in titles/authors | U+FFFD | empty bodies |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
	skipped := 0
	for _, n := range s.Skipped {
		skipped += n
	}
	fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", name, s.Files, s.Refused, s.Polled,
		s.Reference, s.Parsed, s.Stored, s.CountDiffers, skipped, s.Markup, s.FFFD, s.Empty)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "skipped:", joinCounts(s.Skipped))
	fmt.Fprintln(w, "refused:", joinCounts(s.RefusedWhy))
	if s.Unjudged > 0 {
		fmt.Fprintf(w, "empty bodies not matched to a file item (not judged): %d\n", s.Unjudged)
	}
	fmt.Fprintf(w, "second polls: %d entries left unparsed; %d files stored something or saw another count or outcome\n",
		s.AgainUnchanged, s.AgainDiffers)
	_, err := io.WriteString(out, b.String())
	return err
}
