package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

func TestServesUntilCancelledAndPrintsBaseURL(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-listen", "127.0.0.1:0", "-feeds", "10", "-items", "3", "-body", "500", "-change", "0.5", "-format", "atom"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("read base URL: %v", err)
	}
	base := strings.TrimSpace(line)
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line %q is not a loopback base URL", base)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }() // nothing else is expected, but never block the server

	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(base + "/feed/9.xml")
	if err != nil {
		t.Fatalf("GET feed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/atom+xml") {
		t.Errorf("feed 9: status %d, type %q; want 200 Atom", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp, err := client.Get(base + "/feed/10.xml"); err != nil || resp.StatusCode != 404 {
		t.Errorf("feed 10 of 10 should not exist: %v %v", resp, err)
	}
	resp, err = client.Get(base + "/_stats")
	if err != nil {
		t.Fatalf("GET stats: %v", err)
	}
	var s feedfarm.Stats
	err = json.NewDecoder(resp.Body).Decode(&s)
	resp.Body.Close()
	if err != nil || len(s.Feeds) != 10 || s.Feeds[9].Requests != 1 {
		t.Fatalf("stats %+v, %v; want 10 feeds, feed 9 requested once", s, err)
	}
	changing := 0
	for _, f := range s.Feeds {
		if f.Changing {
			changing++
		}
	}
	if changing != 5 {
		t.Errorf("%d changing feeds, want 5 (-change 0.5 of 10)", changing)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its context ended")
	}
	if _, err := client.Get(base + "/feed/0.xml"); err == nil {
		t.Error("farm still answers after shutdown")
	}
}

func TestRefusesNonLoopback(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:0", "10.0.0.1:8080"} {
		err := run(context.Background(), []string{"-listen", listen}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "allow-external") {
			t.Errorf("-listen %s: err %v, want a refusal naming -allow-external", listen, err)
		}
	}
}

func TestRejectsBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-feeds", "0"}, {"-items", "-1"}, {"-body", "0"}, {"-change", "1.5"}, {"-change", "NaN"},
		{"-latency", "-1s"}, {"-format", "json"}, {"-text", "lorem"}, {"-spread", "-1h"}, {"stray"}, {"-nope"},
	} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestTextFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want feedfarm.Text
	}{
		{nil, feedfarm.TextUniform},
		{[]string{"-text", "uniform"}, feedfarm.TextUniform},
		{[]string{"-text", "news"}, feedfarm.TextNews},
	} {
		cfg, err := parseFlags(tc.args, io.Discard)
		if err != nil || cfg.opts.Text != tc.want {
			t.Errorf("%v: text %v, err %v; want %v", tc.args, cfg.opts.Text, err, tc.want)
		}
	}
}
