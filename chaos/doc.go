// Package chaos is the chaos suite: it runs the real feedpoller binary
// against hostile servers (internal/hostile), pulls its database away, and
// kills it mid-tick, then checks what is in the database afterwards.
//
// Everything runs on loopback. The helpers here give a test what the
// hostile server alone cannot: Alias puts a server behind another loopback
// address, so that the daemon can be allowed to reach exactly that address
// while localhost stays forbidden, and each hostile endpoint can be a site
// (a registrable domain, with its own circuit breaker) of its own; Farm
// serves feeds whose contents and timing a test controls; PeakRSS reads a
// process's memory high-water mark.
//
// The tests build cmd/feedpoller once (TestMain) and need the PostgreSQL
// server binaries (see internal/testdb). Run them with
//
//	go test ./chaos/ -v
package chaos
