package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/service"
)

// offlineValidator refuses every rss and web URL without any network, so
// fuzzed bodies never reach out; the fuzz target is the decoding and
// validation path, which runs before the validator.
type offlineValidator struct{}

var errOffline = errors.New("validation is offline in this test")

func (offlineValidator) ValidateFeed(context.Context, string) (service.FeedCheck, error) {
	return service.FeedCheck{}, errOffline
}

func (offlineValidator) ValidatePage(context.Context, string) (string, []string, error) {
	return "", nil, errOffline
}

// FuzzCreateSource throws arbitrary bodies at POST …/sources on SQLite and
// Postgres (SQLite only while fuzzing, see fuzzDialects). Whatever the body: never a 5xx, every error answer is JSON
// with a message, the answer matches the OpenAPI document, and a row is
// written exactly when the answer is 201.
func FuzzCreateSource(f *testing.F) {
	for _, seed := range []string{
		`{"url":"https://example.com/feed","source_type":"api"}`,
		`{"url":"https://example.com/feed","source_type":"api","title":"t","polling_interval_minutes":60,"is_active":false,"track_changes":true}`,
		`{"url":"https://example.com/feed","source_type":"api","polling_interval_minutes":0}`,
		`{"url":"https://example.com/feed","source_type":"api","polling_interval_minutes":43201}`,
		`{"url":"https://example.com/rss"}`,
		`{"url":"ftp://example.com/feed","source_type":"api"}`,
		`{"url":"https://u:p@example.com/","source_type":"api"}`,
		`{"url":"https://example.com/\u0000","source_type":"api"}`,
		`{"url":"https://example.com/","source_type":"api","title":"\u0000"}`,
		`{"url":"https://example.com/","source_type":"api","title":"\ud800"}`,
		`{"url":"https://example.com/","source_type":"api","extra":1}`,
		`{"url":["x"],"source_type":"api"}`,
		`{"url":"https://example.com/","source_type":"api"}{}`,
		`{"url":"https://example.com/","source_type":"api","polling_interval_minutes":1e400}`,
		`{"url":"http://[::1]:80/","source_type":"api"}`,
		`{"url":"http://%zz/","source_type":"api"}`,
		`null`, `[]`, `"x"`, `{`, ``, `{"url":null,"source_type":"api"}`,
	} {
		f.Add(seed)
	}
	offline := func(o *apiOptions) { o.Validator = offlineValidator{} }
	var envs []*env
	var wsIDs []int64
	for _, d := range fuzzDialects() {
		e := newEnv(f, d, offline)
		var ws workspaceJSON
		e.do("POST", wsPath, e.admin, map[string]any{"name": "fuzz"}).decode(f, &ws)
		envs, wsIDs = append(envs, e), append(wsIDs, ws.ID)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for i, base := range envs {
			e := *base
			e.t = t
			before := e.countRows(t, "feed_sources")
			r := e.call(call{method: "POST", path: path("/%d/sources", wsIDs[i]), token: e.admin, body: []byte(body)})
			after := e.countRows(t, "feed_sources")
			switch {
			case r.status >= 500:
				t.Fatalf("%s: %q answered %d: %s", e.store.Dialect(), body, r.status, r.body)
			case r.status == http.StatusCreated:
				if after != before+1 {
					t.Fatalf("%s: 201 but %d → %d rows", e.store.Dialect(), before, after)
				}
			default:
				if after != before {
					t.Fatalf("%s: %d wrote a row (%d → %d) for %q", e.store.Dialect(), r.status, before, after, body)
				}
				var eb errorBody
				if err := json.Unmarshal(r.body, &eb); err != nil || eb.Error == "" {
					t.Fatalf("%s: %d answer is not a JSON error: %s", e.store.Dialect(), r.status, r.body)
				}
			}
		}
	})
}

// fuzzDialects is both databases when the seed corpus runs as part of the
// suite, and SQLite alone under -fuzz: fuzz workers are killed and
// restarted by the coordinator, and a killed worker could not stop the
// PostgreSQL cluster it started.
func fuzzDialects() []string {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return []string{"sqlite"}
		}
	}
	return testdb.Dialects
}
