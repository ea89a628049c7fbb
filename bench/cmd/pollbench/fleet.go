package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/feedpoller/feedpoller/bench/internal/proc"
)

// fleet is the daemons of one run: one, or several replicas sharing one
// PostgreSQL database, each a `feedpoller serve` of its own.
type fleet []*daemon

// startFleet starts n daemons on dc's database, each with its own
// address and log file.
func startFleet(ctx context.Context, dc daemonConfig, dir string, n int) (fleet, error) {
	var f fleet
	for i := range n {
		c := dc
		if n > 1 || c.listen == "" {
			addr, err := freeAddr()
			if err != nil {
				return nil, errors.Join(err, f.stop())
			}
			c.listen = addr
		}
		if n > 1 {
			c.logFile = filepath.Join(dir, fmt.Sprintf("feedpoller-%d.log", i+1))
		}
		d, err := startDaemon(ctx, c)
		if err != nil {
			return nil, errors.Join(err, f.stop())
		}
		f = append(f, d)
	}
	return f, nil
}

// stop stops every daemon, each gracefully, and joins their errors.
func (f fleet) stop() error {
	var errs []error
	for _, d := range f {
		errs = append(errs, d.stop())
	}
	return errors.Join(errs...)
}

// pause stops the daemons where they stand (SIGSTOP) while another
// variant's round runs: they use no CPU and send nothing to a database
// server the variants share. resume lets them go on (SIGCONT).
func (f fleet) pause() error { return f.signal(syscall.SIGSTOP) }

func (f fleet) resume() error { return f.signal(syscall.SIGCONT) }

func (f fleet) signal(sig syscall.Signal) error {
	var errs []error
	for _, d := range f {
		if err := d.cmd.Process.Signal(sig); err != nil {
			errs = append(errs, fmt.Errorf("signal daemon %d: %w", d.pid(), err))
		}
	}
	return errors.Join(errs...)
}

// cpu is the CPU the daemons have used, together.
func (f fleet) cpu() (time.Duration, error) {
	var total time.Duration
	for _, d := range f {
		c, err := proc.CPU(d.pid())
		if err != nil {
			return 0, err
		}
		total += c
	}
	return total, nil
}

// memory is the daemons' resident memory now, summed, and the highest
// peak of any one of them.
func (f fleet) memory() (memory, error) {
	var m memory
	for _, d := range f {
		dm, err := readMemory(d.pid())
		if err != nil {
			return m, err
		}
		m.rssKB += dm.rssKB
		m.hwmKB = max(m.hwmKB, dm.hwmKB)
	}
	return m, nil
}

// histogram is the named histogram summed over the daemons.
func (f fleet) histogram(ctx context.Context, name string) (histogram, error) {
	var sum histogram
	for _, d := range f {
		h, err := scrapeHistogram(ctx, d.base+"/metrics", name)
		if err != nil {
			return sum, err
		}
		if sum.bounds == nil {
			sum = histogram{bounds: h.bounds, counts: make([]float64, len(h.counts))}
		}
		for i := range sum.counts {
			if i < len(h.counts) {
				sum.counts[i] += h.counts[i]
			}
		}
	}
	return sum, nil
}

// polls is how many polls each daemon has recorded (feedpoller_polls_total
// over every label).
func (f fleet) polls(ctx context.Context) ([]float64, error) {
	out := make([]float64, len(f))
	for i, d := range f {
		n, err := scrapeCounter(ctx, d.base+"/metrics", "feedpoller_polls_total")
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

// scrapeCounter sums every series of a counter on a /metrics endpoint.
func scrapeCounter(ctx context.Context, url, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("scrape %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("scrape %s: status %d", url, resp.StatusCode)
	}
	return sumCounter(resp.Body, name)
}

// sumCounter adds up the samples of name in Prometheus text exposition.
func sumCounter(r io.Reader, name string) (float64, error) {
	var total float64
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest != "" && rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, fmt.Errorf("bad sample line %q", line)
		}
		total += v
	}
	return total, sc.Err()
}
