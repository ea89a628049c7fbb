package opml

import (
	"context"
	"errors"
)

// Source types Import creates.
const (
	TypeRSS = "rss"
	TypeWeb = "web"
)

// Spec is one source to create.
type Spec struct {
	URL string
	// Type is TypeRSS for a feed outline, TypeWeb for a page outline.
	Type     string
	Title    string
	Category string
	// SiteURL is a feed outline's htmlUrl as written: the site the feed
	// belongs to ("" for page outlines, whose htmlUrl is URL).
	SiteURL string
}

// Result is what the Creator made of a Spec.
type Result struct {
	SourceID int64
	// Title is the source's title after validation (a feed's own title).
	Title string
}

// Creator creates one source in a workspace with the validation and
// defaults of a single create (the source service). Its error tells Import
// what became of the outline: one that wraps ErrDuplicate is a duplicate
// (skipped, not an error), ErrInvalid or ErrUnavailable a rejection whose
// message is the reason. Any other error is taken for a failure of the
// service itself (the database is down): Import stops and returns it.
type Creator interface {
	CreateSource(ctx context.Context, workspaceID int64, spec Spec) (Result, error)
}

// Outcomes a Creator reports through its errors (errors.Is).
var (
	// ErrDuplicate: the workspace already has a source with this URL.
	ErrDuplicate = errors.New("duplicate source")
	// ErrInvalid: the URL or what it serves is not acceptable (not a feed,
	// not HTML, refused by the address policy, …); retrying will not help.
	ErrInvalid = errors.New("invalid source")
	// ErrUnavailable: the validation fetch failed for now (timeout, 5xx);
	// importing the file again may add it.
	ErrUnavailable = errors.New("source unavailable")
)

// CreatorFunc adapts a function to a Creator.
type CreatorFunc func(ctx context.Context, workspaceID int64, spec Spec) (Result, error)

// CreateSource calls f.
func (f CreatorFunc) CreateSource(ctx context.Context, workspaceID int64, spec Spec) (Result, error) {
	return f(ctx, workspaceID, spec)
}
