//go:build !feedpoller_testclock

package main

import "time"

// schedulingClock dates what scheduling reads: the poller's decisions and
// the times a response's headers name (Retry-After, Expires). A release
// build always uses the real clock; see clock_testclock.go for the tests'
// build.
func schedulingClock() (func() time.Time, error) { return time.Now, nil }
