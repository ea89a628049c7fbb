package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// fileResult is what one corpus file came to.
type fileResult struct {
	File      string         `json:"file"`
	Refused   string         `json:"refused,omitempty"` // the validation error of a file that is not added
	Status    string         `json:"status,omitempty"`  // poll outcome
	HTTP      int            `json:"http_status,omitempty"`
	PollError string         `json:"poll_error,omitempty"`
	Reference int            `json:"reference_items"` // gofeed's own count, -1 when gofeed fails
	Seen      int            `json:"parsed"`
	New       int            `json:"new"`
	Duplicate int            `json:"duplicate"`
	Stored    int            `json:"stored"`
	Skipped   map[string]int `json:"skipped,omitempty"`
	Markup    []string       `json:"markup,omitempty"` // titles, source titles and authors with tags or entities
	FFFD      []string       `json:"fffd,omitempty"`   // stored text with U+FFFD the file did not have
	Empty     []string       `json:"empty,omitempty"`  // empty bodies of items that had text or an image
	Unjudged  int            `json:"unjudged,omitempty"`
	// Again is the second poll of the unchanged file: it must store
	// nothing and see what the first saw; Unchanged counts the entries it
	// left unparsed, settled by the first.
	Again *secondPoll `json:"again,omitempty"`

	sourceID int64
}

// secondPoll is what polling a file a second time gave.
type secondPoll struct {
	Status    string `json:"status"`
	Seen      int    `json:"parsed"`
	New       int    `json:"new"`
	Unchanged int    `json:"unchanged"`
}

// pollCorpus adds and polls every file, then reads what was stored.
func pollCorpus(ctx context.Context, c config, files []string, work string, progress io.Writer) ([]*fileResult, error) {
	fsrv, err := startFileServer(c.dir)
	if err != nil {
		return nil, err
	}
	defer fsrv.close()
	d, err := startDaemon(ctx, c.bin, work)
	if err != nil {
		return nil, err
	}
	results := make([]*fileResult, len(files))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	done := 0
	for w := 0; w < c.parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r, err := pollFile(ctx, d, i, files[i], fsrv.urlOf(files[i]))
				mu.Lock()
				results[i] = r
				if err != nil && firstErr == nil {
					firstErr = err
				}
				done++
				if done%200 == 0 {
					fmt.Fprintf(progress, "%d/%d files polled\n", done, len(files))
				}
				mu.Unlock()
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	d.stop()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	bySource := map[int64]*fileResult{}
	for _, r := range results {
		if r.sourceID != 0 {
			bySource[r.sourceID] = r
		}
	}
	if err := readSkips(d.logPth, bySource); err != nil {
		return nil, err
	}
	if err := judgeStored(c.dir, d.dbPath, results, bySource); err != nil {
		return nil, err
	}
	return results, nil
}

// pollFile adds one file as an inactive source of a workspace of its own
// (so no other file's articles deduplicate it) and polls it twice: the
// file server sends no validators, so the second poll reads the same
// document again.
func pollFile(ctx context.Context, d *daemon, i int, rel, url string) (*fileResult, error) {
	r := &fileResult{File: rel, Reference: -1}
	var ws struct {
		ID int64 `json:"id"`
	}
	if _, msg, err := d.call(ctx, "POST", "/workspaces", map[string]any{"name": fmt.Sprintf("corpus %d", i)}, &ws); err != nil || msg != "" {
		return r, fmt.Errorf("create workspace for %s: %w %s", rel, err, msg)
	}
	var src struct {
		ID int64 `json:"id"`
	}
	// Inactive: the scheduler leaves it alone, the poll below claims it.
	status, msg, err := d.call(ctx, "POST", fmt.Sprintf("/workspaces/%d/sources", ws.ID),
		map[string]any{"url": url, "is_active": false, "polling_interval_minutes": 43200}, &src)
	if err != nil {
		return r, err
	}
	if status == 400 {
		r.Refused = oneLine(msg)
		return r, nil
	}
	if msg != "" {
		return r, fmt.Errorf("add %s: HTTP %d %s", rel, status, msg)
	}
	r.sourceID = src.ID
	type outcome struct {
		Status         string `json:"status"`
		HTTPStatus     int    `json:"http_status"`
		ItemsSeen      int    `json:"items_seen"`
		ItemsNew       int    `json:"items_new"`
		ItemsDuplicate int    `json:"items_duplicate"`
		ItemsUnchanged int    `json:"items_unchanged"`
		Error          string `json:"error"`
	}
	poll := func() (outcome, error) {
		var out outcome
		if _, msg, err := d.call(ctx, "POST", fmt.Sprintf("/workspaces/%d/sources/%d/poll", ws.ID, src.ID), nil, &out); err != nil || msg != "" {
			return out, fmt.Errorf("poll %s: %w %s", rel, err, msg)
		}
		return out, nil
	}
	out, err := poll()
	if err != nil {
		return r, err
	}
	r.Status, r.HTTP, r.PollError = out.Status, out.HTTPStatus, oneLine(out.Error)
	r.Seen, r.New, r.Duplicate = out.ItemsSeen, out.ItemsNew, out.ItemsDuplicate
	again, err := poll()
	if err != nil {
		return r, err
	}
	r.Again = &secondPoll{Status: again.Status, Seen: again.ItemsSeen, New: again.ItemsNew, Unchanged: again.ItemsUnchanged}
	return r, nil
}

// readSkips collects the reasons the daemon logged for items it did not
// store ("item skipped: …" at debug level) in each source's first poll:
// the lines of a source that follow its first "poll" line are its second
// poll's.
func readSkips(logPath string, bySource map[int64]*fileResult) error {
	f, err := os.Open(logPath)
	if err != nil {
		return err
	}
	defer f.Close() //nolint:errcheck // read only: the scanner's error is the one that matters
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	polled := map[int64]bool{}
	for sc.Scan() {
		line := sc.Bytes()
		if !strings.Contains(string(line), "item skipped") && !strings.Contains(string(line), `"msg":"poll"`) {
			continue
		}
		var rec struct {
			Msg      string `json:"msg"`
			SourceID int64  `json:"source_id"`
			Link     string `json:"link"`
		}
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		r := bySource[rec.SourceID]
		if r == nil || polled[rec.SourceID] {
			continue
		}
		if rec.Msg == "poll" {
			polled[rec.SourceID] = true
			continue
		}
		reason := strings.TrimPrefix(rec.Msg, "item skipped: ")
		if strings.Contains(reason, "unusable link") && strings.TrimSpace(rec.Link) == "" {
			reason += " (none)"
		}
		if r.Skipped == nil {
			r.Skipped = map[string]int{}
		}
		r.Skipped[reason]++
	}
	return sc.Err()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}
