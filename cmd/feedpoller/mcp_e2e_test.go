package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/feedpoller/feedpoller/internal/testdb"
)

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// mcpWorld is a database with two workspaces and the tokens of the
// tests, made with the real binary's commands.
type mcpWorld struct {
	dir, dbURL   string
	env          []string
	wsA, wsB     string
	tokenA       string // workspace A, may write
	readOnlyA    string // workspace A, read-only
	tokenB       string // workspace B, may write
	adminToken   string // FEEDPOLLER_ADMIN_TOKEN
	feedURL      string
	httpEndpoint string // /mcp of a running serve, "" until started
}

func newMCPWorld(t *testing.T, dialect string) *mcpWorld {
	w := &mcpWorld{dir: t.TempDir(), dbURL: testdb.URL(t, dialect), adminToken: "mcp-admin-token"}
	w.env = baseEnv(w.dbURL, "FEEDPOLLER_ADMIN_TOKEN="+w.adminToken, "FEEDPOLLER_LOG_LEVEL=warn")
	w.feedURL = site(t).URL + "/feed.xml"
	line := func(args ...string) string { return strings.TrimSpace(mustCLI(t, w.dir, w.env, args...)) }
	w.wsA = line("workspaces", "add", "--name", "alpha", "--keyword", "golang", "--quiet")
	w.wsB = line("workspaces", "add", "--name", "beta", "--quiet")
	w.tokenA = line("tokens", "create", "--workspace", w.wsA, "--quiet")
	w.readOnlyA = line("tokens", "create", "--workspace", w.wsA, "--read-only", "--quiet")
	w.tokenB = line("tokens", "create", "--workspace", w.wsB, "--quiet")
	return w
}

// stdio connects the SDK's client to `feedpoller mcp` spawned with the
// token ("" for none).
func (w *mcpWorld) stdio(t *testing.T, token string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(binary, "mcp")
	cmd.Dir, cmd.Env = w.dir, append(append([]string{}, w.env...), "FEEDPOLLER_MCP_TOKEN="+token)
	return connect(t, &sdk.CommandTransport{Command: cmd})
}

// http connects the SDK's client to /mcp of `feedpoller serve`.
func (w *mcpWorld) http(t *testing.T, token string) *sdk.ClientSession {
	t.Helper()
	if w.httpEndpoint == "" {
		w.httpEndpoint = startDaemon(t, w.dir, w.env).Base + "/mcp"
	}
	client := &http.Client{Transport: bearer{token, http.DefaultTransport}, Timeout: time.Minute}
	return connect(t, &sdk.StreamableClientTransport{Endpoint: w.httpEndpoint, HTTPClient: client, DisableStandaloneSSE: true})
}

func connect(t *testing.T, tr sdk.Transport) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and returns its structured answer, or its error text
// (tool errors and protocol errors alike).
func call(t *testing.T, cs *sdk.ClientSession, tool string, args any) (map[string]any, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err.Error()
	}
	if res.IsError {
		var texts []string
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		return nil, strings.Join(texts, " ")
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
	return out, ""
}

func mustCall(t *testing.T, cs *sdk.ClientSession, tool string, args any) map[string]any {
	t.Helper()
	out, errText := call(t, cs, tool, args)
	if errText != "" {
		t.Fatalf("%s %v: %s", tool, args, errText)
	}
	return out
}

func wantError(t *testing.T, cs *sdk.ClientSession, tool string, args any, want ...string) {
	t.Helper()
	out, errText := call(t, cs, tool, args)
	for _, w := range want {
		if !strings.Contains(errText, w) {
			t.Errorf("%s %v: answer %v, error %q; want an error saying %q", tool, args, out, errText, w)
		}
	}
}

// TestMCPEndToEnd drives the real binary with the SDK's own client, over
// stdio (`feedpoller mcp`) and Streamable HTTP (/mcp of `feedpoller
// serve`), on both databases: every tool, the resources, scoping by
// token, and bad input.
func TestMCPEndToEnd(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			w := newMCPWorld(t, dialect)
			for _, transport := range []string{"stdio", "http"} {
				t.Run(transport, func(t *testing.T) {
					session := w.stdio
					if transport == "http" {
						session = w.http
					}
					mcpScenario(t, w, session, transport)
				})
			}
		})
	}
}

func mcpScenario(t *testing.T, w *mcpWorld, session func(*testing.T, string) *sdk.ClientSession, transport string) {
	ctx := context.Background()
	cs := session(t, w.tokenA)
	if got := cs.InitializeResult().ServerInfo.Name; got != "feedpoller" {
		t.Fatalf("server name %q", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "add_source,digest,get_article,list_sources,poll_source,search" {
		t.Fatalf("tools: %s", got)
	}

	// add_source and poll_source through the source service (the first
	// transport adds the source; the second finds it there).
	src := mustCall(t, cs, "list_sources", nil)
	var sourceID any
	if srcs := src["sources"].([]any); len(srcs) > 0 {
		sourceID = srcs[0].(map[string]any)["id"]
	} else {
		added := mustCall(t, cs, "add_source", map[string]any{"url": w.feedURL})
		if added["feed_title"] != "Go News" || added["item_count"] != float64(2) {
			t.Fatalf("add_source: %v", added)
		}
		sourceID = added["source"].(map[string]any)["id"]
	}
	wantError(t, cs, "add_source", map[string]any{"url": w.feedURL}, "already")
	wantError(t, cs, "add_source", map[string]any{"url": "ftp://x.example/feed"}, "url")
	polled := mustCall(t, cs, "poll_source", map[string]any{"source_id": sourceID})
	if polled["status"] != "ok" || polled["items_seen"] != float64(2) {
		t.Fatalf("poll_source: %v", polled)
	}
	srcs := mustCall(t, cs, "list_sources", nil)["sources"].([]any)
	if len(srcs) != 1 || srcs[0].(map[string]any)["status"] != "ok" || srcs[0].(map[string]any)["next_poll_at"] == "" ||
		srcs[0].(map[string]any)["next_poll_reason"] == "" || srcs[0].(map[string]any)["schedule"] != "adaptive" {
		t.Fatalf("list_sources: %v", srcs)
	}

	// digest: the REST digest's text in each format; bad input names it.
	for _, format := range []string{"markdown", "json", "compact"} {
		d := mustCall(t, cs, "digest", map[string]any{"since": "3650d", "format": format})
		if d["format"] != format || d["stories"].(float64) < 1 || !strings.Contains(d["text"].(string), "Golang 1.26 is out") {
			t.Errorf("digest %s: %v", format, d)
		}
	}
	wantError(t, cs, "digest", map[string]any{"format": "xml"}, "format")
	wantError(t, cs, "digest", map[string]any{"since": "yesterday"}, "since")

	// search, then get_article at each level.
	found := mustCall(t, cs, "search", map[string]any{"query": `golang -wool`, "limit": 5})
	results := found["results"].([]any)
	if len(results) != 1 {
		t.Fatalf("search golang -wool: %v", found)
	}
	hit := results[0].(map[string]any)
	if hit["title"] != "Golang 1.26 is out" || !strings.Contains(hit["snippet"].(string), "**") || hit["relevance"].(float64) <= 0 ||
		hit["source"] != "Go News" || hit["content_item"] == nil {
		t.Fatalf("search hit: %v", hit)
	}
	id := hit["id"]
	for _, level := range []string{"summary", "outline", "full"} {
		a := mustCall(t, cs, "get_article", map[string]any{"id": id, "level": level})
		if a["text"] == "" || a["tokens"].(float64) <= 0 || a["next_offset"] != nil {
			t.Errorf("get_article %s: %v", level, a)
		}
		if level == "summary" && a["summary_source"] != "extractive" {
			t.Errorf("summary from %v, want the stored extractive summary: %v", a["summary_source"], a)
		}
		if level == "outline" && !strings.Contains(a["text"].(string), "## Release\nParagraph 0 about golang") {
			t.Errorf("outline: %q", a["text"])
		}
	}
	// A small budget cuts the full text; the parts put back together are
	// the whole, and each part holds at most the budget.
	whole := mustCall(t, cs, "get_article", map[string]any{"id": id, "level": "full", "max_tokens": 100000})["text"].(string)
	var rebuilt strings.Builder
	for offset, parts := 0, 0; ; parts++ {
		a := mustCall(t, cs, "get_article", map[string]any{"id": id, "level": "full", "max_tokens": 60, "offset": offset})
		if a["tokens"].(float64) > 60 {
			t.Fatalf("part of %v tokens, budget 60", a["tokens"])
		}
		rebuilt.WriteString(a["text"].(string))
		next, more := a["next_offset"].(float64)
		if !more || parts > 100 {
			break
		}
		offset = int(next)
	}
	if rebuilt.String() != whole {
		t.Errorf("the parts do not make the whole article:\n%q\n%q", rebuilt.String(), whole)
	}

	// Resources: the workspace's content items, readable as Markdown.
	res, err := cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != hit["content_item"] {
		t.Fatalf("resources: %v %v, want the one content item %v", res, err, hit["content_item"])
	}
	read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: res.Resources[0].URI})
	if err != nil || !strings.HasPrefix(read.Contents[0].Text, "# Golang 1.26 is out") || read.Contents[0].MIMEType != "text/markdown" {
		t.Fatalf("read resource: %v %v", read, err)
	}

	// Another workspace's token sees none of it: not found, as the API.
	other := session(t, w.tokenB)
	wantError(t, other, "search", map[string]any{"query": "golang", "workspace_id": json.Number(w.wsA)}, "workspace "+w.wsA+" not found")
	wantError(t, other, "get_article", map[string]any{"id": id}, "not found")
	if found := mustCall(t, other, "search", map[string]any{"query": "golang"}); len(found["results"].([]any)) != 0 {
		t.Errorf("workspace B finds A's articles: %v", found)
	}
	if _, err := other.ReadResource(ctx, &sdk.ReadResourceParams{URI: res.Resources[0].URI}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("workspace B reads A's content item: %v", err)
	}
	wantError(t, other, "poll_source", map[string]any{"source_id": sourceID}, "not found")

	// A read-only token reads and may not write.
	ro := session(t, w.readOnlyA)
	mustCall(t, ro, "search", map[string]any{"query": "golang"})
	wantError(t, ro, "add_source", map[string]any{"url": w.feedURL + "?x=1"}, "may only read")
	wantError(t, ro, "poll_source", map[string]any{"source_id": sourceID}, "may only read")

	// Bad input names the problem.
	wantError(t, cs, "no_such_tool", nil, "no_such_tool")
	wantError(t, cs, "search", map[string]any{"query": "golang", "limit": "ten"}, "limit")
	wantError(t, cs, "search", map[string]any{"query": "golang", "limit": 100000}, "limit", "50")
	wantError(t, cs, "search", map[string]any{"query": ""}, "query")
	wantError(t, cs, "search", map[string]any{"query": "-golang"}, "only excludes")
	wantError(t, cs, "search", map[string]any{"query": "golang", "since": "yesterday"}, "since", "RFC 3339")
	wantError(t, cs, "search", map[string]any{"query": "golang", "surprise": true}, "surprise")
	wantError(t, cs, "get_article", map[string]any{"id": id, "level": "everything"}, "level")
	wantError(t, cs, "get_article", map[string]any{"id": id, "offset": 999999}, "offset 999999")
	wantError(t, cs, "get_article", map[string]any{"id": 99999999}, "not found")

	if transport == "stdio" {
		// Without a token: every workspace, read-only.
		anon := session(t, "")
		mustCall(t, anon, "list_sources", map[string]any{"workspace_id": json.Number(w.wsA)})
		wantError(t, anon, "list_sources", nil, "workspace_id is required", "alpha", "beta")
		wantError(t, anon, "poll_source", map[string]any{"source_id": sourceID, "workspace_id": json.Number(w.wsA)}, "may only read")
	}
}

// TestMCPRawProtocol: /mcp answers 401 without a valid token, a malformed
// JSON-RPC message gets an error naming the problem over HTTP and stdio
// (where the session goes on), and /llms.txt points an agent at /mcp,
// without auth.
func TestMCPRawProtocol(t *testing.T) {
	w := newMCPWorld(t, "sqlite")
	cmd := exec.Command(binary, "mcp", "--token", w.tokenA)
	cmd.Dir, cmd.Env = w.dir, w.env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Answers to requests in flight are lost when the input ends, so the
	// input stays open until the last answer is read.
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}
{bad json
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}}
`)
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), `"id":2`) {
			break
		}
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("feedpoller mcp: %v\n%s", err, out.String())
	}
	for _, want := range []string{`"code":-32700,"message":"parse error: `, `"id":1,"result":`, `"id":2,"error":{"code":-32602,"message":"unknown tool \"nope\""`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdio answers lack %s:\n%s", want, out.String())
		}
	}
	d := startDaemon(t, w.dir, w.env)
	post := func(token, body string) (int, string) {
		req, _ := http.NewRequest("POST", d.Base+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, token := range []string{"", "not-a-token"} {
		if code, body := post(token, initialize); code != http.StatusUnauthorized {
			t.Errorf("token %q: %d %s, want 401", token, code, body)
		}
	}
	if code, body := post(w.tokenA, initialize); code != http.StatusOK || !strings.Contains(body, `"feedpoller"`) {
		t.Errorf("initialize with a token: %d %s", code, body)
	}
	if code, body := post(w.tokenA, `{"jsonrpc":"2.0","id":1,"method":`); code != http.StatusBadRequest || !strings.Contains(body, "malformed") {
		t.Errorf("malformed JSON-RPC: %d %s, want 400 saying the payload is malformed", code, body)
	}
	resp, err := http.Get(d.Base + "/llms.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(string(b), "# feedpoller\n\n> ") || !strings.Contains(string(b), "(/mcp)") ||
		!strings.Contains(string(b), "(/openapi.yaml)") {
		t.Errorf("llms.txt: %d\n%s", resp.StatusCode, b)
	}
}
