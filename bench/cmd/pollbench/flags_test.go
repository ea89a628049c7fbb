package main

import (
	"io"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

func TestTextFlag(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    feedfarm.Text
		wantErr string
	}{
		{nil, feedfarm.TextUniform, ""},
		{[]string{"-text", "news"}, feedfarm.TextNews, ""},
		{[]string{"-text", "uniform"}, feedfarm.TextUniform, ""},
		{[]string{"-text", "lorem"}, feedfarm.TextUniform, `-text: text model "lorem"`},
	} {
		cfg, err := parseFlags(tc.args, io.Discard)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err %v, want one naming %s", tc.args, err, tc.wantErr)
			}
		case err != nil || cfg.text != tc.want:
			t.Errorf("%v: text %v, err %v; want %v", tc.args, cfg.text, err, tc.want)
		}
	}
}

func TestStorySummary(t *testing.T) {
	s := storage{StorySizes: map[int]int64{1: 5, 2: 3, 5: 1, 40: 2}}
	got := s.storySummary()
	want := "11 stories of 96 articles, 5 of one article, 3 of 2–4, the largest 40, 40, 5, 2, 2, 2, 1, 1, 1, 1"
	if got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if got := (storage{}).storySummary(); got != "no stories counted" {
		t.Errorf("no sizes: %q", got)
	}
}
