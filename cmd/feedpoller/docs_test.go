package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitectureDocCitesExistingFiles keeps docs/architecture.md true
// to the tree: every repository path it cites in backquotes (a/b, a/b.go,
// a/) exists, and every bare Go file name it cites (normalize.go) is the
// name of some file of the repository. Outside import paths (a first
// segment with a dot) are not the repository's.
func TestArchitectureDocCitesExistingFiles(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		names[d.Name()] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A path: lower-case segments joined by slashes, optionally a file
	// with an extension; the first segment is a top-level directory.
	pathLike := regexp.MustCompile(`^[a-z_][a-z0-9_.-]*(/[a-z0-9_.-]+)+/?$|^[a-z_][a-z0-9_-]*/$`)
	cited := 0
	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(string(doc), -1) {
		tok := m[1]
		switch {
		case strings.Contains(strings.Split(tok, "/")[0], "."):
			// An outside module's import path (golang.org/x/…).
		case pathLike.MatchString(tok):
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(tok, "/")))); err != nil {
				t.Errorf("docs/architecture.md cites %s, which does not exist", tok)
			}
			cited++
		case strings.HasSuffix(tok, ".go") && !strings.ContainsAny(tok, " /("):
			if !names[tok] {
				t.Errorf("docs/architecture.md cites %s, which no file of the repository is named", tok)
			}
			cited++
		}
	}
	if cited < 40 {
		t.Fatalf("only %d paths found in docs/architecture.md: the parser no longer reads its citations", cited)
	}
}

// TestArchitectureDocNamesEveryPackage keeps the package map of
// docs/architecture.md whole: every directory of the repository holding
// a non-test Go file is named in it, as dir/ (the diagram) or `dir`.
func TestArchitectureDocNamesEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			pkgs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 40 {
		t.Fatalf("only %d packages found: the walk no longer finds the tree", len(pkgs))
	}
	for dir := range pkgs {
		if !strings.Contains(string(doc), dir+"/") && !strings.Contains(string(doc), "`"+dir+"`") {
			t.Errorf("docs/architecture.md does not name package %s", dir)
		}
	}
}
