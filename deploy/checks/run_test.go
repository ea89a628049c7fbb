package checks

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/feedpoller/feedpoller/internal/daemontest"
	"github.com/feedpoller/feedpoller/internal/testdb"
)

// TestMain runs the checks from deploy/, where the files they check are,
// as the paths in them say.
func TestMain(m *testing.M) {
	if err := os.Chdir(".."); err != nil {
		panic(err)
	}
	testdb.Main(m)
}

// binaries builds feedpoller and its health probe for the test.
func binaries(t *testing.T) (daemon, probe string) {
	t.Helper()
	dir := t.TempDir()
	for _, pkg := range []string{"feedpoller", "feedpoller-healthcheck"} {
		out, err := exec.Command("go", "build", "-o", filepath.Join(dir, pkg), "../cmd/"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("build %s: %v\n%s", pkg, err, out)
		}
	}
	return filepath.Join(dir, "feedpoller"), filepath.Join(dir, "feedpoller-healthcheck")
}

// imageEnv is the environment the Dockerfile's runtime stage sets (ENV
// lines after the last FROM).
func imageEnv(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	env := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "FROM":
			env = map[string]string{}
		case "ENV":
			for _, kv := range fields[1:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("Dockerfile ENV %q: only KEY=VALUE is read here", kv)
				}
				env[k] = v
			}
		}
	}
	return env
}

// The configuration compose gives feedpoller runs without containers: the
// real binary with the image's and the service's environment, against a
// throwaway PostgreSQL standing in for the postgres service (with its
// user, password and database), answers /readyz and the admin token from
// the env file, stores on PostgreSQL, and its health probe passes.
func TestComposeConfigurationRunsWithoutContainers(t *testing.T) {
	daemonBin, probeBin := binaries(t)
	envFile, token, _ := filledEnv(t)
	p, err := loadCompose(t, envFile)
	if err != nil {
		t.Fatal(err)
	}
	pg, fp := p.Services["postgres"], p.Services["feedpoller"]

	// The postgres service, as its image's entrypoint sets it up.
	cluster := testdb.NewCluster(t)
	admin, err := sql.Open("postgres", cluster.URL(""))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	user, password, dbName := env(pg, "POSTGRES_USER"), env(pg, "POSTGRES_PASSWORD"), env(pg, "POSTGRES_DB")
	for _, stmt := range []string{
		fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD '%s'`, user, password),
		fmt.Sprintf(`CREATE DATABASE %s OWNER %s`, dbName, user),
	} {
		if _, err := admin.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}

	// The container's environment: the image's, then the service's.
	containerEnv := imageEnv(t)
	for k, v := range fp.Environment {
		if v != nil {
			containerEnv[k] = *v
		}
	}
	dbURL, err := url.Parse(containerEnv["FEEDPOLLER_DATABASE_URL"])
	if err != nil || dbURL.Host != "postgres:5432" {
		t.Fatalf("FEEDPOLLER_DATABASE_URL %q does not name the postgres service", containerEnv["FEEDPOLLER_DATABASE_URL"])
	}
	// The service name resolves to the stand-in; nothing else changes.
	dbURL.Host = fmt.Sprintf("127.0.0.1:%d", cluster.Port())
	containerEnv["FEEDPOLLER_DATABASE_URL"] = dbURL.String()
	var envList []string
	for k, v := range containerEnv {
		envList = append(envList, k+"="+v)
	}
	sort.Strings(envList)
	if containerEnv["FEEDPOLLER_LISTEN"] != "0.0.0.0:8080" {
		t.Errorf("the container listens on %q, want 0.0.0.0:8080", containerEnv["FEEDPOLLER_LISTEN"])
	}

	// The data volume is the working directory. The listen address is the
	// one thing moved: outside a container 0.0.0.0:8080 is every interface
	// of this machine, and 8080 may be taken (by the README's own serve).
	for i, kv := range envList {
		if strings.HasPrefix(kv, "FEEDPOLLER_LISTEN=") {
			envList[i] = "FEEDPOLLER_LISTEN=" + daemontest.FreeAddr(t)
		}
	}
	d := daemontest.Start(t, daemonBin, t.TempDir(), envList)

	get := func(path, bearer string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, d.Base+path, nil)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/readyz", ""); code != http.StatusOK || !strings.Contains(body, `"ready"`) {
		t.Fatalf("/readyz: %d %s", code, body)
	}
	if code, _ := get("/api/intelligence/workspaces", ""); code != http.StatusUnauthorized {
		t.Errorf("without a token: %d, want 401", code)
	}
	if code, body := get("/api/intelligence/workspaces", token); code != http.StatusOK {
		t.Fatalf("with the admin token from the env file: %d %s", code, body)
	}
	req, _ := http.NewRequest(http.MethodPost, d.Base+"/api/intelligence/workspaces", bytes.NewReader([]byte(`{"name":"compose"}`)))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ID int64 }
	if err := json.NewDecoder(resp.Body).Decode(&created); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || created.ID == 0 {
		t.Fatalf("create workspace: %d", resp.StatusCode)
	}
	// It is stored in the postgres service's database, as its user.
	db, err := sql.Open("postgres", dbURL.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var name, owner string
	if err := db.QueryRow(`SELECT w.name, t.tableowner FROM workspaces w, pg_tables t WHERE w.id = $1 AND t.tablename = 'workspaces'`, created.ID).Scan(&name, &owner); err != nil {
		t.Fatalf("the workspace is not in the postgres service's database: %v", err)
	}
	if name != "compose" || owner != user {
		t.Errorf("workspace %q in tables owned by %q, want %q", name, owner, user)
	}
	if d.LogLines(`"database":"postgres"`) == 0 {
		t.Errorf("the daemon did not log that it serves on PostgreSQL (JSON logs, as the image sets):\n%s", d.Output())
	}

	// The health check compose runs, with the container's environment.
	probe := func() (int, string) {
		cmd := exec.Command(probeBin)
		cmd.Env = []string{"FEEDPOLLER_LISTEN=" + strings.TrimPrefix(d.Base, "http://")}
		out, err := cmd.CombinedOutput()
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := probe(); code != 0 {
		t.Errorf("health probe: exit %d: %s", code, out)
	}
	d.Kill()
	if code, _ := probe(); code != 1 {
		t.Errorf("health probe of a dead daemon: exit %d, want 1", code)
	}
}
