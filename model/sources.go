package model

// SourceHealth counts the sources of one type that are not polling well.
type SourceHealth struct {
	SourceType string `db:"source_type"`
	// Failing: active, below the failure limit, and their last poll (or
	// last few) failed.
	Failing int `db:"failing"`
	// Disabled: no longer polled, turned off (by an admin, or by a 410)
	// or at the failure limit.
	Disabled int `db:"disabled"`
}

// SourcePatch lists the fields a PATCH may change; nil means unchanged.
type SourcePatch struct {
	Title                  *string
	IsActive               *bool
	PollingIntervalMinutes *int
	TrackChanges           *bool
	// ScheduleMode is ScheduleAdaptive or ScheduleFixed; it takes effect
	// from the source's next poll.
	ScheduleMode *string
	// Tier sets the reliability tier; TierManual says whether by hand
	// (else the domain rules chose it). Both or neither.
	Tier       *int
	TierManual *bool
	// DecayClass sets the source's own decay class; a pointer to "" clears
	// it (the workspace's applies).
	DecayClass *string
}
