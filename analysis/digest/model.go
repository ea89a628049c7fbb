package digest

import (
	"time"

	"github.com/feedpoller/feedpoller/model"
)

// Input is what a digest is built from.
type Input struct {
	Workspace Workspace
	Window    Window
	// GeneratedAt is when the digest is made.
	GeneratedAt time.Time
	// SourcesAnalyzed is the number of the workspace's sources that were
	// considered (its active sources).
	SourcesAnalyzed int
	// Stories are the workspace's stories with at least one article
	// reported in the window; each holds its articles in the window.
	Stories []Story
	// Sources are the workspace's sources with their poll state, for the
	// gaps section.
	Sources []model.DigestSource
}

// Workspace names the workspace and its default decay class.
type Workspace struct {
	ID         int64
	Name       string
	DecayClass model.DecayClass
}

// Story is one story and its articles in the window.
type Story struct {
	ID       int64
	Articles []model.DigestArticle
}
