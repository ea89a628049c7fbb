package chaos

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// PeakRSS is a process's resident-memory high-water mark (VmHWM) and its
// current resident size (VmRSS), in bytes, read from /proc/<pid>/status.
func PeakRSS(pid int) (peak, current int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("read memory of process %d: %w", pid, err)
	}
	defer f.Close() //nolint:errcheck // read only: the scanner's error is the one that matters
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmHWM" && key != "VmRSS") {
			continue
		}
		fields := strings.Fields(val) // "123456 kB"
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, 0, fmt.Errorf("process %d: unexpected %s line %q", pid, key, val)
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("process %d: %s: %w", pid, key, err)
		}
		if key == "VmHWM" {
			peak = kb << 10
		} else {
			current = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("read memory of process %d: %w", pid, err)
	}
	if peak == 0 {
		return 0, 0, fmt.Errorf("process %d: no VmHWM in /proc status", pid)
	}
	return peak, current, nil
}
