package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/feedpoller/feedpoller/internal/testdb"
)

// pipeMCP runs `feedpoller mcp` with lines as its whole input (closed at
// once, as `printf … | feedpoller mcp` does) and returns its answers by
// id, and its standard error.
func pipeMCP(t *testing.T, dir string, env []string, lines ...string) (map[string]map[string]any, string, error) {
	t.Helper()
	cmd := exec.Command(binary, "mcp")
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	answers := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			answers[fmt.Sprint(m["id"])] = m
		}
	}
	return answers, stderr.String(), err
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`

// TestMCPStdioAnswersEveryRequestRead: requests piped in with the input
// closed at once are all answered before the process exits (answers were
// lost: 5 runs answered ids [1,2], [1], [], [1], [1]), and a second
// initialize is refused with a JSON-RPC code (it was 0).
func TestMCPStdioAnswersEveryRequestRead(t *testing.T) {
	w := newMCPWorld(t, "sqlite")
	env := append(append([]string{}, w.env...), "FEEDPOLLER_MCP_TOKEN="+w.tokenA)
	lines := []string{initLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`}
	for id := 2; id <= 7; id++ {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"golang"}}}`, id))
	}
	lines = append(lines, strings.Replace(initLine, `"id":1`, `"id":8`, 1))
	for run := range 5 {
		answers, stderr, err := pipeMCP(t, w.dir, env, lines...)
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, stderr)
		}
		for id := 1; id <= 8; id++ {
			if answers[fmt.Sprint(id)] == nil {
				t.Fatalf("run %d: request %d not answered; answers %v", run, id, answers)
			}
		}
		again, _ := answers["8"]["error"].(map[string]any)
		if again == nil || again["code"] != float64(-32600) || !strings.Contains(fmt.Sprint(again["message"]), "initialize") {
			t.Fatalf("a second initialize: %v, want error -32600 naming initialize", answers["8"])
		}
	}
}

// TestMCPStdioChecksItsTokenOnEveryRequest: a stdio session started with
// a token loses its rights when the token is revoked, at the next
// request, not at the next restart.
func TestMCPStdioChecksItsTokenOnEveryRequest(t *testing.T) {
	w := newMCPWorld(t, "sqlite")
	token := strings.TrimSpace(mustCLI(t, w.dir, w.env, "tokens", "create", "--workspace", w.wsA, "--name", "to-revoke", "--quiet"))
	cs := w.stdio(t, token)
	mustCall(t, cs, "list_sources", nil)
	var id string
	for _, line := range strings.Split(mustCLI(t, w.dir, w.env, "tokens", "list"), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 5 && f[4] == "to-revoke" {
			id = f[0]
		}
	}
	mustCLI(t, w.dir, w.env, "tokens", "revoke", id)
	wantError(t, cs, "list_sources", nil, "no longer valid")
	wantError(t, cs, "search", map[string]any{"query": "golang"}, "no longer valid")
	if _, err := cs.ListResources(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "no longer valid") {
		t.Errorf("resources/list with a revoked token: %v", err)
	}
}

// TestMCPStdioNamesItsDatabase: `feedpoller mcp` says on standard error
// which database it opened, and started in a folder without one and
// without a database setting it refuses, naming the path and the
// setting, and creates nothing.
func TestMCPStdioNamesItsDatabase(t *testing.T) {
	w := newMCPWorld(t, "sqlite")
	_, stderr, err := pipeMCP(t, w.dir, w.env, initLine)
	if err != nil || !strings.Contains(stderr, "feedpoller mcp: database sqlite:") {
		t.Errorf("with a database: %v, stderr %q, want the database named", err, stderr)
	}
	elsewhere := t.TempDir()
	var env []string
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "FEEDPOLLER_DATABASE_URL=") {
			env = append(env, kv)
		}
	}
	answers, stderr, err := pipeMCP(t, elsewhere, env, initLine)
	if err == nil || len(answers) != 0 || !strings.Contains(stderr, filepath.Join(elsewhere, "data", "feedpoller.db")) ||
		!strings.Contains(stderr, "FEEDPOLLER_DATABASE_URL") {
		t.Errorf("without a database: %v, answers %v, stderr %q; want a refusal naming the path and the setting", err, answers, stderr)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "data")); !os.IsNotExist(err) {
		t.Errorf("feedpoller mcp created %s/data: %v", elsewhere, err)
	}
}

// mcpPost sends one raw /mcp request.
func mcpPost(t *testing.T, url, token, version, host, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestMCPHTTPBatchesChallengeAndHosts: over /mcp of the real daemon, on
// both databases: batches are refused where the protocol version has
// none and capped where it has them; a 401 carries a WWW-Authenticate
// challenge; a Host a reverse proxy forwards is refused on a loopback
// listener unless mcp_allowed_hosts names it.
func TestMCPHTTPBatchesChallengeAndHosts(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			w := newMCPWorld(t, dialect)
			env := append(append([]string{}, w.env...), "FEEDPOLLER_MCP_ALLOWED_HOSTS=feeds.example.com")
			url := startDaemon(t, w.dir, env).Base + "/mcp"
			listCall := func(id int) string {
				return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_sources","arguments":{}}}`, id)
			}
			batch := func(n int) string {
				calls := make([]string, n)
				for i := range calls {
					calls[i] = listCall(i + 1)
				}
				return "[" + strings.Join(calls, ",") + "]"
			}
			cases := []struct {
				version, body string
				status        int
				want          string
			}{
				{"", batch(2), http.StatusOK, `"id":2`},
				{"2025-03-26", batch(10), http.StatusOK, `"id":10`},
				{"", batch(11), http.StatusBadRequest, "at most 10 messages; this one has 11"},
				{"2025-03-26", batch(7000), http.StatusBadRequest, "at most 10 messages"},
				{"2024-11-05", batch(2), http.StatusBadRequest, "batches are part of MCP 2025-03-26 only"},
				{"2025-06-18", batch(2), http.StatusBadRequest, "batch"},
				{"2025-06-18", listCall(1), http.StatusOK, `"id":1`},
			}
			for _, c := range cases {
				code, _, body := mcpPost(t, url, w.tokenA, c.version, "", c.body)
				if code != c.status || !strings.Contains(body, c.want) {
					t.Errorf("version %q, %.60s: %d %.300s; want %d saying %q", c.version, c.body, code, body, c.status, c.want)
				}
			}

			for _, token := range []string{"", "not-a-token"} {
				code, h, _ := mcpPost(t, url, token, "", "", listCall(1))
				ch := h.Get("WWW-Authenticate")
				if code != http.StatusUnauthorized || !strings.HasPrefix(ch, "Bearer ") ||
					(token != "") != strings.Contains(ch, `error="invalid_token"`) {
					t.Errorf("token %q: %d WWW-Authenticate %q", token, code, ch)
				}
			}

			if code, _, body := mcpPost(t, url, w.tokenA, "", "proxied.example.org", listCall(1)); code != http.StatusForbidden ||
				!strings.Contains(body, "mcp_allowed_hosts") {
				t.Errorf("a Host nobody allowed: %d %s, want 403 naming the setting", code, body)
			}
			if code, _, body := mcpPost(t, url, w.tokenA, "", "feeds.example.com:443", listCall(1)); code != http.StatusOK {
				t.Errorf("an allowed Host: %d %s, want 200", code, body)
			}
		})
	}
}

// TestMCPPortableSchemasAndPrivateResources: no tool schema gives a
// value a list of types (the MCP Inspector's --strict warns of each, and
// some model providers refuse them), and what resources/list and
// resources/read answer is marked private to the caller.
func TestMCPPortableSchemasAndPrivateResources(t *testing.T) {
	w := newMCPWorld(t, "sqlite")
	cs := w.stdio(t, w.tokenA)
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		for kind, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			b, _ := json.Marshal(schema)
			if schema == nil || strings.Contains(string(b), `"type":[`) || strings.Contains(string(b), `"null"`) {
				t.Errorf("%s's %s schema is not portable: %s", tool.Name, kind, b)
			}
		}
	}
	src := mustCall(t, cs, "add_source", map[string]any{"url": w.feedURL})
	mustCall(t, cs, "poll_source", map[string]any{"source_id": src["source"].(map[string]any)["id"]})
	// Answers hold no null where the schemas have none.
	for tool, args := range map[string]any{"search": map[string]any{"query": "golang"}, "list_sources": nil} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", tool, err, res)
		}
		if b, _ := json.Marshal(res.StructuredContent); strings.Contains(string(b), "null") {
			t.Errorf("%s answers a null: %s", tool, b)
		}
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil || len(list.Resources) == 0 || list.CacheScope != "private" {
		t.Fatalf("resources/list: %v %+v, want the caller's items marked private", err, list)
	}
	read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: list.Resources[0].URI})
	if err != nil || read.CacheScope != "private" {
		t.Errorf("resources/read: %v cacheScope %q, want private", err, read.CacheScope)
	}
}

// TestMCPPollRefusedByAddressPolicyIsNoFailure: a stdio MCP client that
// did not pass FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS polls a loopback
// feed the daemon may poll: the poll is refused as a matter of
// configuration, naming the setting, and the source is not failed or
// backed off (it was "backoff: 1 failure → 24h").
func TestMCPPollRefusedByAddressPolicyIsNoFailure(t *testing.T) {
	w := newMCPWorld(t, "sqlite")
	src := mustCLI(t, w.dir, w.env, "sources", "add", "--workspace", w.wsA, "--url", w.feedURL, "--quiet")
	cmd := exec.Command(binary, "mcp")
	cmd.Dir = w.dir
	for _, kv := range w.env {
		if !strings.HasPrefix(kv, "FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "FEEDPOLLER_MCP_TOKEN="+w.tokenA)
	cs := connect(t, &sdk.CommandTransport{Command: cmd})
	out := mustCall(t, cs, "poll_source", map[string]any{"source_id": json.Number(strings.TrimSpace(src))})
	if out["status"] != "refused" || !strings.Contains(fmt.Sprint(out["error"]), "FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS") {
		t.Fatalf("poll_source: %v, want a refused poll naming the setting", out)
	}
	s := mustCall(t, cs, "list_sources", nil)["sources"].([]any)[0].(map[string]any)
	if s["consecutive_failures"] != float64(0) || strings.HasPrefix(fmt.Sprint(s["next_poll_reason"]), "backoff") {
		t.Errorf("the source after a refusal: %v, want no failure counted and no backoff", s)
	}
}
