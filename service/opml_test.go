package service_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/feedpoller/feedpoller/integrations/opml"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// urlValidator fails the URLs it is told to and accepts the rest.
type urlValidator struct {
	mu    sync.Mutex
	fail  map[string]error
	calls []string
}

func (v *urlValidator) check(url string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls = append(v.calls, url)
	return v.fail[url]
}

func (v *urlValidator) ValidateFeed(_ context.Context, url string) (service.FeedCheck, error) {
	return service.FeedCheck{Title: "Feed's own title", ItemCount: 1}, v.check(url)
}

func (v *urlValidator) ValidatePage(_ context.Context, url string) (string, []string, error) {
	return "Page's own title", nil, v.check(url)
}

func importFixture(t *testing.T, v service.Validator) *fixture {
	return newFixture(t, func(o *service.Options) {
		o.Validator = v
		o.ImportHostGap = -1
	})
}

const subscriptions = `<?xml version="1.0"?>
<opml version="2.0"><head><title>mine</title></head><body>
  <outline text="Tech">
    <outline text="Go">
      <outline text="The Go Blog" type="rss" xmlUrl="https://go.test/feed.atom" htmlUrl="https://go.test/"/>
    </outline>
    <outline text="Broken" type="rss" xmlUrl="https://broken.test/feed"/>
  </outline>
  <outline text="Already here" type="rss" xmlUrl="HTTPS://Known.test:443/feed"/>
  <outline text="A page" htmlUrl="https://page.test/news"/>
  <outline type="rss" xmlUrl="https://untitled.test/rss" htmlUrl="javascript:alert(1)"/>
</body></opml>`

// Every outline is decided through the source service: a new feed is
// added with its folder as category, the reader's name as title and its
// htmlUrl as site, a
// URL the workspace has (written another way) is a duplicate naming the
// stored source, a failed validation is rejected with the service's
// reason, a page is rejected unless web pages are asked for.
func TestImportOPMLDecidesEachOutline(t *testing.T) {
	v := &urlValidator{fail: map[string]error{"https://broken.test/feed": errors.New("HTTP 404")}}
	f := importFixture(t, v)
	ctx := context.Background()
	if _, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://known.test/feed"}); err != nil {
		t.Fatal(err)
	}
	v.calls = nil
	rep, err := f.svc.ImportOPML(ctx, f.wsID, strings.NewReader(subscriptions), service.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]opml.Outcome{}
	for _, o := range rep.Outcomes {
		got[o.URL] = o
	}
	if o := got["https://go.test/feed.atom"]; o.Status != opml.StatusAdded || o.Title != "The Go Blog" || o.SourceID == 0 {
		t.Errorf("new feed: %+v", o)
	}
	if o := got["https://untitled.test/rss"]; o.Status != opml.StatusAdded || o.Title != "Feed's own title" {
		t.Errorf("outline without a name: %+v, want the feed's own title", o)
	}
	if o := got["https://broken.test/feed"]; o.Status != opml.StatusRejected || !strings.Contains(o.Reason, "HTTP 404") {
		t.Errorf("broken feed: %+v", o)
	}
	if o := got["HTTPS://Known.test:443/feed"]; o.Status != opml.StatusDuplicate {
		t.Errorf("known feed: %+v", o)
	}
	if o := got["https://page.test/news"]; o.Status != opml.StatusRejected || !strings.Contains(o.Reason, "web pages") {
		t.Errorf("page without web pages: %+v", o)
	}
	if rep.Added != 2 || rep.Duplicates != 1 || rep.Rejected != 2 {
		t.Errorf("report %+v", rep)
	}
	src, err := f.svc.GetSource(ctx, f.wsID, got["https://go.test/feed.atom"].SourceID)
	if err != nil || src.Category != "Tech/Go" || src.Title != "The Go Blog" || src.SourceType != model.SourceRSS ||
		src.SiteURL != "https://go.test/" {
		t.Errorf("stored %+v %v", src, err)
	}
	// An htmlUrl the service would refuse costs the feed nothing: it is
	// dropped, the feed added.
	if src, err := f.svc.GetSource(ctx, f.wsID, got["https://untitled.test/rss"].SourceID); err != nil || src.SiteURL != "" {
		t.Errorf("feed with a javascript: htmlUrl stored %+v %v", src, err)
	}
	for _, u := range v.calls {
		if strings.Contains(strings.ToLower(u), "known.test") {
			t.Errorf("the duplicate was fetched: %s", u)
		}
	}

	// With web pages, the page becomes a web source; the rest are now
	// duplicates of what the first import added.
	rep, err = f.svc.ImportOPML(ctx, f.wsID, strings.NewReader(subscriptions), service.ImportOptions{WebPages: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 1 || rep.Duplicates != 3 || rep.Rejected != 1 {
		t.Errorf("second import %+v", rep)
	}
}

// A conflict found by the store itself (two imports racing) is a
// duplicate whose reason names the stored source; a process that cannot
// validate is a rejection to retry later, not a stop.
func TestImportOPMLMapsServiceErrors(t *testing.T) {
	f := newFixture(t, func(o *service.Options) { o.Validator = nil; o.ImportHostGap = -1 })
	rep, err := f.svc.ImportOPML(context.Background(), f.wsID, strings.NewReader(subscriptions), service.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Outcomes {
		if o.Status != opml.StatusRejected {
			t.Errorf("%s: %+v, want rejected", o.URL, o)
		}
	}
	if !strings.Contains(rep.Outcomes[0].Reason, "cannot be validated") {
		t.Errorf("reason %q", rep.Outcomes[0].Reason)
	}
}

// failingStore fails to store sources after the first n, as a database
// that went away would.
type failingStore struct {
	*memStore
	left int
}

func (s *failingStore) CreateSource(ctx context.Context, src *model.FeedSource) error {
	if s.left <= 0 {
		return errors.New("database is gone")
	}
	s.left--
	return s.memStore.CreateSource(ctx, src)
}

// A failure of the service itself stops the import: it is returned with
// the report, the outlines not created are skipped, what was added stays.
func TestImportOPMLStopsOnStoreFailure(t *testing.T) {
	fs := &failingStore{memStore: &memStore{}, left: 1}
	o := service.DefaultOptions()
	o.Store, o.Validator, o.ImportHostGap = fs, &urlValidator{}, -1
	svc, err := service.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := svc.CreateWorkspace(context.Background(), service.WorkspaceSpec{Name: "w"})
	var body strings.Builder
	body.WriteString(`<opml version="2.0"><body>`)
	for i := range 6 {
		fmt.Fprintf(&body, `<outline type="rss" xmlUrl="https://h%d.test/feed"/>`, i)
	}
	body.WriteString(`</body></opml>`)
	rep, err := svc.ImportOPML(context.Background(), ws.ID, strings.NewReader(body.String()), service.ImportOptions{Concurrency: 1})
	if err == nil || !strings.Contains(err.Error(), "database is gone") {
		t.Fatalf("error %v, want the store's", err)
	}
	if rep.Added != 1 || rep.Skipped != 5 {
		t.Fatalf("report %+v, want 1 added and the other 5 skipped", rep)
	}
}

// A body the parser refuses is invalid input naming the limit or the
// problem, and nothing is created or fetched.
func TestImportOPMLRefusesHostileBodies(t *testing.T) {
	v := &urlValidator{}
	f := importFixture(t, v)
	var many strings.Builder
	many.WriteString(`<opml version="2.0"><body>`)
	for i := range 100_001 {
		fmt.Fprintf(&many, `<outline type="rss" xmlUrl="https://h%d.test/f"/>`, i)
	}
	many.WriteString(`</body></opml>`)
	for _, c := range []struct {
		name, body string
		want       error
	}{
		{"xxe", `<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><opml><body><outline xmlUrl="&xxe;"/></body></opml>`, opml.ErrEntities},
		{"billion laughs", `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><opml><body><outline text="&lol2;"/></body></opml>`, opml.ErrEntities},
		{"100 000 outlines", many.String(), opml.ErrTooManyOutlines},
		{"50 MB", `<opml><body><outline text="` + strings.Repeat("a", 50<<20) + `"/></body></opml>`, opml.ErrTooLarge},
		{"not XML", "this is not xml at all {}", opml.ErrNotOPML},
		{"a feed, not OPML", `<rss version="2.0"><channel/></rss>`, opml.ErrNotOPML},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.svc.ImportOPML(context.Background(), f.wsID, strings.NewReader(c.body), service.ImportOptions{})
			_ = wantKind(t, err, service.ErrInvalid, "")
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want one wrapping %v", err, c.want)
			}
		})
	}
	if len(v.calls) != 0 {
		t.Fatalf("hostile bodies made %d validation fetches", len(v.calls))
	}
	if srcs, _ := f.svc.ListSources(context.Background(), f.wsID); len(srcs) != 0 {
		t.Fatalf("hostile bodies created %d sources", len(srcs))
	}
}

// What ExportOPML writes imports into another workspace as the same
// sources: URLs, types, titles, categories and a feed's site (htmlUrl).
func TestExportOPMLReimports(t *testing.T) {
	f := importFixture(t, &urlValidator{})
	ctx := context.Background()
	for _, spec := range []service.SourceSpec{
		{URL: "https://a.test/feed", Title: ptr("A feed"), Category: ptr("News/Tech"), SiteURL: ptr("https://www.a.test/")},
		{URL: "https://b.test/feed", Title: ptr("B & <feed>")},
		{URL: "https://c.test/page", SourceType: "web", Title: ptr("C page"), Category: ptr("Pages")},
		{URL: "https://d.test/api", SourceType: "api"},
	} {
		if _, err := f.svc.CreateSource(ctx, f.wsID, spec); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := f.svc.ExportOPML(ctx, f.wsID, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `xmlUrl="https://a.test/feed" htmlUrl="https://www.a.test/"`) {
		t.Errorf("the feed's site is not its htmlUrl:\n%s", buf.String())
	}
	rep, err := f.svc.ImportOPML(ctx, f.other, &buf, service.ImportOptions{WebPages: true})
	if err != nil || rep.Added != 3 {
		t.Fatalf("re-import: %+v %v\n%s", rep, err, buf.String())
	}
	shape := func(ws int64) string {
		srcs, _ := f.svc.ListSources(ctx, ws)
		var out []string
		for _, s := range srcs {
			if s.SourceType != model.SourceAPI {
				out = append(out, fmt.Sprintf("%s|%s|%s|%s|%s", s.URL, s.SourceType, s.Title, s.Category, s.SiteURL))
			}
		}
		sort.Strings(out) // creations run side by side: ids follow completion
		return strings.Join(out, "\n")
	}
	if a, b := shape(f.wsID), shape(f.other); a != b {
		t.Fatalf("sources differ after the round trip:\n%s\n---\n%s", a, b)
	}
}
