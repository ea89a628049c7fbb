// Package proc reads the CPU of processes from /proc: a benchmark's own
// daemons, and a PostgreSQL server with its backends.
package proc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Stat is what /proc/<pid>/stat says about a process's CPU.
type Stat struct {
	PPID           int
	Utime, Stime   int64 // clock ticks
	Cutime, Cstime int64 // reaped children, clock ticks
}

// ParseStat reads the fields after the command name, which may itself
// contain spaces and parentheses: everything up to the last ')' is skipped.
func ParseStat(b []byte) (Stat, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return Stat{}, fmt.Errorf("no command name in %q", b)
	}
	f := strings.Fields(string(b[end+1:]))
	// f[0] is field 3 (state); utime is field 14, so f[11].
	if len(f) < 15 {
		return Stat{}, fmt.Errorf("stat has %d fields after the name", len(f))
	}
	var s Stat
	var err error
	num := func(i int) int64 {
		if err != nil {
			return 0
		}
		var v int64
		v, err = strconv.ParseInt(f[i], 10, 64)
		return v
	}
	s.PPID = int(num(1))
	s.Utime, s.Stime, s.Cutime, s.Cstime = num(11), num(12), num(13), num(14)
	if err != nil {
		return Stat{}, fmt.Errorf("parse stat: %w", err)
	}
	return s, nil
}

// ReadStat reads the stat of process pid.
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Stat{}, err
	}
	return ParseStat(b)
}

// ClockTick is the length of one /proc clock tick.
var ClockTick = func() time.Duration {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if hz, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && hz > 0 {
			return time.Second / time.Duration(hz)
		}
	}
	return 10 * time.Millisecond // USER_HZ is 100 on every Linux we run on
}()

// CPU is the CPU a process has used (user + system).
func CPU(pid int) (time.Duration, error) {
	s, err := ReadStat(pid)
	if err != nil {
		return 0, fmt.Errorf("read CPU of pid %d: %w", pid, err)
	}
	return time.Duration(s.Utime+s.Stime) * ClockTick, nil
}

// TreeCPU is the CPU of a server and its children: the postmaster's own,
// what it reaped from exited backends, and every live backend's.
func TreeCPU(root int) (time.Duration, error) {
	rs, err := ReadStat(root)
	if err != nil {
		return 0, fmt.Errorf("read CPU of pid %d: %w", root, err)
	}
	ticks := rs.Utime + rs.Stime + rs.Cutime + rs.Cstime
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == root {
			continue
		}
		s, err := ReadStat(pid)
		if err != nil || s.PPID != root {
			continue
		}
		ticks += s.Utime + s.Stime
	}
	return time.Duration(ticks) * ClockTick, nil
}
