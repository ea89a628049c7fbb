package checks

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// unit reads a unit file as section → key → values (keys may repeat).
func unit(t *testing.T, path string) map[string]map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string][]string{}
	section := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = line[1 : len(line)-1]
			out[section] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || section == "" {
				t.Fatalf("%s:%d: %q is not key=value in a section", path, n, line)
			}
			out[section][strings.TrimSpace(k)] = append(out[section][strings.TrimSpace(k)], strings.TrimSpace(v))
		}
	}
	return out
}

func TestSystemdUnit(t *testing.T) {
	const path = "systemd/feedpoller.service"
	u := unit(t, path)
	svc := u["Service"]
	want := map[string]string{
		"ExecStart": "/usr/local/bin/feedpoller serve", "EnvironmentFile": "/etc/feedpoller/feedpoller.env",
		"DynamicUser": "yes", "StateDirectory": "feedpoller", "WorkingDirectory": "/var/lib/feedpoller",
		"NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes",
		"MemoryDenyWriteExecute": "yes", "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
		"SystemCallFilter": "@system-service", "CapabilityBoundingSet": "",
	}
	for k, v := range want {
		vals, ok := svc[k]
		if !ok || vals[0] != v {
			t.Errorf("[Service] %s = %q, want %q", k, vals, v)
		}
	}
	// The daemon's SQLite default must land in the state directory, the one
	// place ProtectSystem=strict leaves writable.
	if !contains(svc["Environment"], "FEEDPOLLER_DATABASE_URL=/var/lib/feedpoller/feedpoller.db") {
		t.Errorf("Environment %q does not put the database in the state directory", svc["Environment"])
	}
	if u["Install"]["WantedBy"] == nil {
		t.Errorf("no [Install] WantedBy")
	}

	// systemd's own check, with ExecStart pointed at a real binary (it
	// insists the command exists). Any complaint fails the test: unknown
	// keys and bad values are only warnings to it.
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("systemd-analyze not installed: checked by parsing only")
		return
	}
	data, _ := os.ReadFile(path)
	copyPath := filepath.Join(t.TempDir(), "feedpoller.service")
	if err := os.WriteFile(copyPath, []byte(strings.Replace(string(data), "/usr/local/bin/feedpoller serve", "/bin/true serve", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", copyPath).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
