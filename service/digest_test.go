package service_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// fakeDigests serves one story of two articles and one silent source.
type fakeDigests struct{ since, until time.Time }

func (f *fakeDigests) DigestArticles(_ context.Context, _ int64, since, until time.Time) ([]model.StoredDigestArticle, error) {
	f.since, f.until = since, until
	at := until.Add(-time.Hour)
	return []model.StoredDigestArticle{
		{StoryID: 9, DigestArticle: model.DigestArticle{ID: 1, URL: "https://wire.example/a", Title: "Quake off Chile", Summary: "A quake struck.",
			SourceID: 1, Tier: model.TierAuthoritative, Relevance: 0.8, StoredAt: at}},
		{StoryID: 9, FallbackSummary: "A strong quake struck off Chile on Tuesday. No tsunami was expected, the navy said.",
			DigestArticle: model.DigestArticle{ID: 2, URL: "https://daily.example/b", Title: "Chile quake", SourceID: 2, Tier: model.TierGeneral,
				Relevance: 0.5, StoredAt: at.Add(time.Minute)}},
	}, nil
}

func (f *fakeDigests) DigestSources(context.Context, int64, time.Time, time.Time) ([]model.DigestSource, error) {
	return []model.DigestSource{{ID: 3, URL: "https://quiet.example/feed", Title: "Quiet", Active: true, LastStatus: "ok"}}, nil
}

// TestDigestRequests: the window, format and budget are read as the API
// and the CLI give them; bad ones are ErrInvalid naming the field.
func TestDigestRequests(t *testing.T) {
	fd := &fakeDigests{}
	f := newFixture(t, func(o *service.Options) { o.Digests = fd; o.DigestMaxTokens = 300 })
	ctx := context.Background()
	d, err := f.svc.Digest(ctx, f.wsID, service.DigestRequest{Since: "7d", Until: "2025-03-10", Format: "json"})
	if err != nil {
		t.Fatal(err)
	}
	if !fd.until.Equal(time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC)) || fd.until.Sub(fd.since) != 7*24*time.Hour {
		t.Errorf("window %v–%v, want the 7 days to 2025-03-10", fd.since, fd.until)
	}
	if d.MediaType != "application/json" || len(d.Built.Stories) != 1 || d.Built.Stories[0].SourceCount != 2 || len(d.Built.Gaps) != 1 {
		t.Fatalf("digest %s %+v", d.MediaType, d.Built)
	}
	if src := d.Built.Stories[0].Sources[1]; src.URL != "https://daily.example/b" {
		t.Errorf("second source %+v", src)
	}
	compact, err := f.svc.Digest(ctx, f.wsID, service.DigestRequest{Until: "2025-03-10", Format: "compact"})
	if err != nil || compact.MediaType != "text/plain; charset=utf-8" || !strings.Contains(string(compact.Body), "Quake off Chile") {
		t.Fatalf("compact: %v %s %q", err, compact.MediaType, compact.Body)
	}
	for _, tc := range []struct {
		req   service.DigestRequest
		field string
		words string
	}{
		{service.DigestRequest{Format: "xml"}, "format", `format "xml" is unknown: accepted formats are markdown, json and compact`},
		{service.DigestRequest{Since: "yesterday"}, "since", `since "yesterday" is neither a duration`},
		{service.DigestRequest{Since: "-5h"}, "since", `since "-5h" must be a positive duration`},
		{service.DigestRequest{Since: "2025-03-11", Until: "2025-03-10"}, "since", "since 2025-03-11T00:00:00Z is not before until 2025-03-10T00:00:00Z"},
		{service.DigestRequest{Until: "tomorrow"}, "until", `until "tomorrow" is not a time`},
		{service.DigestRequest{Format: "compact", Until: "2025-03-10", MaxTokens: 5}, "max_tokens", "max_tokens 5 is below"},
		{service.DigestRequest{Format: "compact", MaxTokens: -1}, "max_tokens", "positive"},
	} {
		_, err := f.svc.Digest(ctx, f.wsID, tc.req)
		e := wantKind(t, err, service.ErrInvalid, tc.field)
		if !strings.Contains(e.Message, tc.words) {
			t.Errorf("%+v: %q does not say %q", tc.req, e.Message, tc.words)
		}
		// The message names the field once: never "max_tokens max_tokens 5".
		if n := len(regexp.MustCompile(`\b`+tc.field+`\b`).FindAllString(e.Message, -1)); n != 1 || strings.Contains(e.Fields[tc.field], tc.field+" ") {
			t.Errorf("%+v: %q names %s %d times (field text %q)", tc.req, e.Message, tc.field, n, e.Fields[tc.field])
		}
	}
	_ = wantKind(t, ignore(f.svc.Digest(ctx, 999, service.DigestRequest{})), service.ErrNotFound, "")
	none := newFixture(t)
	_ = wantKind(t, ignore(none.svc.Digest(ctx, none.wsID, service.DigestRequest{})), service.ErrUnavailable, "")
}
