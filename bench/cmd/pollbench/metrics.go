package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// histogram is a cumulative Prometheus histogram: counts[i] observations
// were at most bounds[i]; the last bound is +Inf.
type histogram struct {
	bounds []float64
	counts []float64
}

// parseHistogram finds name's buckets in Prometheus text exposition.
func parseHistogram(r io.Reader, name string) (histogram, error) {
	type bucket struct{ le, n float64 }
	var bs []bucket
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	prefix := name + "_bucket{"
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		labels, value, ok := strings.Cut(line[len(prefix):], "} ")
		if !ok {
			continue
		}
		le := ""
		for _, l := range strings.Split(labels, ",") {
			if v, ok := strings.CutPrefix(l, `le="`); ok {
				le = strings.TrimSuffix(v, `"`)
			}
		}
		bound, err := strconv.ParseFloat(le, 64)
		if le == "+Inf" {
			bound, err = math.Inf(1), nil
		}
		n, err2 := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || err2 != nil {
			return histogram{}, fmt.Errorf("bad bucket line %q", line)
		}
		bs = append(bs, bucket{bound, n})
	}
	if err := sc.Err(); err != nil {
		return histogram{}, err
	}
	if len(bs) == 0 {
		return histogram{}, fmt.Errorf("no %s buckets", name)
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].le < bs[j].le })
	var h histogram
	for _, b := range bs {
		h.bounds = append(h.bounds, b.le)
		h.counts = append(h.counts, b.n)
	}
	return h, nil
}

// minus is the histogram of the observations made between o and h.
func (h histogram) minus(o histogram) histogram {
	d := histogram{bounds: h.bounds, counts: make([]float64, len(h.counts))}
	for i := range h.counts {
		d.counts[i] = h.counts[i]
		if i < len(o.counts) {
			d.counts[i] -= o.counts[i]
		}
	}
	return d
}

// quantile interpolates linearly inside the bucket, as PromQL's
// histogram_quantile does; a quantile in the +Inf bucket is the highest
// finite bound. NaN when empty.
func (h histogram) quantile(q float64) float64 {
	if len(h.counts) == 0 {
		return math.NaN()
	}
	total := h.counts[len(h.counts)-1]
	if total <= 0 {
		return math.NaN()
	}
	rank := q * total
	lower, prev := 0.0, 0.0
	for i, c := range h.counts {
		if c >= rank {
			if math.IsInf(h.bounds[i], 1) {
				return lower
			}
			if c == prev {
				return h.bounds[i]
			}
			return lower + (h.bounds[i]-lower)*(rank-prev)/(c-prev)
		}
		lower, prev = h.bounds[i], c
	}
	return lower
}

// scrapeHistogram reads one histogram from a /metrics endpoint.
func scrapeHistogram(ctx context.Context, url, name string) (histogram, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return histogram{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return histogram{}, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return histogram{}, fmt.Errorf("scrape %s: status %d", url, resp.StatusCode)
	}
	return parseHistogram(resp.Body, name)
}
