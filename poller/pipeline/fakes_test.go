package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/feedpoller/feedpoller/analysis/relevance"
	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
)

// The stages are tested in memory: a lookup over a slice of stored
// articles, pages served from a map, profiles from a map. The database's
// own part (the query, ON CONFLICT, promotion rows) is tested in poller
// and store against both databases.

// fakeLookup answers KnownArticles from stored, as the store would, and
// records each call.
type fakeLookup struct {
	stored []model.KnownArticle
	err    error
	calls  []lookupCall
}

type lookupCall struct{ urls, guids []string }

func (f *fakeLookup) KnownArticles(_ context.Context, _, sourceID int64, urls, guids []string) (*model.Known, error) {
	f.calls = append(f.calls, lookupCall{urls: slices.Clone(urls), guids: slices.Clone(guids)})
	if f.err != nil {
		return nil, f.err
	}
	k := &model.Known{ByURL: map[string]model.KnownArticle{}, GUIDs: map[string]bool{}}
	for _, a := range f.stored {
		if slices.Contains(urls, a.ExternalURL) {
			if prev, ok := k.ByURL[a.ExternalURL]; !ok || a.Revision > prev.Revision {
				k.ByURL[a.ExternalURL] = a
			}
		}
		if a.ExternalID != nil && a.FeedSourceID != nil && *a.FeedSourceID == sourceID && slices.Contains(guids, *a.ExternalID) {
			k.GUIDs[*a.ExternalID] = true
		}
	}
	return k, nil
}

// stored is a known article of source 1.
func stored(id int64, url, guid string) model.KnownArticle {
	src := int64(1)
	a := model.KnownArticle{ID: id, ExternalURL: url, FeedSourceID: &src, Revision: 1}
	if guid != "" {
		a.ExternalID = &guid
	}
	return a
}

// fakePages serves pages from a map and records what was asked for; a
// page not in the map is a failed fetch.
type fakePages struct {
	mu      sync.Mutex
	pages   map[string]string
	fetched []string
}

func (f *fakePages) FetchPage(ctx context.Context, pageURL string) ([]byte, error) {
	f.mu.Lock()
	f.fetched = append(f.fetched, pageURL)
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	html, ok := f.pages[pageURL]
	if !ok {
		return nil, fmt.Errorf("page %s: HTTP 404", pageURL)
	}
	return []byte(html), nil
}

func (f *fakePages) asked() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.fetched)
}

// fakeProfiles compiles the profile of each workspace it knows.
type fakeProfiles map[int64]model.RelevanceProfile

func (f fakeProfiles) Scorer(_ context.Context, workspaceID int64) (*relevance.Scorer, error) {
	p, ok := f[workspaceID]
	if !ok {
		return nil, errors.New("no such workspace")
	}
	return relevance.NewScorer(p), nil
}

// fakeWorkspaces serves workspaces from a map and counts reads.
type fakeWorkspaces struct {
	mu    sync.Mutex
	byID  map[int64]model.Workspace
	reads int
}

func (f *fakeWorkspaces) GetWorkspace(_ context.Context, id int64) (*model.Workspace, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	ws, ok := f.byID[id]
	if !ok {
		return nil, model.ErrNotFound
	}
	return &ws, nil
}

// newTest is a pipeline over lookup and the given page fetchers with the
// daemon's default limits; profile is workspace 1's.
func newTest(t *testing.T, lookup *fakeLookup, pages, render PageFetcher, profile model.RelevanceProfile) *Pipeline {
	t.Helper()
	p, err := New(Options{Lookup: lookup, Profiles: fakeProfiles{1: profile}, Pages: pages, Render: render,
		MinWords: 50, MaxArticleFetches: 10, MaxMarkdownBytes: 1 << 20, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var (
	rssSource = model.FeedSource{ID: 1, WorkspaceID: 1, URL: "https://news.example.com/feed.xml", SourceType: model.SourceRSS}
	webSource = model.FeedSource{ID: 2, WorkspaceID: 1, URL: "https://status.example.com/", SourceType: model.SourceWeb}
)

// longHTML is an article body long enough for a cascade tier.
func longHTML(topic string) string {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "<p>Paragraph %d explains %s in some detail, with enough words to count as a real article body.</p>", i, topic)
	}
	return b.String()
}

// pageHTML is a whole article page about topic; head goes into <head>.
func pageHTML(topic, head string) string {
	return "<html><head><title>" + topic + "</title>" + head + "</head><body><nav><a href=/>Home</a></nav><article><h1>" +
		topic + "</h1>" + longHTML(topic) + "</article></body></html>"
}

// feedItem is an RSS item with a link, a guid and content.
func feedItem(link, guid, title, content string) sources.FeedItem {
	return sources.FeedItem{URL: link, GUID: guid, Title: title, ContentHTML: content}
}

// relevanceNone is a profile with no keywords: everything is relevant.
var relevanceNone = model.RelevanceProfile{}
