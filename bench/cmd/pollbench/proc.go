package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

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
