package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// procStat is what /proc/<pid>/stat says about a process's CPU.
type procStat struct {
	ppid           int
	utime, stime   int64 // clock ticks
	cutime, cstime int64 // reaped children, clock ticks
}

// parseProcStat reads the fields after the command name, which may itself
// contain spaces and parentheses: everything up to the last ')' is skipped.
func parseProcStat(b []byte) (procStat, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return procStat{}, fmt.Errorf("no command name in %q", b)
	}
	f := strings.Fields(string(b[end+1:]))
	// f[0] is field 3 (state); utime is field 14, so f[11].
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("stat has %d fields after the name", len(f))
	}
	var s procStat
	var err error
	num := func(i int) int64 {
		if err != nil {
			return 0
		}
		var v int64
		v, err = strconv.ParseInt(f[i], 10, 64)
		return v
	}
	s.ppid = int(num(1))
	s.utime, s.stime, s.cutime, s.cstime = num(11), num(12), num(13), num(14)
	if err != nil {
		return procStat{}, fmt.Errorf("parse stat: %w", err)
	}
	return s, nil
}

func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(b)
}

// clockTick is the length of one /proc clock tick.
var clockTick = func() time.Duration {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if hz, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && hz > 0 {
			return time.Second / time.Duration(hz)
		}
	}
	return 10 * time.Millisecond // USER_HZ is 100 on every Linux we run on
}()

// processCPU is the CPU a process has used (user + system).
func processCPU(pid int) (time.Duration, error) {
	s, err := readProcStat(pid)
	if err != nil {
		return 0, fmt.Errorf("read CPU of pid %d: %w", pid, err)
	}
	return time.Duration(s.utime+s.stime) * clockTick, nil
}

// treeCPU is the CPU of a server and its children: the postmaster's own,
// what it reaped from exited backends, and every live backend's.
func treeCPU(root int) (time.Duration, error) {
	rs, err := readProcStat(root)
	if err != nil {
		return 0, fmt.Errorf("read CPU of pid %d: %w", root, err)
	}
	ticks := rs.utime + rs.stime + rs.cutime + rs.cstime
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == root {
			continue
		}
		s, err := readProcStat(pid)
		if err != nil || s.ppid != root {
			continue
		}
		ticks += s.utime + s.stime
	}
	return time.Duration(ticks) * clockTick, nil
}

// memory is a process's resident set: now, and its peak.
type memory struct {
	rssKB, hwmKB int64
}

func parseStatus(b []byte) (memory, error) {
	var m memory
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch key {
		case "VmRSS":
			dst = &m.rssKB
		case "VmHWM":
			dst = &m.hwmKB
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("parse %s %q: %w", key, val, err)
		}
		*dst = kb
	}
	if m.hwmKB == 0 {
		return memory{}, fmt.Errorf("no VmHWM in status")
	}
	return m, nil
}

func readMemory(pid int) (memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memory{}, fmt.Errorf("read memory of pid %d: %w", pid, err)
	}
	return parseStatus(b)
}
