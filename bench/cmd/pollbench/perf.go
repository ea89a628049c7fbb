package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/feedpoller/feedpoller/bench/internal/proc"
)

// perfRecording is `perf record` sampling the daemons and their
// PostgreSQL backends while one round runs (-perf): where the CPU of both
// sides goes, read afterwards with `perf report -i FILE`.
type perfRecording struct {
	cmd  *exec.Cmd
	file string
}

// startPerf records the processes of pids (with call graphs) into dir,
// in a file named after the run and round; nil when there is nothing to
// record.
func startPerf(dir, name string, pids []int) (*perfRecording, error) {
	if dir == "" || len(pids) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	list := make([]string, len(pids))
	for i, p := range pids {
		list[i] = strconv.Itoa(p)
	}
	file := filepath.Join(dir, name+".perf.data")
	cmd := exec.Command("perf", "record", "-q", "-F", "999", "-g", "-o", file, "-p", strings.Join(list, ","))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start perf record: %w", err)
	}
	// perf attaches to the processes before it samples; give it a moment
	// so the round's start is in the recording.
	time.Sleep(300 * time.Millisecond)
	return &perfRecording{cmd: cmd, file: file}, nil
}

// stop ends the recording (perf writes its file on SIGINT) and returns
// the file's path.
func (p *perfRecording) stop() (string, error) {
	if p == nil {
		return "", nil
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		// perf exits non-zero when interrupted; a recording without its
		// file is the failure.
		if _, serr := os.Stat(p.file); serr != nil {
			return "", fmt.Errorf("perf record (exit: %w): %w", err, serr)
		}
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		err := <-done
		return "", fmt.Errorf("perf record did not stop within 30s of SIGINT; killed: %w", err)
	}
	return p.file, nil
}

// backends are the PostgreSQL server processes serving database db: the
// postmaster's children whose title names it.
func backends(postmaster int, db string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		s, err := proc.ReadStat(pid)
		if err != nil || s.PPID != postmaster {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(" "+db+" ")) {
			out = append(out, pid)
		}
	}
	return out
}
