package service_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

// fixture is a service over memory, with a workspace (id 1) and options
// that differ from the built-in defaults, so a default taken from
// anywhere else shows.
type fixture struct {
	svc   *service.Service
	st    *memStore
	val   *fakeValidator
	poll  *fakePoller
	wsID  int64
	other int64
}

func newFixture(t *testing.T, change ...func(*service.Options)) *fixture {
	t.Helper()
	f := &fixture{st: &memStore{}, val: &fakeValidator{title: "Feed Title", items: 3}, poll: &fakePoller{}}
	o := service.DefaultOptions()
	o.Store, o.Validator, o.Poller = f.st, f.val, f.poll
	o.RSSIntervalMinutes, o.WebIntervalMinutes, o.DefaultThreshold = 17, 99, 0.35
	for _, c := range change {
		c(&o)
	}
	svc, err := service.New(o)
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	ctx := context.Background()
	for _, name := range []string{"main", "other"} {
		ws, err := svc.CreateWorkspace(ctx, service.WorkspaceSpec{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if name == "main" {
			f.wsID = ws.ID
		} else {
			f.other = ws.ID
		}
	}
	return f
}

func ptr[T any](v T) *T { return &v }

// wantKind fails unless err is a *service.Error of kind, naming field
// (when field is not "").
// wantKind returns the error's fields by value, to read its message and
// fields.
func wantKind(t *testing.T, err, kind error, field string) service.Error {
	t.Helper()
	var se *service.Error
	if !errors.As(err, &se) || !errors.Is(err, kind) {
		t.Fatalf("error %v (%T), want a service error of kind %v", err, err, kind)
	}
	if field != "" && se.Fields[field] == "" {
		t.Fatalf("error %q fields %v, want one naming %s", se.Message, se.Fields, field)
	}
	return *se
}

func TestCreateSourceDefaultsComeFromOptions(t *testing.T) {
	for _, c := range []struct {
		name     string
		spec     service.SourceSpec
		interval int
		title    string
		fetched  bool
	}{
		{"rss takes the rss interval", service.SourceSpec{URL: "https://a.test/feed"}, 17, "Feed Title", true},
		{"web takes the web interval", service.SourceSpec{URL: "https://a.test/page", SourceType: "web"}, 99, "Feed Title", true},
		{"api takes the rss interval unfetched", service.SourceSpec{URL: "https://a.test/api", SourceType: "api"}, 17, "", false},
		{"explicit interval and title win", service.SourceSpec{URL: "https://a.test/x", PollingIntervalMinutes: ptr(45), Title: ptr("  Mine  ")}, 45, "Mine", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			got, err := f.svc.CreateSource(context.Background(), f.wsID, c.spec)
			if err != nil {
				t.Fatal(err)
			}
			src := got.Source
			if src.PollingIntervalMinutes != c.interval || src.Title != c.title || !src.IsActive || src.ID == 0 {
				t.Fatalf("stored %+v, want interval %d title %q", src, c.interval, c.title)
			}
			if (f.val.calls() == 1) != c.fetched || got.Validated != c.fetched {
				t.Fatalf("validator called %d times, validated %v; want fetched %v", f.val.calls(), got.Validated, c.fetched)
			}
			if f.val.unbounded != 0 {
				t.Fatal("the validation fetch ran without a deadline")
			}
		})
	}
}

// A feed's site comes from the caller, else from what validation found
// when it is an http(s) URL.
func TestCreateSourceSiteURL(t *testing.T) {
	for _, c := range []struct {
		name, found string
		spec        service.SourceSpec
		want        string
	}{
		{"the feed's", "https://a.test/", service.SourceSpec{URL: "https://a.test/feed"}, "https://a.test/"},
		{"the caller's wins", "https://a.test/", service.SourceSpec{URL: "https://a.test/feed", SiteURL: ptr("https://www.a.test/")}, "https://www.a.test/"},
		{"empty is none", "", service.SourceSpec{URL: "https://a.test/feed", SiteURL: ptr("")}, ""},
		{"a feed's unusable link is dropped", "https://u:p@a.test/", service.SourceSpec{URL: "https://a.test/feed"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.val.site = c.found
			got, err := f.svc.CreateSource(context.Background(), f.wsID, c.spec)
			if err != nil {
				t.Fatal(err)
			}
			stored, err := f.svc.GetSource(context.Background(), f.wsID, got.Source.ID)
			if err != nil || stored.SiteURL != c.want {
				t.Fatalf("site URL %q (%v), want %q", stored.SiteURL, err, c.want)
			}
		})
	}
}

// A title the site sends is made storable; one the caller sends is
// checked instead.
func TestCreateSourceCleansTheSitesTitle(t *testing.T) {
	f := newFixture(t)
	f.val.title = "  Bad\x00 title \xff" + strings.Repeat("é", 600)
	got, err := f.svc.CreateSource(context.Background(), f.wsID, service.SourceSpec{URL: "https://a.test/feed"})
	if err != nil {
		t.Fatal(err)
	}
	if title := got.Source.Title; !strings.HasPrefix(title, "Bad title ") || len([]rune(title)) != service.MaxTitleRunes ||
		strings.ContainsRune(title, 0) || strings.ContainsRune(title, '\uFFFD') {
		t.Fatalf("stored title %q (%d runes)", title, len([]rune(title)))
	}
	if got.FeedTitle != f.val.title || got.ItemCount != 3 {
		t.Fatalf("what the fetch found: %q %d", got.FeedTitle, got.ItemCount)
	}
}

func TestCreateSourceRefusesBadInputBeforeFetching(t *testing.T) {
	for _, c := range []struct {
		name  string
		spec  service.SourceSpec
		field string
		msg   string
	}{
		{"no url", service.SourceSpec{}, "url", "is required"},
		{"ftp", service.SourceSpec{URL: "ftp://a.test/feed"}, "url", "must be an http(s) URL"},
		{"credentials", service.SourceSpec{URL: "https://u:p@a.test/feed"}, "url", "must not contain credentials"},
		{"no host", service.SourceSpec{URL: "http:///feed"}, "url", "must name a host"},
		{"space", service.SourceSpec{URL: "https://a.test/a feed"}, "url", "must not contain spaces or control characters"},
		{"NUL", service.SourceSpec{URL: "https://a.test/\x00"}, "url", "must not contain NUL characters"},
		{"too long", service.SourceSpec{URL: "https://a.test/" + strings.Repeat("a", service.MaxURLLength)}, "url", "must be at most 2048 characters"},
		{"relative", service.SourceSpec{URL: "/feed"}, "url", "must be an http(s) URL"},
		{"type", service.SourceSpec{URL: "https://a.test/", SourceType: "gopher"}, "source_type", "must be one of: rss, web, api"},
		{"interval 0", service.SourceSpec{URL: "https://a.test/", PollingIntervalMinutes: ptr(0)}, "polling_interval_minutes", "must be at least 1"},
		{"interval too long", service.SourceSpec{URL: "https://a.test/", PollingIntervalMinutes: ptr(43201)}, "polling_interval_minutes", "must be at most 43200"},
		{"title too long", service.SourceSpec{URL: "https://a.test/", Title: ptr(strings.Repeat("é", 501))}, "title", "must be at most 500 characters"},
		{"title NUL", service.SourceSpec{URL: "https://a.test/", Title: ptr("a\x00b")}, "title", "must not contain NUL characters"},
		{"title invalid UTF-8", service.SourceSpec{URL: "https://a.test/", Title: ptr("a\xffb")}, "title", "must be valid UTF-8 text"},
		{"site javascript", service.SourceSpec{URL: "https://a.test/", SiteURL: ptr("javascript:alert(1)")}, "site_url", "must be an http(s) URL"},
		{"site relative", service.SourceSpec{URL: "https://a.test/", SiteURL: ptr("/home")}, "site_url", "must be an http(s) URL"},
		{"site too long", service.SourceSpec{URL: "https://a.test/", SiteURL: ptr("https://a.test/" + strings.Repeat("a", service.MaxURLLength))}, "site_url", "must be at most 2048 characters"},
		{"site NUL", service.SourceSpec{URL: "https://a.test/", SiteURL: ptr("https://a.test/\x00")}, "site_url", "must not contain NUL characters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			_, err := f.svc.CreateSource(context.Background(), f.wsID, c.spec)
			se := wantKind(t, err, service.ErrInvalid, c.field)
			if se.Fields[c.field] != c.msg || se.Message != "invalid request: "+service.JoinFields(se.Fields) {
				t.Fatalf("error %q fields %v, want %s %q", se.Message, se.Fields, c.field, c.msg)
			}
			if f.val.calls() != 0 || len(f.st.sources) != 0 {
				t.Fatalf("refused input fetched %d times, stored %d sources", f.val.calls(), len(f.st.sources))
			}
		})
	}
}

// A URL the workspace has, written another way, is a conflict found
// before any fetch, and says which source it duplicates; another
// workspace may have it.
func TestCreateSourceDuplicateBeforeFetch(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "http://a.test/feed"})
	if err != nil {
		t.Fatal(err)
	}
	for _, dup := range []string{"HTTP://A.test/feed", "http://a.test:80/./feed#top", "http://a.test/feed?"} {
		_, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: dup})
		se := wantKind(t, err, service.ErrConflict, "url")
		if se.SourceID != first.Source.ID || !strings.Contains(se.Message, "already has this feed as source") {
			t.Fatalf("%s: %q source %d", dup, se.Message, se.SourceID)
		}
	}
	if f.val.calls() != 1 {
		t.Fatalf("%d validation fetches, want only the first source's", f.val.calls())
	}
	if _, err := f.svc.CreateSource(ctx, f.other, service.SourceSpec{URL: "HTTP://A.test/feed"}); err != nil {
		t.Fatalf("the same feed in another workspace: %v", err)
	}
	// Stored under the normalised URL.
	if got := f.st.sources[1].URL; got != "http://a.test/feed" {
		t.Fatalf("stored url %q", got)
	}
}

func TestCreateSourceValidationAndAvailability(t *testing.T) {
	ctx := context.Background()
	t.Run("an unreadable feed names the url", func(t *testing.T) {
		f := newFixture(t)
		f.val.err = errors.New("HTTP 404")
		_, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://a.test/feed"})
		se := wantKind(t, err, service.ErrInvalid, "url")
		if se.Message != "feed validation failed: HTTP 404" || len(f.st.sources) != 0 {
			t.Fatalf("%q, %d stored", se.Message, len(f.st.sources))
		}
		_, err = f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://a.test/page", SourceType: "web"})
		if se := wantKind(t, err, service.ErrInvalid, "url"); se.Message != "page validation failed: HTTP 404" {
			t.Fatal(se.Message)
		}
	})
	t.Run("a page's feeds are offered", func(t *testing.T) {
		f := newFixture(t)
		f.val.links = []string{"https://a.test/feed.xml"}
		got, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://a.test/page", SourceType: "web"})
		if err != nil || !strings.Contains(got.Hint, "https://a.test/feed.xml") || got.PageTitle != "Feed Title" {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("without a validator rss and web are unavailable, api is not", func(t *testing.T) {
		f := newFixture(t, func(o *service.Options) { o.Validator = nil })
		for _, typ := range []string{"rss", "web"} {
			_, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://a.test/" + typ, SourceType: typ})
			if se := wantKind(t, err, service.ErrUnavailable, ""); !strings.Contains(se.Message, "validator") {
				t.Fatal(se.Message)
			}
		}
		if _, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://a.test/api", SourceType: "api"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("an unknown workspace is not found", func(t *testing.T) {
		f := newFixture(t)
		_, err := f.svc.CreateSource(ctx, 999, service.SourceSpec{URL: "https://a.test/feed"})
		if se := wantKind(t, err, service.ErrNotFound, ""); se.Message != "workspace not found" {
			t.Fatal(se.Message)
		}
	})
}

func TestUpdateDeleteSource(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	c, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://a.test/feed"})
	if err != nil {
		t.Fatal(err)
	}
	id := c.Source.ID
	got, err := f.svc.UpdateSource(ctx, f.wsID, id, service.SourceChange{Title: ptr("  New  "), PollingIntervalMinutes: ptr(5)})
	if err != nil || got.Title != "New" || got.PollingIntervalMinutes != 5 {
		t.Fatalf("%+v %v", got, err)
	}
	wantKind(t, ignore(f.svc.UpdateSource(ctx, f.wsID, id, service.SourceChange{})), service.ErrInvalid, "")
	wantKind(t, ignore(f.svc.UpdateSource(ctx, f.wsID, id, service.SourceChange{PollingIntervalMinutes: ptr(0)})), service.ErrInvalid, "polling_interval_minutes")
	wantKind(t, ignore(f.svc.UpdateSource(ctx, f.other, id, service.SourceChange{Title: ptr("x")})), service.ErrNotFound, "")
	wantKind(t, f.svc.DeleteSource(ctx, f.other, id), service.ErrNotFound, "")
	if err := f.svc.DeleteSource(ctx, f.wsID, id); err != nil {
		t.Fatal(err)
	}
	wantKind(t, f.svc.DeleteSource(ctx, f.wsID, id), service.ErrNotFound, "")
	wantKind(t, ignore(f.svc.GetSource(ctx, f.wsID, id)), service.ErrNotFound, "")
}

func ignore[T any](_ T, err error) error { return err }

// Pausing, resuming or deleting a source makes its push subscription due
// at once in the store, whichever caller it is and whether or not a
// subscriber runs in this process (the command line has none): one path.
// A change that leaves is_active alone does not.
func TestSourceChangesReachTheSubscription(t *testing.T) {
	woken := &wakeCount{}
	for name, subs := range map[string]service.Subscriptions{"no subscriber in this process": nil, "a subscriber here": woken} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, func(o *service.Options) { o.Subscriptions = subs })
			ctx := context.Background()
			c, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://a.test/feed"})
			if err != nil {
				t.Fatal(err)
			}
			id := c.Source.ID
			for _, ch := range []service.SourceChange{{Title: ptr("t")}, {IsActive: ptr(false)}, {IsActive: ptr(true)}} {
				if _, err := f.svc.UpdateSource(ctx, 0, id, ch); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.svc.DeleteSource(ctx, f.wsID, id); err != nil {
				t.Fatal(err)
			}
			if want := []int64{id, id, id}; !slices.Equal(f.st.subsDue, want) {
				t.Errorf("subscriptions made due: %v, want %v (pause, resume, delete)", f.st.subsDue, want)
			}
		})
	}
	if woken.n != 3 {
		t.Errorf("the subscriber here was woken %d times, want 3", woken.n)
	}
}

type wakeCount struct{ n int }

func (w *wakeCount) SourceChanged(context.Context, int64) { w.n++ }

func TestPollSource(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	c, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://a.test/feed"})
	if err != nil {
		t.Fatal(err)
	}
	id := c.Source.ID
	f.poll.out = model.PollOutcome{SourceID: id, Status: model.StatusOK, ItemsNew: 2}
	// Workspace 0: in whichever workspace the source is (the CLI's poll --source).
	for _, ws := range []int64{f.wsID, 0} {
		out, err := f.svc.PollSource(ctx, ws, id)
		if err != nil || out.ItemsNew != 2 {
			t.Fatalf("workspace %d: %+v %v", ws, out, err)
		}
	}
	if len(f.poll.calls) != 2 || f.poll.calls[1] != [2]int64{f.wsID, id} {
		t.Fatalf("poller calls %v", f.poll.calls)
	}
	wantKind(t, ignore(f.svc.PollSource(ctx, f.other, id)), service.ErrNotFound, "")
	f.poll.err = fmt.Errorf("claim source %d: %w", id, model.ErrLeased)
	if se := wantKind(t, ignore(f.svc.PollSource(ctx, f.wsID, id)), service.ErrLeased, ""); !strings.Contains(se.Message, "being polled right now") {
		t.Fatal(se.Message)
	}
	f.poll.err = context.DeadlineExceeded
	if err := ignore(f.svc.PollSource(ctx, f.wsID, id)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("other failures pass through wrapped: %v", err)
	}

	np := newFixture(t, func(o *service.Options) { o.Poller = nil })
	c, _ = np.svc.CreateSource(ctx, np.wsID, service.SourceSpec{URL: "https://a.test/feed"})
	if se := wantKind(t, ignore(np.svc.PollSource(ctx, np.wsID, c.Source.ID)), service.ErrUnavailable, ""); !strings.Contains(se.Message, "poller") {
		t.Fatal(se.Message)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*service.Options)
		want   string
	}{
		{"no store", func(o *service.Options) { o.Store = nil }, "store"},
		{"negative rss interval", func(o *service.Options) { o.RSSIntervalMinutes = -1 }, "RSSIntervalMinutes"},
		{"web interval too long", func(o *service.Options) { o.WebIntervalMinutes = 43201 }, "WebIntervalMinutes"},
		{"threshold above 1", func(o *service.Options) { o.DefaultThreshold = 1.5 }, "DefaultThreshold"},
		{"negative validate timeout", func(o *service.Options) { o.ValidateTimeout = -1 }, "ValidateTimeout"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := service.DefaultOptions()
			o.Store = &memStore{}
			c.change(&o)
			if _, err := service.New(o); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one naming %s", err, c.want)
			}
		})
	}
	if _, err := service.New(service.Options{Store: &memStore{}}); err != nil {
		t.Fatalf("zero options take the defaults: %v", err)
	}
	o := service.DefaultOptions()
	if o.ValidateTimeout != time.Minute || o.RSSIntervalMinutes != 30 || o.WebIntervalMinutes != 360 || o.DefaultThreshold != model.DefaultThreshold {
		t.Fatalf("built-in defaults changed: %+v", o)
	}
}

// A source is adaptive unless created or changed to fixed, through the
// one service the API and the CLI share; anything else is refused naming
// the field, before the URL is fetched.
func TestSourceSchedule(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	plain, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://feeds.example/a.xml"})
	if err != nil || plain.Source.ScheduleMode != model.ScheduleAdaptive {
		t.Fatalf("default schedule: %+v, %v; want adaptive", plain, err)
	}
	pinned, err := f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://feeds.example/b.xml", Schedule: ptr("fixed")})
	if err != nil || pinned.Source.ScheduleMode != model.ScheduleFixed {
		t.Fatalf("schedule fixed: %+v, %v", pinned, err)
	}
	before := f.val.calls()
	_, err = f.svc.CreateSource(ctx, f.wsID, service.SourceSpec{URL: "https://feeds.example/c.xml", Schedule: ptr("weekly")})
	if se := wantKind(t, err, service.ErrInvalid, "schedule"); se.Fields["schedule"] != "must be one of: adaptive, fixed" {
		t.Fatalf("schedule weekly: %q", se.Fields["schedule"])
	}
	if f.val.calls() != before {
		t.Fatal("a refused schedule still validated the URL")
	}
	// Workspace 0: of any workspace, as `feedpoller sources set` asks.
	got, err := f.svc.UpdateSource(ctx, 0, plain.Source.ID, service.SourceChange{Schedule: ptr("fixed")})
	if err != nil || got.ScheduleMode != model.ScheduleFixed {
		t.Fatalf("change to fixed: %+v, %v", got, err)
	}
	_, err = f.svc.UpdateSource(ctx, f.wsID, plain.Source.ID, service.SourceChange{Schedule: ptr("")})
	_ = wantKind(t, err, service.ErrInvalid, "schedule")
	_, err = f.svc.UpdateSource(ctx, f.other, plain.Source.ID, service.SourceChange{Schedule: ptr("adaptive")})
	_ = wantKind(t, err, service.ErrNotFound, "")
}
