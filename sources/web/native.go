package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"

	"github.com/feedpoller/feedpoller/sources"
	"github.com/feedpoller/feedpoller/sources/extract"
	"github.com/feedpoller/feedpoller/sources/fetch"
)

// minReadableWords is the visible body text below which a page counts as a
// client-rendered shell with nothing to read.
const minReadableWords = 20

// fetchNative gets the page with the hardened fetcher, using the stored
// validators, and reads its metadata from the page itself.
func (p *Fetcher) fetchNative(ctx context.Context, req sources.Request) (*sources.Result, error) {
	resp, err := p.Client.Get(ctx, fetch.Request{
		URL: req.URL, Accept: htmlAccept, ETag: req.ETag, LastModified: req.LastModified,
	})
	if err != nil {
		return nil, asFetchError(err)
	}
	etag, lastMod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	if resp.Status == http.StatusNotModified {
		// A 304 may omit the validators; the stored ones still hold.
		return &sources.Result{
			NotModified: true, HTTPStatus: resp.Status, FinalURL: resp.FinalURL,
			ETag: orElse(etag, req.ETag), LastModified: orElse(lastMod, req.LastModified),
		}, nil
	}
	if ct, ok := htmlType(resp.ContentType, resp.Body); !ok {
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Status: resp.Status, Msg: notHTML(ct)}
	}
	body := toUTF8(resp.Body, resp.Header.Get("Content-Type"))
	if visibleWords(body, minReadableWords) < minReadableWords {
		return nil, &sources.FetchError{Kind: sources.KindPermanent, Status: resp.Status, Msg: "page has no readable content"}
	}
	meta := extract.ParseMetadata(body, resp.FinalURL)
	item := itemFromPage(req.URL, string(body), meta)
	return &sources.Result{
		HTTPStatus: resp.Status, FeedTitle: feedTitle(item), Items: []sources.FeedItem{item},
		ETag: etag, LastModified: lastMod, FinalURL: resp.FinalURL,
	}, nil
}

// htmlType says whether a response is HTML or XHTML, sniffing when the
// server named no type; it returns the type to report otherwise.
func htmlType(mediaType string, body []byte) (string, bool) {
	if mediaType == "" {
		mediaType, _, _ = strings.Cut(http.DetectContentType(body), ";")
	}
	switch mediaType {
	case "text/html", "application/xhtml+xml":
		return mediaType, true
	}
	return mediaType, false
}

func notHTML(mediaType string) string {
	return fmt.Sprintf("content type %s is not HTML", mediaType)
}

// toUTF8 decodes a page in a legacy charset (from the header, a BOM or
// <meta charset>) so stored text is always valid UTF-8.
func toUTF8(body []byte, contentType string) []byte {
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	if name != "utf-8" && enc != nil {
		if decoded, err := io.ReadAll(enc.NewDecoder().Reader(bytes.NewReader(body))); err == nil {
			body = decoded
		}
	}
	return bytes.ToValidUTF8(body, []byte("\uFFFD"))
}

// invisible are elements whose text a reader never sees.
var invisible = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true,
	atom.Template: true, atom.Svg: true, atom.Iframe: true, atom.Object: true,
}

// visibleWords counts the words of the page's visible body text, stopping
// at limit.
func visibleWords(page []byte, limit int) int {
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return 0
	}
	n := 0
	// Explicit stack: hostile, deeply nested pages must not exhaust the
	// goroutine stack.
	stack := []*html.Node{doc}
	for len(stack) > 0 && n < limit {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch {
		case cur.Type == html.ElementNode && (invisible[cur.DataAtom] || hasAttr(cur, "hidden")):
			continue
		case cur.Type == html.TextNode:
			n += extract.CountWords(cur.Data)
		}
		for c := cur.LastChild; c != nil; c = c.PrevSibling {
			stack = append(stack, c)
		}
	}
	return n
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}

func orElse(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
