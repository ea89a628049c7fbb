package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tsClientDir holds the TypeScript client of TestMCPWithTypeScriptSDK and,
// once installed, its SDK.
const tsClientDir = "testdata/mcpclient"

// TestMCPWithTypeScriptSDK: the official TypeScript MCP SDK, a client
// nobody here wrote, uses feedpoller over stdio and Streamable HTTP:
// every reading tool (the SDK validates each structured answer against
// the tool's output schema), a bad argument as a tool error, and the
// resources. It needs Node.js and the SDK installed with
// `npm install --prefix cmd/feedpoller/testdata/mcpclient`, and skips,
// saying so, without them.
func TestMCPWithTypeScriptSDK(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("Node.js is not installed: the TypeScript SDK client cannot run")
	}
	if _, err := os.Stat(filepath.Join(tsClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skipf("the TypeScript MCP SDK is not installed: run `npm install --prefix cmd/feedpoller/%s`", tsClientDir)
	}
	w := newMCPWorld(t, "sqlite")
	mustCLI(t, w.dir, w.env, "sources", "add", "--workspace", w.wsA, "--url", w.feedURL, "--quiet")
	mustCLI(t, w.dir, w.env, "poll")
	runs := map[string][]string{
		"stdio": {"stdio", binary},
		"http":  {"http", startDaemon(t, w.dir, w.env).Base + "/mcp", w.tokenA},
	}
	for name, args := range runs {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(node, append([]string{"client.mjs"}, args...)...)
			cmd.Dir = tsClientDir
			cmd.Env = append(append([]string{}, w.env...), "FEEDPOLLER_MCP_TOKEN="+w.tokenA, "FEEDPOLLER_LOG_LEVEL=error")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the TypeScript client failed: %v\n%s", err, stderr.String())
			}
			var got struct {
				Server struct{ Name string }
				Tools  []string
				Search struct {
					Results []map[string]any
				}
				Article struct {
					Tokens     float64 `json:"tokens"`
					NextOffset *int    `json:"next_offset"`
				}
				Outline         struct{ Text string }
				Sources         struct{ Sources []map[string]any }
				Digest          struct{ Text string }
				BadQueryIsError bool
				Resources       []string
				Read            struct{ Contents []struct{ Text string } }
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("client output %s: %v", out, err)
			}
			if got.Server.Name != "feedpoller" || strings.Join(got.Tools, ",") != "add_source,digest,get_article,list_sources,poll_source,search" {
				t.Errorf("server %q, tools %v", got.Server.Name, got.Tools)
			}
			if len(got.Search.Results) == 0 || !strings.Contains(got.Search.Results[0]["snippet"].(string), "**") {
				t.Errorf("search: %v", got.Search)
			}
			if got.Article.Tokens == 0 || got.Article.Tokens > 60 || got.Article.NextOffset == nil {
				t.Errorf("get_article in parts of 60 tokens: %+v", got.Article)
			}
			if !strings.HasPrefix(got.Outline.Text, "# ") || len(got.Sources.Sources) != 1 || got.Digest.Text == "" || !got.BadQueryIsError {
				t.Errorf("outline %q, sources %v, digest %q, bad query an error %v", got.Outline.Text, got.Sources, got.Digest.Text, got.BadQueryIsError)
			}
			if len(got.Resources) == 0 || len(got.Read.Contents) != 1 || !strings.HasPrefix(got.Read.Contents[0].Text, "# ") {
				t.Errorf("resources %v, read %+v", got.Resources, got.Read)
			}
		})
	}
}
