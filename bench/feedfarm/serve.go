package feedfarm

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// serveFeed answers GET /feed/{n}.xml.
func (f *Farm) serveFeed(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutSuffix(r.PathValue("file"), ".xml")
	n, err := strconv.Atoi(name)
	if !ok || err != nil || n < 0 || n >= len(f.feeds) || name != strconv.Itoa(n) {
		f.notFound.Add(1)
		http.NotFound(w, r)
		return
	}
	v := f.visit(n, time.Now())
	if !f.wait(r.Context()) {
		return
	}
	etag := f.feedETag(n, v)
	lastMod := f.published(n, f.topItem(v))
	setValidators(w.Header(), etag, lastMod)
	if notModified(r, etag, lastMod) {
		f.answered(n, http.StatusNotModified)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	buf := f.getBuf()
	defer f.putBuf(buf)
	base := baseURL(r)
	if f.FormatOf(n) == FormatAtom {
		w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
		f.writeAtom(buf, base, n, v)
	} else {
		w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
		f.writeRSS(buf, base, n, v)
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	f.answered(n, http.StatusOK)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes()) // a reader that hung up is not the farm's problem
	}
}

// serveItem answers GET /item/{n}/{k} with the article page of an item that
// has been published so far (items are never unpublished).
func (f *Farm) serveItem(w http.ResponseWriter, r *http.Request) {
	n, errN := strconv.Atoi(r.PathValue("feed"))
	k, errK := strconv.Atoi(r.PathValue("k"))
	if errN != nil || errK != nil || n < 0 || n >= len(f.feeds) || k < 0 || k > f.topItem(f.currentVersion(n)) {
		f.notFound.Add(1)
		http.NotFound(w, r)
		return
	}
	if !f.wait(r.Context()) {
		return
	}
	f.items.Add(1)
	etag := f.itemETag(n, k)
	pub := f.published(n, k)
	setValidators(w.Header(), etag, pub)
	if notModified(r, etag, pub) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	buf := f.getBuf()
	defer f.putBuf(buf)
	f.writeItemPage(buf, baseURL(r), n, k)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// serveFeedList answers GET /_feeds with every feed URL, one a line, so a
// script can register them all with a reader.
func (f *Farm) serveFeedList(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	buf := f.getBuf()
	defer f.putBuf(buf)
	base := baseURL(r)
	for n := range f.feeds {
		buf.WriteString(base)
		buf.WriteString("/feed/")
		buf.WriteString(strconv.Itoa(n))
		buf.WriteString(".xml\n")
	}
	_, _ = w.Write(buf.Bytes())
}

// wait applies the configured latency; false means the client gave up first.
func (f *Farm) wait(ctx context.Context) bool {
	if f.opts.Latency <= 0 {
		return true
	}
	t := time.NewTimer(f.opts.Latency)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// baseURL is scheme://host as the client addressed the farm, so links work
// whatever address or name the farm is reached by.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		host = "127.0.0.1"
	}
	return scheme + "://" + host
}
