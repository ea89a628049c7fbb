package mcp

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
	"github.com/feedpoller/feedpoller/store"
)

func TestMain(m *testing.M) { testdb.Main(m) }

// heldSearch is a store whose searches run until their context ends
// (or a guard long after the test's), counting those that started.
type heldSearch struct {
	*store.Store
	started   chan struct{}
	runs      atomic.Int32
	cancelled atomic.Int32
}

func (h *heldSearch) Search(ctx context.Context, _ int64, _ model.SearchFilter) ([]model.SearchHit, error) {
	h.runs.Add(1)
	h.started <- struct{}{}
	select {
	case <-ctx.Done():
		h.cancelled.Add(1)
		return nil, ctx.Err()
	case <-time.After(20 * time.Second):
		return nil, nil
	}
}

// newHeldServer serves /mcp over a store whose searches are held, with
// one workspace and an admin token.
func newHeldServer(t *testing.T) (*heldSearch, *httptest.Server) {
	t.Helper()
	st := testdb.Store(t, store.SQLite)
	if _, err := st.CreateWorkspace(context.Background(), "held", model.RelevanceProfile{}); err != nil {
		t.Fatal(err)
	}
	so := service.DefaultOptions()
	so.Store = st
	svc, err := service.New(so)
	if err != nil {
		t.Fatal(err)
	}
	held := &heldSearch{Store: st, started: make(chan struct{}, 16)}
	srv, err := New(Options{Store: held, Service: svc, AdminToken: "admin-secret"})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	return held, hs
}

const searchCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"alpha"}}}`

// postAndLeave posts body, waits until the first search started, then
// leaves (cancels the request).
func postAndLeave(t *testing.T, url, body string, held *heldSearch) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", url, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer admin-secret")
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-held.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the search never started")
	}
	cancel()
	<-done
}

// TestSearchStopsWhenTheClientLeaves: the work of a tool call ends when
// its HTTP client disconnects (the SDK runs handlers on a context the
// request's end does not cancel: a hostile search ran on for minutes
// after its client left).
func TestSearchStopsWhenTheClientLeaves(t *testing.T) {
	held, hs := newHeldServer(t)
	postAndLeave(t, hs.URL, fmt.Sprintf(searchCall, 1), held)
	hs.Close() // waits for the handlers
	if held.cancelled.Load() != 1 {
		t.Errorf("the search went on after its client left (cancelled %d of %d)", held.cancelled.Load(), held.runs.Load())
	}
}

// TestBatchStopsWhenTheClientLeaves: the calls of a batch whose client
// has left stop, every one of them (60 get_article calls of a batch ran
// for 150 s after the client had gone).
func TestBatchStopsWhenTheClientLeaves(t *testing.T) {
	held, hs := newHeldServer(t)
	calls := make([]string, MaxBatch)
	for i := range calls {
		calls[i] = fmt.Sprintf(searchCall, i+1)
	}
	postAndLeave(t, hs.URL, "["+strings.Join(calls, ",")+"]", held)
	hs.Close()
	if runs, cancelled := held.runs.Load(), held.cancelled.Load(); cancelled != runs || runs > MaxBatch {
		t.Errorf("%d calls of the batch ran, %d were stopped when the client left; want every one stopped", runs, cancelled)
	}
}
