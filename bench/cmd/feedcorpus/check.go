package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"
	ext "github.com/mmcdole/gofeed/extensions"
	xhtml "golang.org/x/net/html"
	_ "modernc.org/sqlite" // read the daemon's database
)

var (
	// tagRe is an HTML tag as a reader would see it in a title.
	tagRe = regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9:-]*(\s[^<>]*)?/?>`)
	// entityRe is a character or named entity reference left undecoded.
	entityRe = regexp.MustCompile(`&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});`)
	// fffdRefRe is U+FFFD written as a character reference.
	fffdRefRe = regexp.MustCompile(`(?i)&#(65533|x0*fffd);`)
)

// storedArticle is one feed_articles row.
type storedArticle struct {
	title, author, summary, body, method, url string
	guid                                      sql.NullString
}

// storedArticles reads the stored articles by source.
func storedArticles(db *sql.DB) (map[int64][]storedArticle, error) {
	rows, err := db.Query(`SELECT feed_source_id, title, author, summary, content_markdown, extraction_method,
		external_url, external_id FROM feed_articles ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("read stored articles: %w", err)
	}
	defer rows.Close()
	arts := map[int64][]storedArticle{}
	for rows.Next() {
		var src int64
		var a storedArticle
		var author, summary, body, method sql.NullString
		if err := rows.Scan(&src, &a.title, &author, &summary, &body, &method, &a.url, &a.guid); err != nil {
			return nil, fmt.Errorf("read stored articles: %w", err)
		}
		a.author, a.summary, a.body, a.method = author.String, summary.String, body.String, method.String
		arts[src] = append(arts[src], a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read stored articles: %w", err)
	}
	return arts, nil
}

// sourceTitles reads the titles the daemon gave the sources.
func sourceTitles(db *sql.DB) (map[int64]string, error) {
	rows, err := db.Query(`SELECT id, title FROM feed_sources`)
	if err != nil {
		return nil, fmt.Errorf("read source titles: %w", err)
	}
	defer rows.Close()
	titles := map[int64]string{}
	for rows.Next() {
		var id int64
		var t sql.NullString
		if err := rows.Scan(&id, &t); err != nil {
			return nil, fmt.Errorf("read source titles: %w", err)
		}
		titles[id] = t.String
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read source titles: %w", err)
	}
	return titles, nil
}

// judgeStored reads what the daemon stored and checks it against the
// files.
func judgeStored(dir, dbPath string, results []*fileResult, bySource map[int64]*fileResult) error {
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	arts, err := storedArticles(db)
	if err != nil {
		return err
	}
	titles, err := sourceTitles(db)
	if err != nil {
		return err
	}

	for _, r := range results {
		raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.File)))
		if err != nil {
			return err
		}
		ref := reference(raw)
		if ref != nil {
			r.Reference = len(ref.Items)
		}
		if r.sourceID == 0 {
			continue
		}
		stored := arts[r.sourceID]
		r.Stored = len(stored)
		if skipped := r.Seen - r.New - r.Duplicate; skipped > 0 {
			logged := 0
			for _, n := range r.Skipped {
				logged += n
			}
			if logged < skipped {
				addSkip(r, "no reason logged", skipped-logged)
			}
		}
		if r.Duplicate > 0 {
			addSkip(r, "duplicate of another item of the feed", r.Duplicate)
		}
		judgeFile(r, raw, ref, titles[r.sourceID], stored)
	}
	return nil
}

func addSkip(r *fileResult, reason string, n int) {
	if r.Skipped == nil {
		r.Skipped = map[string]int{}
	}
	r.Skipped[reason] += n
}

func judgeFile(r *fileResult, raw []byte, ref *gofeed.Feed, sourceTitle string, stored []storedArticle) {
	if hasMarkup(sourceTitle) {
		r.Markup = append(r.Markup, "source title "+quote(sourceTitle))
	}
	fileHasFFFD := bytes.Contains(raw, []byte("\uFFFD")) || fffdRefRe.Match(raw)
	if !fileHasFFFD && strings.ContainsRune(sourceTitle, '\uFFFD') {
		r.FFFD = append(r.FFFD, "source title "+quote(sourceTitle))
	}
	for _, a := range stored {
		if hasMarkup(a.title) {
			r.Markup = append(r.Markup, "title "+quote(a.title))
		}
		if hasMarkup(a.author) {
			r.Markup = append(r.Markup, "author "+quote(a.author))
		}
		if !fileHasFFFD {
			for _, f := range []struct{ name, v string }{{"title", a.title}, {"author", a.author}, {"summary", a.summary}, {"body", a.body}} {
				if strings.ContainsRune(f.v, '\uFFFD') {
					r.FFFD = append(r.FFFD, f.name+" of "+quote(a.title))
				}
			}
		}
		if strings.TrimSpace(a.body) != "" {
			continue
		}
		it := matchItem(ref, a)
		if it == nil {
			r.Unjudged++
			continue
		}
		if hadContent(it) {
			r.Empty = append(r.Empty, quote(a.title)+" "+a.url)
		}
	}
}

func hasMarkup(s string) bool { return tagRe.MatchString(s) || entityRe.MatchString(s) }

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return fmt.Sprintf("%q", s)
}

// reference is gofeed's own reading of the file, nil when it fails.
func reference(raw []byte) (feed *gofeed.Feed) {
	defer func() {
		if recover() != nil {
			feed = nil
		}
	}()
	f, err := gofeed.NewParser().Parse(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	return f
}

// matchItem finds the file's item a stored article came from: by id, then
// by link, then by title.
func matchItem(ref *gofeed.Feed, a storedArticle) *gofeed.Item {
	if ref == nil {
		return nil
	}
	for _, it := range ref.Items {
		if it != nil && a.guid.Valid && strings.TrimSpace(it.GUID) == a.guid.String {
			return it
		}
	}
	for _, it := range ref.Items {
		if it != nil && it.Link != "" && strings.TrimSuffix(strings.TrimSpace(it.Link), "/") == strings.TrimSuffix(a.url, "/") {
			return it
		}
	}
	for _, it := range ref.Items {
		if it != nil && plain(it.Title) == plain(a.title) {
			return it
		}
	}
	return nil
}

// hadContent says whether a reader would have shown the item something
// beyond its title: visible text or an image in its HTML, or a Media RSS
// description or thumbnail with a URL. Binary payloads (gofeed decodes
// some base64, leaves the rest) are not text.
func hadContent(it *gofeed.Item) bool {
	for _, s := range []string{it.Content, it.Description} {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) || base64Re.MatchString(strings.TrimSpace(s)) {
			continue
		}
		if text, img := visible(s); text != "" || img {
			return true
		}
	}
	media := it.Extensions["media"]
	scopes := []map[string][]ext.Extension{media}
	for _, g := range media["group"] {
		scopes = append(scopes, g.Children)
	}
	for _, sc := range scopes {
		for _, d := range sc["description"] {
			if text, img := visible(d.Value); text != "" || img {
				return true
			}
		}
		for _, th := range sc["thumbnail"] {
			if strings.TrimSpace(th.Attrs["url"]) != "" {
				return true
			}
		}
	}
	return false
}

// base64Re is one unbroken base64 run: a payload, not prose.
var base64Re = regexp.MustCompile(`^[A-Za-z0-9+/]{16,}={0,2}$`)

// visible parses s as HTML the way a browser would and reports its text
// and whether it shows an image (tracking pixels of size 0 or 1 do not
// count).
func visible(s string) (string, bool) {
	doc, err := xhtml.Parse(strings.NewReader(s))
	if err != nil {
		return "", false
	}
	var b strings.Builder
	img := false
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		switch {
		case n.Type == xhtml.TextNode:
			b.WriteString(n.Data + " ")
		case n.Type == xhtml.ElementNode && (n.Data == "script" || n.Data == "style"):
			return
		case n.Type == xhtml.ElementNode && n.Data == "img":
			src, tiny := "", false
			for _, a := range n.Attr {
				switch a.Key {
				case "src":
					src = strings.TrimSpace(a.Val)
				case "width", "height":
					v := strings.TrimSuffix(strings.TrimSpace(a.Val), "px")
					tiny = tiny || v == "0" || v == "1"
				}
			}
			img = img || (src != "" && !tiny)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return strings.Join(strings.Fields(b.String()), " "), img
}

// plain is s without tags, entities decoded, whitespace collapsed.
func plain(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tagRe.ReplaceAllString(s, " "))), " ")
}
