// Package htmldate stands in for github.com/markusmobius/go-htmldate in
// feedpoller's build (see the replace directive in the repository's go.mod
// and this folder's README).
//
// go-trafilatura imports go-htmldate for publication dates, and go-htmldate
// imports go-dateparser, whose package initialisation compiles the regular
// expressions of every locale it knows: 0.2–0.45 s of CPU and about 80 MB of
// allocation in every process that links it, even `feedpoller version`, and
// some 30 MB that stay live for the daemon's lifetime. feedpoller never asks
// go-trafilatura for a date (it runs it with HtmlDateMode Disabled and reads
// dates itself, in sources/extract), so it needs the package's types, not its
// work. This module provides exactly the declarations go-trafilatura compiles
// against and no date parser.
package htmldate

import (
	"errors"
	"time"

	"golang.org/x/net/html"
)

// Options mirrors the fields go-trafilatura sets when it asks for a date.
type Options struct {
	ExtractTime         bool
	UseOriginalDate     bool
	URL                 string
	MinDate             time.Time
	MaxDate             time.Time
	EnableLog           bool
	SkipExtensiveSearch bool
	DeferUrlExtractor   bool
}

// Result is a found date; the zero Result means none was found.
type Result struct {
	DateTime    time.Time
	HasTime     bool
	HasTimezone bool
	SrcString   string
}

// IsZero reports whether no date was found.
func (r Result) IsZero() bool { return r.DateTime.IsZero() }

// ErrDisabled is what FromDocument answers: feedpoller reads publication
// dates itself and never runs this extractor.
var ErrDisabled = errors.New("htmldate: date extraction is not linked into feedpoller; sources/extract reads dates")

// FromDocument finds no date: see the package comment.
func FromDocument(doc *html.Node, opts Options) (Result, error) {
	return Result{}, ErrDisabled
}
