package main

import (
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// feedExts are the file names served as feeds.
var feedExts = map[string]string{
	".xml":  "application/xml",
	".rss":  "application/rss+xml",
	".atom": "application/atom+xml",
	".rdf":  "application/rdf+xml",
	".json": "application/feed+json",
}

// corpusFiles lists the feed files under dir, relative and slash-separated,
// in a stable order. A .json file beside a same-named .xml file, or named
// *_expected.json, is a parser test's expected output, not a feed.
func corpusFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		ext := strings.ToLower(filepath.Ext(p))
		if _, ok := feedExts[ext]; !ok {
			return nil
		}
		if ext == ".json" {
			stem := strings.TrimSuffix(p, filepath.Ext(p))
			if strings.HasSuffix(stem, "_expected") {
				return nil
			}
			if _, err := os.Stat(stem + ".xml"); err == nil {
				return nil
			}
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out, err
}

// fileServer serves the corpus files verbatim, with a content type from
// the extension and no charset, as a plain static server would.
type fileServer struct {
	dir string
	srv *http.Server
	url string
}

func startFileServer(dir string) (*fileServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	fsrv := &fileServer{dir: dir, url: "http://" + l.Addr().String()}
	fsrv.srv = &http.Server{Handler: http.HandlerFunc(fsrv.serve)}
	go func() { _ = fsrv.srv.Serve(l) }()
	return fsrv, nil
}

func (f *fileServer) serve(w http.ResponseWriter, r *http.Request) {
	rel := path.Clean(strings.TrimPrefix(r.URL.Path, "/"))
	if rel == "." || strings.HasPrefix(rel, "..") {
		http.NotFound(w, r)
		return
	}
	body, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(rel)))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", feedExts[strings.ToLower(path.Ext(rel))])
	_, _ = w.Write(body)
}

// urlOf is where a corpus file is served. Path segments are escaped so
// names with spaces or '#' stay one path.
func (f *fileServer) urlOf(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return f.url + "/" + strings.Join(parts, "/")
}

func (f *fileServer) close() { _ = f.srv.Close() }
