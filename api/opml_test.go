package api_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/integrations/opml"
	"github.com/feedpoller/feedpoller/integrations/opml/opmltest"
)

type importReport struct {
	Outcomes []struct {
		URL      string `json:"url"`
		Name     string `json:"name"`
		Category string `json:"category"`
		Status   string `json:"status"`
		Reason   string `json:"reason"`
		SourceID int64  `json:"source_id"`
		Title    string `json:"title"`
	} `json:"outcomes"`
	Added, Duplicates, Rejected, Skipped int
}

func (e *env) importOPML(t *testing.T, wsID int64, query, body string) (*result, importReport) {
	t.Helper()
	r := e.call(call{method: "POST", path: path("/%d/sources/import%s", wsID, query), token: e.admin, body: body, contentType: "text/x-opml"})
	var rep importReport
	if r.status == http.StatusOK {
		r.decode(t, &rep)
	}
	return r, rep
}

// The realistic export of another reader (nested folders, a duplicate
// written another way, attribute names in another case, an entity in a
// title, pages without feeds, a feed:// URL) imports through the API,
// its URLs pointed at a loopback site: feeds are added with their folder
// as category and the reader's name as title, the duplicate is skipped,
// the rest rejected with the reason; with web_pages, pages become web
// sources. All of it from one host, one validation fetch at a time.
func TestImportOtherReadersOPML(t *testing.T) {
	raw, err := os.ReadFile("../integrations/opml/testdata/other-reader.opml")
	if err != nil {
		t.Fatal(err)
	}
	forEachDialect(t, func(t *testing.T, e *env) {
		site := opmltest.NewSite(t, "")
		doc := site.PointAt(string(raw))
		ws := e.createWorkspace(t, "from-freshrss")
		r, rep := e.importOPML(t, ws.ID, "", doc)
		r.want(t, http.StatusOK)
		if rep.Added != 8 || rep.Duplicates != 1 || rep.Rejected != 3 || rep.Skipped != 0 || len(rep.Outcomes) != 12 {
			t.Fatalf("report: added %d duplicate %d rejected %d skipped %d of %d\n%s", rep.Added, rep.Duplicates, rep.Rejected,
				rep.Skipped, len(rep.Outcomes), r.body)
		}
		byName := map[string]int{}
		for i, o := range rep.Outcomes {
			byName[o.Name] = i
		}
		want := []struct{ name, status, category, reason, site string }{
			{"The Go Blog", "added", "Go", "", "/go.dev/blog/"},
			{"Release notes", "rejected", "Go", "web pages", ""},
			{"PostgreSQL News", "added", "Databases/PostgreSQL", "", "/www.postgresql.org/"},
			{"SQLite release history", "rejected", "Databases", "web pages", ""},
			{"The Go Blog (again)", "duplicate", "Security & Ops", "same URL as outline 1", ""},
			{"Let's Encrypt", "added", "Security & Ops", "", "/letsencrypt.org/"},
			{"Hacker News", "added", "Aggregators/Tech", "", "/news.ycombinator.com/"},
			{"Süddeutsche – Wissen", "added", "", "", "/www.sueddeutsche.de/wissen"},
			{"Old podcast", "rejected", "", "not an http or https URL", ""},
		}
		for _, w := range want {
			i, ok := byName[w.name]
			if !ok {
				t.Errorf("no outcome for %q", w.name)
				continue
			}
			o := rep.Outcomes[i]
			if o.Status != w.status || o.Category != w.category || !strings.Contains(o.Reason, w.reason) {
				t.Errorf("%q: %+v, want %s in %q (reason with %q)", w.name, o, w.status, w.category, w.reason)
			}
			if w.status == "added" {
				src := e.getSourceJSON(t, ws.ID, o.SourceID)
				if src["title"] != w.name || src["category"] != w.category || src["source_type"] != "rss" ||
					src["site_url"] != site.URL+w.site {
					t.Errorf("%q stored as %v", w.name, src)
				}
			}
		}
		if n := site.MaxInFlight(); n != 1 {
			t.Errorf("%d validation fetches at once on one host, want 1", n)
		}

		other := e.createWorkspace(t, "with-pages")
		r, rep = e.importOPML(t, other.ID, "?web_pages=true", doc)
		r.want(t, http.StatusOK)
		if rep.Added != 10 || rep.Duplicates != 1 || rep.Rejected != 1 {
			t.Fatalf("with web pages: %s", r.body)
		}
		e.call(call{method: "POST", path: path("/%d/sources/import?web_pages=maybe", other.ID), token: e.admin, body: doc,
			contentType: "text/x-opml"}).want(t, http.StatusBadRequest)
	})
}

// getSourceJSON reads a source as the API answers it.
func (e *env) getSourceJSON(t *testing.T, wsID, id int64) map[string]any {
	t.Helper()
	var src map[string]any
	e.do("GET", path("/%d/sources/%d", wsID, id), e.admin, nil).want(t, http.StatusOK).decode(t, &src)
	return src
}

// What feedpoller exports is OPML 2.0 that imports into another
// workspace as the same sources: URL, type, title, category and a feed's
// site (htmlUrl), the one the feed names or the one given at creation.
func TestExportedOPMLReimports(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "exporter")
		e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/feed.xml", "category": "News/Loopback"})
		e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/feed.xml?edition=2", "title": "Second & <edition>",
			"site_url": "https://second.example/"})
		e.createSource(t, ws.ID, map[string]any{"url": e.site.URL + "/plain.html", "source_type": "web", "category": "Pages"})
		e.createSource(t, ws.ID, map[string]any{"url": "https://api.example.com/v1", "source_type": "api"})
		r := e.do("GET", path("/%d/sources.opml", ws.ID), e.admin, nil).want(t, http.StatusOK)
		if ct := r.header.Get("Content-Type"); ct != "text/x-opml; charset=utf-8" {
			t.Errorf("content type %q", ct)
		}
		doc, err := opml.Parse(bytes.NewReader(r.body), opml.Limits{})
		if err != nil || doc.Version != "2.0" || len(doc.Outlines) != 3 {
			t.Fatalf("export does not parse as OPML 2.0 with 3 outlines: %v %+v\n%s", err, doc, r.body)
		}
		htmlURLs := map[string]string{}
		for _, o := range doc.Outlines {
			htmlURLs[o.XMLURL] = o.HTMLURL
		}
		if htmlURLs[e.site.URL+"/feed.xml"] != "http://example.test/" || htmlURLs[e.site.URL+"/feed.xml?edition=2"] != "https://second.example/" {
			t.Errorf("feeds' htmlUrl: %v\n%s", htmlURLs, r.body)
		}
		other := e.createWorkspace(t, "importer")
		res, rep := e.importOPML(t, other.ID, "?web_pages=true", string(r.body))
		res.want(t, http.StatusOK)
		if rep.Added != 3 {
			t.Fatalf("re-import: %s", res.body)
		}
		shape := func(wsID int64) string {
			var list struct{ Items []map[string]any }
			e.do("GET", path("/%d/sources", wsID), e.admin, nil).want(t, http.StatusOK).decode(t, &list)
			var out []string
			for _, s := range list.Items {
				if s["source_type"] != "api" {
					out = append(out, fmt.Sprintf("%v|%v|%v|%v|%v", s["url"], s["source_type"], s["title"], s["category"], s["site_url"]))
				}
			}
			sort.Strings(out)
			return strings.Join(out, "\n")
		}
		if a, b := shape(ws.ID), shape(other.ID); a != b {
			t.Fatalf("after the round trip:\n%s\n--- want ---\n%s", b, a)
		}
		e.do("GET", path("/%d/sources.opml", 9999), e.admin, nil).want(t, http.StatusNotFound)
	})
}

// Hostile OPML gets a clear error before anything is fetched or stored:
// entity declarations (XXE, billion laughs), more outlines than the limit,
// a body over the size limit (413), and bodies that are not OPML.
func TestImportHostileOPML(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		site := opmltest.NewSite(t, "")
		ws := e.createWorkspace(t, "hostile")
		var many strings.Builder
		many.WriteString(`<opml version="2.0"><body>`)
		for i := range 100_000 {
			fmt.Fprintf(&many, `<outline type="rss" xmlUrl="%s/f%d"/>`, site.URL, i)
		}
		many.WriteString(`</body></opml>`)
		huge := `<opml version="2.0"><body><outline type="rss" xmlUrl="` + site.URL + `/f" text="` + strings.Repeat("a", 50<<20) + `"/></body></opml>`
		for _, c := range []struct {
			name, body string
			status     int
			want       string
		}{
			{"xxe", `<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY xxe SYSTEM "` + site.URL + `/secret">]><opml><body><outline type="rss" xmlUrl="&xxe;"/></body></opml>`,
				http.StatusBadRequest, "entity declarations are not allowed"},
			{"billion laughs", `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol9 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><opml><body><outline text="&lol9;" xmlUrl="` + site.URL + `/f"/></body></opml>`,
				http.StatusBadRequest, "entity declarations are not allowed"},
			{"100 000 outlines", many.String(), http.StatusBadRequest, "more than 10000 outlines"},
			{"50 MB", huge, http.StatusRequestEntityTooLarge, "more than 10485760 bytes"},
			{"not XML", "name,url\nfeed," + site.URL + "/f\n", http.StatusBadRequest, "not an OPML document"},
			{"an RSS feed", `<rss version="2.0"><channel><title>x</title></channel></rss>`, http.StatusBadRequest, "this is a feed"},
			{"truncated", `<opml version="2.0"><body><outline type="rss" xmlUrl="` + site.URL + `/f">`, http.StatusBadRequest, "truncated"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r, _ := e.importOPML(t, ws.ID, "", c.body)
				r.want(t, c.status)
				if eb := r.errBody(t); !strings.Contains(eb.Error, c.want) {
					t.Errorf("error %q, want it to say %q", eb.Error, c.want)
				}
			})
		}
		if n := site.Requests(); n != 0 {
			t.Errorf("hostile bodies made %d requests", n)
		}
		if n := e.countRows(t, "feed_sources"); n != 0 {
			t.Errorf("hostile bodies stored %d sources", n)
		}
	})
}

// A long list is imported with bounded concurrency: never more than 4
// validation fetches at once in all, never more than one per host.
func TestImportIsBoundedPerHostAndInAll(t *testing.T) {
	e := newEnv(t, "sqlite")
	var sites []*opmltest.Site
	for i := 1; i <= 6; i++ {
		s := opmltest.NewSite(t, fmt.Sprintf("127.0.0.%d:0", i))
		s.Delay = 20 * time.Millisecond
		sites = append(sites, s)
	}
	var doc strings.Builder
	doc.WriteString(`<opml version="2.0"><body>`)
	for i := range 120 {
		s := sites[i%len(sites)]
		s.AddFeed(fmt.Sprintf("/f%d", i))
		fmt.Fprintf(&doc, `<outline type="rss" text="feed %d" xmlUrl="%s/f%d"/>`, i, s.URL, i)
	}
	doc.WriteString(`</body></opml>`)
	var all atomic.Int64
	peak := 0
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			n := 0
			for _, s := range sites {
				n += s.InFlight()
			}
			peak = max(peak, n)
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	ws := e.createWorkspace(t, "many")
	r, rep := e.importOPML(t, ws.ID, "", doc.String())
	close(stop)
	<-done
	r.want(t, http.StatusOK)
	if rep.Added != 120 {
		t.Fatalf("added %d of 120: %s", rep.Added, r.body)
	}
	for i, s := range sites {
		all.Add(s.Requests())
		if m := s.MaxInFlight(); m != 1 {
			t.Errorf("host %d: %d fetches at once, want 1", i+1, m)
		}
	}
	if peak > opml.DefaultConcurrency {
		t.Errorf("%d fetches at once in all, want at most %d", peak, opml.DefaultConcurrency)
	}
	if all.Load() != 120 {
		t.Errorf("%d requests for 120 outlines", all.Load())
	}
}
