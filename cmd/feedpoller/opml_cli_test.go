package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/testdb"
	"github.com/feedpoller/feedpoller/opml"
	"github.com/feedpoller/feedpoller/opml/opmltest"
)

// cliSplit runs the real binary and returns stdout and stderr apart.
func cliSplit(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = dir, env
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return o.String(), e.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

// sourceShapes lists a workspace's sources as url|type|title|category.
func sourceShapes(t *testing.T, env []string, ws string) []string {
	t.Helper()
	st := openTestStore(t, env)
	id, err := strconv.ParseInt(ws, 10, 64)
	if err != nil {
		t.Fatalf("workspace id %q: %v", ws, err)
	}
	srcs, err := st.ListSources(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range srcs {
		out = append(out, fmt.Sprintf("%s|%s|%s|%s|%s", s.URL, s.SourceType, s.Title, s.Category, s.SiteURL))
	}
	sort.Strings(out)
	return out
}

// `feedpoller sources import` takes another reader's export (its URLs on
// a loopback site): progress with a rate on standard error, every
// outline's outcome on standard output, exit 1 because some outlines were
// rejected. `sources export` writes OPML, each feed's htmlUrl the one
// imported, that imports into another workspace as the same sources,
// exit 0.
func TestCLISourcesImportAndExport(t *testing.T) {
	raw, err := os.ReadFile("../../opml/testdata/other-reader.opml")
	if err != nil {
		t.Fatal(err)
	}
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			site := opmltest.NewSite(t, "")
			dir := t.TempDir()
			env := quietEnv(testdb.URL(t, dialect))
			file := filepath.Join(dir, "subscriptions.opml")
			if err := os.WriteFile(file, []byte(site.PointAt(string(raw))), 0o600); err != nil {
				t.Fatal(err)
			}
			ws := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", "imported", "--quiet"))
			stdout, stderr, code := cliSplit(t, dir, env, "sources", "import", "--workspace", ws, file)
			if code != 1 {
				t.Fatalf("exit %d, want 1 (some outlines rejected)\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, want := range []string{
				"12 outlines: 8 added, 1 duplicate, 3 rejected, 0 skipped",
				`"The Go Blog" in Go`,
				`"PostgreSQL News" in Databases/PostgreSQL`,
				"duplicate ", "same URL as outline 1",
				"rejected ", "feed://example.org/podcast.xml: \"feed://example.org/podcast.xml\" is not an http or https URL",
				"only an htmlUrl",
			} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if lines := strings.Count(stdout, "\n"); lines != 13 {
				t.Errorf("%d stdout lines, want one per outline and the totals:\n%s", lines, stdout)
			}
			if !strings.Contains(stderr, "importing: 12/12 (added 8, duplicate 1, rejected 3)") || !strings.Contains(stderr, "/s") {
				t.Errorf("stderr has no final progress with a rate:\n%s", stderr)
			}
			if n := site.MaxInFlight(); n != 1 {
				t.Errorf("%d validation fetches at once on one host", n)
			}

			exported, stderr, code := cliSplit(t, dir, env, "sources", "export", "--workspace", ws)
			if code != 0 {
				t.Fatalf("export: exit %d: %s", code, stderr)
			}
			if doc, err := opml.Parse(strings.NewReader(exported), opml.Limits{}); err != nil || doc.Version != "2.0" || len(doc.Outlines) != 8 {
				t.Fatalf("export: %v %+v\n%s", err, doc, exported)
			}
			if want := `xmlUrl="` + site.URL + `/go.dev/blog/feed.atom" htmlUrl="` + site.URL + `/go.dev/blog/"`; !strings.Contains(exported, want) {
				t.Errorf("export lacks the feed's site: %s\n%s", want, exported)
			}
			if err := os.WriteFile(filepath.Join(dir, "back.opml"), []byte(exported), 0o600); err != nil {
				t.Fatal(err)
			}
			ws2 := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", "round-trip", "--quiet"))
			stdout, stderr, code = cliSplit(t, dir, env, "sources", "import", "--workspace", ws2, "back.opml")
			if code != 0 || !strings.Contains(stdout, "8 outlines: 8 added, 0 duplicate, 0 rejected, 0 skipped") {
				t.Fatalf("re-import: exit %d\n%s\n%s", code, stdout, stderr)
			}
			if a, b := sourceShapes(t, env, ws), sourceShapes(t, env, ws2); strings.Join(a, "\n") != strings.Join(b, "\n") {
				t.Fatalf("round trip changed the sources:\n%s\n--- want ---\n%s", strings.Join(b, "\n"), strings.Join(a, "\n"))
			}
			// Importing again adds nothing and fetches nothing: all duplicates.
			before := site.Requests()
			stdout, _, code = cliSplit(t, dir, env, "sources", "import", "--workspace", ws2, "back.opml")
			if code != 0 || !strings.Contains(stdout, "8 outlines: 0 added, 8 duplicate") || site.Requests() != before {
				t.Fatalf("second import: exit %d, %d requests\n%s", code, site.Requests()-before, stdout)
			}
		})
	}
}

// Hostile files get a clear error and exit 1 through the CLI, before
// anything is fetched or stored.
func TestCLIImportRefusesHostileOPML(t *testing.T) {
	site := opmltest.NewSite(t, "")
	dir := t.TempDir()
	env := quietEnv(testdb.URL(t, "sqlite"))
	ws := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", "hostile", "--quiet"))
	var many strings.Builder
	many.WriteString(`<opml version="2.0"><body>`)
	for i := range 100_000 {
		fmt.Fprintf(&many, `<outline type="rss" xmlUrl="%s/f%d"/>`, site.URL, i)
	}
	many.WriteString(`</body></opml>`)
	for _, c := range []struct{ name, body, want string }{
		{"xxe", `<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY xxe SYSTEM "` + site.URL + `/x">]><opml><body><outline xmlUrl="&xxe;"/></body></opml>`, "entity declarations are not allowed"},
		{"billion-laughs", `<!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><opml><body><outline text="&b;" xmlUrl="` + site.URL + `/f"/></body></opml>`, "entity declarations are not allowed"},
		{"many", many.String(), "more than 10000 outlines (the import limit); split it into smaller files"},
		{"huge", `<opml><body><outline xmlUrl="` + site.URL + `/f" text="` + strings.Repeat("a", 50<<20) + `"/></body></opml>`, "more than 10485760 bytes (the import limit)"},
		{"not-xml", "\x00\x01binary garbage", "not an OPML document"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, c.name+".opml")
			if err := os.WriteFile(file, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := cliSplit(t, dir, env, "sources", "import", "--workspace", ws, file)
			if code != 1 || !strings.Contains(stderr, c.want) || stdout != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit 1 naming %q", code, stdout, stderr, c.want)
			}
		})
	}
	if n := site.Requests(); n != 0 {
		t.Errorf("hostile files made %d requests", n)
	}
	if got := sourceShapes(t, env, ws); len(got) != 0 {
		t.Errorf("hostile files stored %v", got)
	}
}

// The progress line: on a terminal it is rewritten in place, a few times
// a second; elsewhere a line every few seconds and the last state, so a
// log stays short. Rate and ETA come from the import.
func TestProgressLine(t *testing.T) {
	now := time.Unix(0, 0)
	clock := func() time.Time { return now }
	step := func(p *progressLine, done int, after time.Duration) {
		now = now.Add(after)
		p.update(opml.Progress{Done: done, Total: 100, Added: done, Rate: 2, ETA: time.Duration(100-done) * time.Second / 2})
	}
	var log bytes.Buffer
	p := newProgressLine(&log, false, clock)
	for i := 1; i <= 100; i++ {
		step(p, i, 500*time.Millisecond)
	}
	p.finish()
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) < 5 || len(lines) > 12 || !strings.Contains(lines[0], "ETA") ||
		lines[len(lines)-1] != "importing: 100/100 (added 100, duplicate 0, rejected 0) 2.0/s" {
		t.Fatalf("log output (%d lines):\n%s", len(lines), log.String())
	}
	var term bytes.Buffer
	p = newProgressLine(&term, true, clock)
	for i := 1; i <= 10; i++ {
		step(p, i*10, time.Second)
	}
	p.finish()
	if strings.Count(term.String(), "\r\033[K") != 10 || !strings.HasSuffix(term.String(), "2.0/s\n") || strings.Count(term.String(), "\n") != 1 {
		t.Fatalf("terminal output %q", term.String())
	}
}

// Lists as other readers export them (Feedly, Inoreader, NetNewsWire,
// Miniflux, FreshRSS) import offline with --no-validate: every feed is
// added, nothing is fetched, the report says they are checked at their
// first poll. The export of the workspace imports again, as it is, into
// the same sources; duplicates do not fail an import.
func TestCLIImportOtherReadersOffline(t *testing.T) {
	fixtures, err := filepath.Glob("../../opml/testdata/readers/*.opml")
	if err != nil || len(fixtures) < 5 {
		t.Fatalf("reader fixtures: %v %v", fixtures, err)
	}
	for _, dialect := range testdb.Dialects {
		t.Run(dialect, func(t *testing.T) {
			site := opmltest.NewSite(t, "")
			dir := t.TempDir()
			env := quietEnv(testdb.URL(t, dialect))
			for _, fixture := range fixtures {
				name := strings.TrimSuffix(filepath.Base(fixture), ".opml")
				raw, err := os.ReadFile(fixture)
				if err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(dir, name+".opml")
				if err := os.WriteFile(file, []byte(site.PointAt(string(raw))), 0o600); err != nil {
					t.Fatal(err)
				}
				ws := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", name, "--quiet"))
				stdout, stderr, code := cliSplit(t, dir, env, "sources", "import", "--no-validate", "--workspace", ws, file)
				if code != 0 || !strings.Contains(stdout, "3 outlines: 3 added, 0 duplicate, 0 rejected, 0 skipped") ||
					!strings.Contains(stdout, "checked at its first poll") {
					t.Fatalf("%s: exit %d\n%s\n%s", name, code, stdout, stderr)
				}
				roundTrip(t, dir, env, ws, name, "3 outlines: 3 added")
			}
			if n := site.Requests(); n != 0 {
				t.Errorf("an import without validation made %d requests", n)
			}
		})
	}
}

// roundTrip exports workspace ws, imports the export as it is into a new
// workspace without validation and checks it holds the same sources, then
// imports it once more: all duplicates, exit 0.
func roundTrip(t *testing.T, dir string, env []string, ws, name, want string) string {
	t.Helper()
	exported, stderr, code := cliSplit(t, dir, env, "sources", "export", "--workspace", ws)
	if code != 0 {
		t.Fatalf("%s: export: exit %d: %s", name, code, stderr)
	}
	back := filepath.Join(dir, name+"-export.opml")
	if err := os.WriteFile(back, []byte(exported), 0o600); err != nil {
		t.Fatal(err)
	}
	ws2 := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", name+"-again", "--quiet"))
	stdout, stderr, code := cliSplit(t, dir, env, "sources", "import", "--no-validate", "--workspace", ws2, back)
	if code != 0 || !strings.Contains(stdout, want) {
		t.Fatalf("%s: re-import of the export: exit %d, want %q\n%s\n%s\n%s", name, code, want, stdout, stderr, exported)
	}
	if a, b := sourceShapes(t, env, ws), sourceShapes(t, env, ws2); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("%s: the export imported as other sources:\n%s\n--- want ---\n%s", name, strings.Join(b, "\n"), strings.Join(a, "\n"))
	}
	stdout, _, code = cliSplit(t, dir, env, "sources", "import", "--no-validate", "--workspace", ws2, back)
	if code != 0 || !strings.Contains(stdout, "0 added") {
		t.Fatalf("%s: importing the export twice: exit %d (duplicates are not failures)\n%s", name, code, stdout)
	}
	return exported
}

// Nested folders and web pages survive an export: the folders come out
// nested (never one folder named "Databases/PostgreSQL"), the web sources
// marked, and the export imports into the same sources without
// --web-pages. The help says what the exit status means, as the import
// does it.
func TestCLIExportNestedFoldersAndWebSources(t *testing.T) {
	raw, err := os.ReadFile("../../opml/testdata/other-reader.opml")
	if err != nil {
		t.Fatal(err)
	}
	site := opmltest.NewSite(t, "")
	dir := t.TempDir()
	env := quietEnv(testdb.URL(t, "sqlite"))
	file := filepath.Join(dir, "nested.opml")
	if err := os.WriteFile(file, []byte(site.PointAt(string(raw))), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := strings.TrimSpace(mustCLI(t, dir, env, "workspaces", "add", "--name", "nested", "--quiet"))
	stdout, stderr, code := cliSplit(t, dir, env, "sources", "import", "--no-validate", "--web-pages", "--workspace", ws, file)
	if code != 1 || !strings.Contains(stdout, "12 outlines: 10 added, 1 duplicate, 1 rejected, 0 skipped") {
		t.Fatalf("exit %d (want 1: the feed:// outline is rejected)\n%s\n%s", code, stdout, stderr)
	}
	exported := roundTrip(t, dir, env, ws, "nested", "10 outlines: 10 added, 0 duplicate, 0 rejected")
	if strings.Contains(exported, `text="Databases/PostgreSQL"`) || !strings.Contains(exported, `feedpoller:source="web"`) {
		t.Fatalf("the export flattens folders or leaves web sources unmarked:\n%s", exported)
	}
	_, help, _ := cliSplit(t, dir, env, "sources", "import", "--help")
	if !strings.Contains(help, "Exit status: 0 when every outline was added or was a duplicate") {
		t.Errorf("the help does not say that duplicates exit 0:\n%s", help)
	}
	if n := site.Requests(); n != 0 {
		t.Errorf("%d requests without validation", n)
	}
}
