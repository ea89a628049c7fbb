//go:build feedpoller_testclock

package main

import (
	"fmt"
	"os"
	"time"
)

// testClockEnv, in a binary built with the feedpoller_testclock tag (the
// end-to-end tests' build, never a release), starts the scheduling clock
// (see clock.go) at an RFC 3339 time, from where it ticks in real time. Scheduling depends on the time of day (skipHours, busy
// hours): the tests check it at the hours that matter instead of the one
// they happen to run at.
const testClockEnv = "FEEDPOLLER_TEST_CLOCK"

func schedulingClock() (func() time.Time, error) {
	v := os.Getenv(testClockEnv)
	if v == "" {
		return time.Now, nil
	}
	start, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return nil, fmt.Errorf("%s %q is not an RFC 3339 time: %w", testClockEnv, v, err)
	}
	real0 := time.Now()
	return func() time.Time { return start.Add(time.Since(real0)) }, nil
}
