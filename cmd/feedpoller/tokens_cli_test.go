package main

import (
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
)

// `tokens create` refuses what the API's token endpoint refuses, with the
// API's words, and stores nothing it refused.
func TestCLITokensCreateRefusesAsTheAPIDoes(t *testing.T) {
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			_, dir, env := cliSetup(t, dialect)
			ws := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", "tokens", "--quiet"))
			const admin = "tokens-admin-token"
			h := inProcessAPI(t, env, admin)
			long := strings.Repeat("n", 201)
			for _, c := range []struct {
				name  string
				flags []string
				path  string
				body  map[string]any
			}{
				{"name over the cap", []string{"--workspace", ws, "--name", long},
					"/api/intelligence/workspaces/" + ws + "/tokens", map[string]any{"name": long}},
				{"no such workspace", []string{"--workspace", "999999", "--name", "x"},
					"/api/intelligence/workspaces/999999/tokens", map[string]any{"name": "x"}},
				{"admin name over the cap", []string{"--admin", "--name", long},
					"/api/intelligence/tokens", map[string]any{"name": long}},
			} {
				t.Run(c.name, func(t *testing.T) {
					out, err := cli(t, dir, env, append([]string{"tokens", "create"}, c.flags...)...)
					if err == nil {
						t.Fatalf("CLI accepted it: %s", out)
					}
					status, msg := post(t, h, admin, c.path, c.body)
					if status < 400 || msg == "" {
						t.Fatalf("API: %d %q, want a refusal", status, msg)
					}
					if want := "feedpoller tokens: " + msg + "\n"; out != want {
						t.Fatalf("CLI said %q, want the API's words %q", out, want)
					}
				})
			}
			if out := mustCLI(t, dir, env, "tokens", "list", "--workspace", ws); strings.Count(out, "\n") > 1 {
				t.Fatalf("refused tokens were stored:\n%s", out)
			}
		})
	}
}
