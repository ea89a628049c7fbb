package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/testdb"
)

// fields splits a table line of the CLI's (columns two or more spaces
// apart).
func fields(line string) []string {
	return regexp.MustCompile(`\s{2,}`).Split(strings.TrimSpace(line), -1)
}

// readmeSourcesList is the sample `sources list` output in the README.
func readmeSourcesList(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "    ID  WORKSPACE  "):
			in = true
		case in && !strings.HasPrefix(line, "    "):
			return out
		}
		if in {
			out = append(out, line)
		}
	}
	t.Fatal("the README has no sample sources list")
	return nil
}

// What the CLI prints is what the README and the user expect: `config`
// names the SQLite file in use rather than an empty database_url,
// `workspaces list` has a header, `sources list` has the README's columns
// (and the README's sample rows have as many), and `feedpoller sql`
// prints times in RFC 3339.
func TestCLIOutputsAsDocumented(t *testing.T) {
	dir := t.TempDir()
	plain := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	out := mustCLI(t, dir, plain, "config")
	abs, err := filepath.Abs(filepath.Join(dir, "data", "feedpoller.db"))
	if err != nil {
		t.Fatal(err)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		abs = filepath.Join(real, "data", "feedpoller.db")
	}
	if !strings.Contains(out, "database_url: sqlite:"+abs+"\n") {
		t.Errorf("config does not name the database in use (%s):\n%s", abs, out)
	}
	rfc3339 := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`)
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			env := quietEnv(testdb.URL(t, dialect))
			mustCLI(t, dir, env, "workspaces", "add", "--name", "golang", "--keyword", "go:2")
			ws := strings.Split(strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "list")), "\n")
			if len(ws) != 2 || strings.Join(fields(ws[0]), "|") != "ID|NAME|THRESHOLD|DECAY|KEYWORDS" ||
				strings.Join(fields(ws[1]), "|") != "1|golang|0.20|moderate|go:2" {
				t.Errorf("workspaces list:\n%s", strings.Join(ws, "\n"))
			}
			if _, err := cli(t, dir, env, "sql", "SELECT 1"); err != nil {
				t.Fatal(err)
			}
			src := strings.Split(strings.TrimSpace(mustCLI(t, dir, env, "sources", "list")), "\n")
			sample := readmeSourcesList(t)
			if got, want := strings.Join(fields(src[0]), "|"), strings.Join(fields(sample[0]), "|"); got != want {
				t.Errorf("sources list header %q, the README shows %q", got, want)
			}
			for _, row := range sample[1:] {
				if len(fields(row)) != len(fields(sample[0])) {
					t.Errorf("README sample row has %d columns, the header %d: %q", len(fields(row)), len(fields(sample[0])), row)
				}
			}
			rows := strings.Split(strings.TrimSpace(mustCLI(t, dir, env, "sql", "SELECT created_at FROM workspaces")), "\n")
			if len(rows) != 2 || !rfc3339.MatchString(rows[1]) {
				t.Errorf("feedpoller sql prints a time as %q, want RFC 3339", rows)
			}
		})
	}
}
