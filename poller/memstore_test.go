package poller_test

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources"
)

// memStore is the poller's Store in memory: due sources handed out in
// claim order, saves and releases recorded. It lets the scheduling and
// the poll be tested without a database; the SQL behind each method is
// tested against both databases elsewhere.
type memStore struct {
	mu       sync.Mutex
	due      []model.FeedSource
	claims   []int // sources per ClaimDue call
	saves    []model.PollSave
	pushes   []model.PushSave
	released []int64
	known    model.Known
	// releaseErr fails ReleaseLeases.
	releaseErr error
}

func (m *memStore) CountDue(context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.due), nil
}

func (m *memStore) ClaimDue(ctx context.Context, _ string, limit int, lease time.Duration) ([]model.FeedSource, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := min(limit, len(m.due))
	batch := slices.Clone(m.due[:n])
	m.due = m.due[n:]
	until := time.Now().Add(lease)
	for i := range batch {
		batch[i].LeaseUntil = &until
	}
	m.claims = append(m.claims, n)
	return batch, nil
}

func (m *memStore) ClaimSource(_ context.Context, _, id int64, _ string, lease time.Duration) (*model.FeedSource, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, s := range m.due {
		if s.ID == id {
			m.due = slices.Delete(m.due, i, i+1)
			until := time.Now().Add(lease)
			s.LeaseUntil = &until
			return &s, nil
		}
	}
	return nil, model.ErrNotFound
}

func (m *memStore) ReleaseLeases(_ context.Context, _ string, ids []int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.releaseErr != nil {
		return m.releaseErr
	}
	m.released = append(m.released, ids...)
	return nil
}

func (m *memStore) SavePoll(_ context.Context, p model.PollSave) (model.SaveCounts, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.saves = append(m.saves, p)
	c := model.SaveCounts{New: len(p.Articles)}
	for _, a := range p.Articles {
		if a.Promote {
			c.Promoted++
		}
	}
	return c, nil
}

func (m *memStore) SavePush(_ context.Context, p model.PushSave) (model.SaveCounts, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pushes = append(m.pushes, p)
	return model.SaveCounts{New: len(p.Articles)}, nil
}

func (m *memStore) KnownArticles(_ context.Context, _, _ int64, urls, _ []string) (*model.Known, error) {
	k := &model.Known{ByURL: map[string]model.KnownArticle{}, GUIDs: map[string]bool{}}
	for _, u := range urls {
		if a, ok := m.known.ByURL[u]; ok {
			k.ByURL[u] = a
		}
	}
	return k, nil
}

func (m *memStore) GetWorkspace(_ context.Context, id int64) (*model.Workspace, error) {
	return &model.Workspace{ID: id, Profile: model.RelevanceProfile{}}, nil
}

// StoryCandidates finds nothing: every article starts a story.
func (m *memStore) StoryCandidates(context.Context, model.StoryQuery) (*model.StoryLookup, error) {
	return &model.StoryLookup{}, nil
}

// stubFetcher answers every fetch with items; a fetch waits for gate, when
// set, or for its context.
type stubFetcher struct {
	items   []sources.FeedItem
	gate    chan struct{}
	started chan int64
	mu      sync.Mutex
	fetched []int64
}

func (f *stubFetcher) Fetch(ctx context.Context, req sources.Request) (*sources.Result, error) {
	f.mu.Lock()
	f.fetched = append(f.fetched, req.SourceID)
	f.mu.Unlock()
	if f.started != nil {
		f.started <- req.SourceID
	}
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, &sources.FetchError{Kind: sources.KindTransient, Msg: "fetch cancelled", Err: ctx.Err()}
		}
	}
	return &sources.Result{HTTPStatus: 200, Items: f.items}, nil
}

func dueSources(n int) []model.FeedSource {
	var out []model.FeedSource
	for i := range n {
		out = append(out, model.FeedSource{ID: int64(i + 1), WorkspaceID: 1, URL: "https://feeds.example.com/" + string(rune('a'+i)),
			SourceType: model.SourceRSS, IsActive: true, PollingIntervalMinutes: 30})
	}
	return out
}
