package model

import "time"

// ConsoleSession is a signed-in browser of the web console: the hash of
// its id, the API token it acts as (sealed by the console with a key
// only the browser's id yields), and a message waiting to be shown.
type ConsoleSession struct {
	IDHash    string    `db:"id_hash"`
	Sealed    string    `db:"sealed"`
	Flash     string    `db:"flash"`
	CreatedAt time.Time `db:"created_at"`
	ExpiresAt time.Time `db:"expires_at"`
}

// ActivityCount is one cell of an activity chart: the bucket it falls in,
// counted back from the end of the window (0: the last bucket, the one
// ending at its end), what it counts (a poll outcome, or a source id),
// and how many.
type ActivityCount struct {
	Ago   int    `db:"ago"`
	Key   string `db:"k"`
	Count int    `db:"n"`
}
