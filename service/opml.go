package service

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/opml"
	"github.com/feedpoller/feedpoller/sources/urls"
)

// ImportOptions configure ImportOPML.
type ImportOptions struct {
	// WebPages turns outlines with only an htmlUrl into web sources.
	WebPages bool
	// Unvalidated stores the sources without validation fetches: the
	// import needs no network, and each source is checked at its first
	// poll. Outlines are still checked for a usable http(s) URL and
	// duplicates.
	Unvalidated bool
	// Concurrency bounds the validation fetches in flight (0: the opml
	// package's default).
	Concurrency int
	// Progress, when set, is called after each outline is decided.
	Progress func(opml.Progress)
	// Limits bound what is read of the body (zero: the opml defaults).
	Limits opml.Limits
}

// ImportOPML reads an OPML subscription list from body and creates a
// source for each of its outlines in the workspace, each through
// CreateSource: the same checks, defaults and validation fetch as a
// single create. A body the parser refuses (too large, too many or too
// deeply nested outlines, entity declarations, not OPML) is ErrInvalid
// wrapping the opml error, before anything is created. Outlines are
// decided one by one (added, duplicate, rejected with the reason); a
// failure of the service itself (the database) stops the import and is
// returned with the report so far: what was added stays, and importing
// the file again skips it as duplicates.
func (s *Service) ImportOPML(ctx context.Context, workspaceID int64, body io.Reader, o ImportOptions) (opml.Report, error) {
	if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
		return opml.Report{}, err
	}
	doc, err := opml.Parse(body, o.Limits)
	if err != nil {
		return opml.Report{}, &Error{Kind: ErrInvalid, Message: "OPML refused: " + err.Error(), Err: err}
	}
	existing, err := s.opts.Store.ListSources(ctx, workspaceID)
	if err != nil {
		return opml.Report{}, err
	}
	urls := make([]string, len(existing))
	for i, src := range existing {
		urls[i] = src.URL
	}
	gap := s.opts.ImportHostGap
	if o.Unvalidated {
		gap = -1 // nothing is fetched: no host to be polite to
	}
	rep, err := opml.Import(ctx, opmlCreator{s, o.Unvalidated}, workspaceID, doc.Outlines, opml.ImportOptions{
		WebPages: o.WebPages, Concurrency: o.Concurrency, HostGap: gap,
		Existing: urls, Key: sourceKey, Progress: o.Progress,
	})
	rep.Unvalidated = o.Unvalidated
	return rep, err
}

// sourceKey is the key import finds duplicates by: the URL as a source is
// stored (urls.SourceKey), or as written when it cannot be normalised
// (the creation then rejects it with the reason).
func sourceKey(raw string) string {
	if k, err := urls.SourceKey(raw); err == nil {
		return k
	}
	return raw
}

// opmlCreator puts CreateSource behind the opml package's Creator,
// validating each source or not.
type opmlCreator struct {
	s           *Service
	unvalidated bool
}

// outlineError is a service error as the import reports it: its message
// is the outline's reason, and it wraps the opml outcome it stands for.
type outlineError struct {
	outcome error
	msg     string
}

func (e *outlineError) Error() string { return e.msg }
func (e *outlineError) Unwrap() error { return e.outcome }

// CreateSource creates one outline's source. The outline's own name is
// the title (the reader's name for it, cut to the title limit), else the
// feed's. Service errors become the outline's outcome: a conflict is a
// duplicate (its message names the existing source), invalid input or a
// failed validation fetch a rejection with the reason, a process that
// cannot validate a rejection to retry later. Anything else stops the
// import.
func (c opmlCreator) CreateSource(ctx context.Context, workspaceID int64, spec opml.Spec) (opml.Result, error) {
	ss := SourceSpec{URL: spec.URL, SourceType: spec.Type, Unvalidated: c.unvalidated}
	if spec.Title != "" {
		t := cutRunes(spec.Title, MaxTitleRunes)
		ss.Title = &t
	}
	if spec.Category != "" {
		cat := cutRunes(spec.Category, MaxCategoryRunes)
		ss.Category = &cat
	}
	if site := strings.TrimSpace(spec.SiteURL); checkURL(site) == "" {
		// A site link the service would refuse is dropped rather than
		// the feed: the feed's polls name its site anyway.
		ss.SiteURL = &site
	}
	created, err := c.s.CreateSource(ctx, workspaceID, ss)
	var se *Error
	switch {
	case err == nil:
		return opml.Result{SourceID: created.Source.ID, Title: created.Source.Title}, nil
	case !errors.As(err, &se):
		return opml.Result{}, err
	case errors.Is(se, ErrConflict):
		return opml.Result{}, &outlineError{opml.ErrDuplicate, se.Message}
	case errors.Is(se, ErrInvalid):
		return opml.Result{}, &outlineError{opml.ErrInvalid, se.Message}
	case errors.Is(se, ErrUnavailable):
		return opml.Result{}, &outlineError{opml.ErrUnavailable, se.Message}
	}
	return opml.Result{}, err
}

// MaxCategoryRunes is the longest category a source keeps.
const MaxCategoryRunes = 500

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// ExportOPML writes the workspace's feed and web sources as an OPML 2.0
// document, categories as (nested) folders, in the order they were added.
// Feeds are xmlUrl outlines with their site as htmlUrl when it is known;
// web pages carry htmlUrl and feedpoller's web mark (readers skip them,
// ImportOPML turns them back into web sources). api sources are not feeds
// or pages and are left out.
func (s *Service) ExportOPML(ctx context.Context, workspaceID int64, w io.Writer) error {
	ws, err := s.GetWorkspace(ctx, workspaceID)
	if err != nil {
		return err
	}
	srcs, err := s.opts.Store.ListSources(ctx, workspaceID)
	if err != nil {
		return err
	}
	var outlines []opml.Outline
	for _, src := range srcs {
		o := opml.Outline{Text: src.Title, Title: src.Title, Category: src.Category}
		switch src.SourceType {
		case model.SourceRSS:
			o.XMLURL, o.HTMLURL = src.URL, src.SiteURL
		case model.SourceWeb:
			o.HTMLURL = src.URL
		default:
			continue
		}
		outlines = append(outlines, o)
	}
	head := opml.Head{Title: "feedpoller: " + ws.Name, DateCreated: time.Now()}
	return opml.Export(w, head, outlines)
}
