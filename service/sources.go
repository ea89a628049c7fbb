package service

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"golang.org/x/net/idna"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources/urls"
)

// SourceSpec is a new source as a caller asks for it. A nil field takes
// its default. The JSON names are those of the API's request body and of
// field errors, whoever the caller is.
type SourceSpec struct {
	URL string `json:"url"`
	// SourceType is rss (default), web or api.
	SourceType string `json:"source_type" validate:"omitempty,oneof=rss web api"`
	// Title defaults to the feed's or page's own.
	Title *string `json:"title" validate:"omitnil,max=500"`
	// PollingIntervalMinutes defaults to Options.WebIntervalMinutes for
	// web sources, Options.RSSIntervalMinutes for the others.
	PollingIntervalMinutes *int  `json:"polling_interval_minutes" validate:"omitnil,min=1,max=43200"`
	IsActive               *bool `json:"is_active"`
	TrackChanges           *bool `json:"track_changes"`
	// Schedule is adaptive (default: the interval is learnt from what polls
	// find, starting at PollingIntervalMinutes) or fixed (every
	// PollingIntervalMinutes, whatever the publisher declares).
	Schedule *string `json:"schedule" validate:"omitnil,oneof=adaptive fixed"`
	// ReliabilityTier 1–5 sets the tier by hand; nil takes the domain
	// rules' tier for the URL. DecayClass (fast, moderate, stable)
	// overrides the workspace's; nil or "" keeps the workspace's.
	ReliabilityTier *int    `json:"reliability_tier" validate:"omitnil,min=1,max=5"`
	DecayClass      *string `json:"decay_class"`
	// Category is the folder the source is filed under ("/" between
	// nested folders), as OPML import and export know it; default none.
	Category *string `json:"category" validate:"omitnil,max=500"`
	// SiteURL is the site a feed belongs to (OPML's htmlUrl), an http(s)
	// URL; default: the one the feed names, filled by its polls.
	SiteURL *string `json:"site_url"`
	// Unvalidated stores the source without the validation fetch: its
	// first poll is its check (a failure shows in its status and poll
	// runs). OPML import offers it for lists made elsewhere; not a field
	// of the API's source body.
	Unvalidated bool `json:"-"`
}

// SourceChange lists what an update changes; a nil field is left as it is.
type SourceChange struct {
	Title                  *string `json:"title" validate:"omitnil,max=500"`
	IsActive               *bool   `json:"is_active"`
	PollingIntervalMinutes *int    `json:"polling_interval_minutes" validate:"omitnil,min=1,max=43200"`
	TrackChanges           *bool   `json:"track_changes"`
	// Schedule is adaptive or fixed; it takes effect from the next poll.
	Schedule *string `json:"schedule" validate:"omitnil,oneof=adaptive fixed"`
	// ReliabilityTier 1–5 sets the tier by hand; 0 gives it back to the
	// domain rules. DecayClass "" gives the workspace's back.
	ReliabilityTier *int    `json:"reliability_tier" validate:"omitnil,min=0,max=5"`
	DecayClass      *string `json:"decay_class"`
}

// CreatedSource is a stored source and what validating it found.
type CreatedSource struct {
	Source model.FeedSource
	// Validated says whether the URL was fetched (rss and web sources).
	Validated bool
	// FeedTitle and ItemCount: an rss source's feed as fetched.
	FeedTitle string
	ItemCount int
	// PageTitle and FeedLinks: a web source's page as fetched, and the
	// feeds it advertises (never nil for a web source).
	PageTitle string
	FeedLinks []string
	// Hint suggests a better way to follow the page, or is "".
	Hint string
}

// CreateSource checks spec, refuses a URL the workspace already has
// (written any way) before fetching anything, validates rss and web URLs
// by fetching them (unless spec.Unvalidated), and stores the source under
// its normalised URL.
func (s *Service) CreateSource(ctx context.Context, workspaceID int64, spec SourceSpec) (*CreatedSource, error) {
	if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
		return nil, err
	}
	spec.Title, spec.Category = trimmed(spec.Title), trimmed(spec.Category)
	extra := map[string]string{}
	key := ""
	if msg := checkURL(spec.URL); msg != "" {
		extra["url"] = msg
	} else if k, err := urls.SourceKey(spec.URL); err != nil {
		extra["url"] = "is not a usable URL: " + err.Error()
	} else {
		key = k
	}
	checkDecayClass(spec.DecayClass, extra)
	if spec.SiteURL != nil && *spec.SiteURL != "" {
		if msg := checkURL(*spec.SiteURL); msg != "" {
			extra["site_url"] = msg
		}
	}
	if err := s.rules.Check(&spec, extra); err != nil {
		return nil, err
	}
	// Before the validation fetch: a duplicate costs the site no request.
	if err := s.sameSource(ctx, workspaceID, key); err != nil {
		return nil, err
	}
	src := model.FeedSource{
		WorkspaceID:            workspaceID,
		URL:                    key,
		SourceType:             spec.SourceType,
		IsActive:               spec.IsActive == nil || *spec.IsActive,
		TrackChanges:           spec.TrackChanges != nil && *spec.TrackChanges,
		PollingIntervalMinutes: s.opts.RSSIntervalMinutes,
		ScheduleMode:           model.ScheduleAdaptive,
	}
	if src.SourceType == "" {
		src.SourceType = model.SourceRSS
	}
	if src.SourceType == model.SourceWeb {
		src.PollingIntervalMinutes = s.opts.WebIntervalMinutes
	}
	if spec.PollingIntervalMinutes != nil {
		src.PollingIntervalMinutes = *spec.PollingIntervalMinutes
	}
	if spec.Title != nil {
		src.Title = *spec.Title
	}
	if spec.Schedule != nil {
		src.ScheduleMode = *spec.Schedule
	}
	src.SourceRank = s.sourceRank(key, spec.ReliabilityTier, spec.DecayClass)
	if spec.Category != nil {
		src.Category = *spec.Category
	}
	if spec.SiteURL != nil {
		src.SiteURL = *spec.SiteURL
	}
	out := &CreatedSource{}
	if (src.SourceType == model.SourceRSS || src.SourceType == model.SourceWeb) && !spec.Unvalidated {
		if err := s.validateURL(ctx, &src, out); err != nil {
			return nil, err
		}
	}
	if err := s.opts.Store.CreateSource(ctx, &src); err != nil {
		if errors.Is(err, model.ErrConflict) {
			return nil, duplicateSource(src.URL, 0)
		}
		return nil, err
	}
	out.Source = src
	return out, nil
}

// sameSource refuses key when the workspace already has a source whose URL
// is key written another way (see urls.SourceKey): new sources are
// stored under their key, and sources stored before that are found by
// host and compared by key.
func (s *Service) sameSource(ctx context.Context, workspaceID int64, key string) error {
	u, err := url.Parse(key)
	if err != nil {
		return fmt.Errorf("parse source key %s: %w", key, err)
	}
	hosts := []string{u.Hostname()}
	if uni, err := idna.ToUnicode(u.Hostname()); err == nil && uni != u.Hostname() {
		hosts = append(hosts, uni)
	}
	cands, err := s.opts.Store.SourcesMentioning(ctx, workspaceID, hosts...)
	if err != nil {
		return err
	}
	for _, c := range cands {
		if k, err := urls.SourceKey(c.URL); err == nil && k == key {
			return duplicateSource(c.URL, c.ID)
		}
	}
	return nil
}

func duplicateSource(stored string, id int64) *Error {
	msg := "this workspace already has a source with url " + stored
	if id != 0 {
		msg = fmt.Sprintf("this workspace already has this feed as source %d (url %s)", id, stored)
	}
	return &Error{Kind: ErrConflict, Message: msg, SourceID: id,
		Fields: map[string]string{"url": "is already a source of this workspace"}}
}

// validateURL fetches the new source's URL through the validator and
// fills the title default and what the fetch found. A failure is
// ErrInvalid naming the url.
func (s *Service) validateURL(ctx context.Context, src *model.FeedSource, out *CreatedSource) error {
	if s.opts.Validator == nil {
		return &Error{Kind: ErrUnavailable,
			Message: src.SourceType + " sources cannot be validated: this process runs without a source validator"}
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.ValidateTimeout)
	defer cancel()
	var title string
	if src.SourceType == model.SourceRSS {
		fc, err := s.opts.Validator.ValidateFeed(ctx, src.URL)
		if err != nil {
			return invalidf(map[string]string{"url": "is not a readable feed: " + err.Error()}, "feed validation failed: %s", err)
		}
		title = fc.Title
		out.FeedTitle, out.ItemCount = fc.Title, fc.ItemCount
		if src.SiteURL == "" && checkURL(fc.SiteURL) == "" {
			src.SiteURL = fc.SiteURL
		}
	} else {
		t, links, err := s.opts.Validator.ValidatePage(ctx, src.URL)
		if err != nil {
			return invalidf(map[string]string{"url": "is not a readable HTML page: " + err.Error()}, "page validation failed: %s", err)
		}
		if links == nil {
			links = []string{}
		}
		title = t
		out.PageTitle, out.FeedLinks = t, links
		if len(links) > 0 {
			out.Hint = fmt.Sprintf("this page advertises %d feed(s); adding %s as an rss source gives per-entry articles instead of one per page change", len(links), links[0])
		}
	}
	out.Validated = true
	if src.Title == "" {
		src.Title = cleanTitle(title)
	}
	return nil
}

// GetSource reads a source of a workspace (workspaceID 0: of any).
func (s *Service) GetSource(ctx context.Context, workspaceID, id int64) (*model.FeedSource, error) {
	if workspaceID != 0 {
		if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
			return nil, err
		}
	}
	if id <= 0 {
		return nil, notFound("source")
	}
	src, err := s.opts.Store.GetSource(ctx, workspaceID, id)
	if errors.Is(err, model.ErrNotFound) {
		return nil, notFound("source")
	}
	return src, err
}

// ListSources returns a workspace's sources, oldest first.
func (s *Service) ListSources(ctx context.Context, workspaceID int64) ([]model.FeedSource, error) {
	if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
		return nil, err
	}
	return s.opts.Store.ListSources(ctx, workspaceID)
}

// UpdateSource applies ch to a source (workspaceID 0: of any workspace).
// Turning an inactive source active clears its failures and makes it due
// at once.
func (s *Service) UpdateSource(ctx context.Context, workspaceID, id int64, ch SourceChange) (*model.FeedSource, error) {
	src, err := s.GetSource(ctx, workspaceID, id)
	if err != nil {
		return nil, err
	}
	if ch.Title == nil && ch.IsActive == nil && ch.PollingIntervalMinutes == nil && ch.TrackChanges == nil && ch.Schedule == nil &&
		ch.ReliabilityTier == nil && ch.DecayClass == nil {
		return nil, invalidf(nil, "nothing to change: send one or more of title, is_active, polling_interval_minutes, track_changes, schedule, reliability_tier, decay_class")
	}
	ch.Title = trimmed(ch.Title)
	extra := map[string]string{}
	checkDecayClass(ch.DecayClass, extra)
	if err := s.rules.Check(&ch, extra); err != nil {
		return nil, err
	}
	patch := model.SourcePatch{
		Title:                  ch.Title,
		IsActive:               ch.IsActive,
		PollingIntervalMinutes: ch.PollingIntervalMinutes,
		TrackChanges:           ch.TrackChanges,
		ScheduleMode:           ch.Schedule,
		DecayClass:             ch.DecayClass,
	}
	s.patchTier(&patch, src.URL, ch.ReliabilityTier)
	updated, err := s.opts.Store.UpdateSource(ctx, src.WorkspaceID, src.ID, patch)
	if errors.Is(err, model.ErrNotFound) {
		return nil, notFound("source")
	}
	if err == nil && ch.IsActive != nil {
		err = s.sourceChanged(ctx, src.ID)
	}
	return updated, err
}

// sourceChanged is the one path by which a source paused, resumed or
// deleted reaches its WebSub subscription, whoever changed it (the API,
// the command line, a tool): the subscription is made due at once in the
// database, so the next sync of whichever daemon runs tells the hub (a
// paused or deleted source is unsubscribed, a resumed one subscribed
// again), and a subscriber in this process is woken to do it now.
func (s *Service) sourceChanged(ctx context.Context, id int64) error {
	if err := s.opts.Store.SubscriptionDueNow(ctx, id); err != nil {
		return fmt.Errorf("source %d changed, but its push subscription was not updated: %w", id, err)
	}
	if s.opts.Subscriptions != nil {
		s.opts.Subscriptions.SourceChanged(ctx, id)
	}
	return nil
}

// DeleteSource removes a source and its poll history; its articles and
// content items stay, detached from it.
func (s *Service) DeleteSource(ctx context.Context, workspaceID, id int64) error {
	src, err := s.GetSource(ctx, workspaceID, id)
	if err != nil {
		return err
	}
	err = s.opts.Store.DeleteSource(ctx, src.WorkspaceID, src.ID)
	if errors.Is(err, model.ErrNotFound) {
		return notFound("source")
	}
	if err == nil {
		err = s.sourceChanged(ctx, src.ID)
	}
	return err
}

// PollSource polls a source at once, due or not (workspaceID 0: in any
// workspace). A failed fetch is an outcome, not an error.
func (s *Service) PollSource(ctx context.Context, workspaceID, id int64) (model.PollOutcome, error) {
	src, err := s.GetSource(ctx, workspaceID, id)
	if err != nil {
		return model.PollOutcome{}, err
	}
	if s.opts.Poller == nil {
		return model.PollOutcome{}, &Error{Kind: ErrUnavailable, Message: "polling on demand is not available: this process runs without a poller"}
	}
	out, err := s.opts.Poller.PollNow(ctx, src.WorkspaceID, src.ID)
	switch {
	case errors.Is(err, model.ErrLeased):
		return model.PollOutcome{}, &Error{Kind: ErrLeased,
			Message: fmt.Sprintf("source %d is being polled right now; try again when that poll ends", src.ID)}
	case errors.Is(err, model.ErrNotFound):
		return model.PollOutcome{}, notFound("source")
	case err != nil:
		return model.PollOutcome{}, fmt.Errorf("poll source %d now: %w", src.ID, err)
	}
	return out, nil
}
