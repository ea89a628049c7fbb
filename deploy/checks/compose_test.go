package checks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/dotenv"
	"github.com/compose-spec/compose-go/v2/types"
)

// secret is a fresh random value, standing in for what a user generates.
func secret(t *testing.T) string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// userEnv is the example env file as a user leaves it after copying it to
// .env and filling in the secrets it asks for; overrides set more.
func userEnv(t *testing.T, overrides map[string]string) string {
	t.Helper()
	data, err := os.ReadFile("feedpoller.env.example")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		k, _, ok := strings.Cut(line, "=")
		if v, set := overrides[k]; ok && set {
			lines[i] = k + "=" + v
			delete(overrides, k)
		}
	}
	for k, v := range overrides {
		lines = append(lines, k+"="+v)
	}
	path := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadCompose loads compose.yaml as docker compose does with envFile as
// the project's .env: schema validation, interpolation, normalisation.
func loadCompose(t *testing.T, envFile string) (*types.Project, error) {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	opts, err := cli.NewProjectOptions([]string{"compose.yaml"}, cli.WithWorkingDirectory(wd),
		cli.WithEnvFiles(envFile), cli.WithDotEnv, cli.WithConsistency(true), cli.WithResolvedPaths(true))
	if err != nil {
		t.Fatal(err)
	}
	return opts.LoadProject(context.Background())
}

func filledEnv(t *testing.T) (path, token, password string) {
	token, password = secret(t), secret(t)
	return userEnv(t, map[string]string{"FEEDPOLLER_ADMIN_TOKEN": token, "POSTGRES_PASSWORD": password}), token, password
}

func TestComposeFile(t *testing.T) {
	envFile, token, password := filledEnv(t)
	p, err := loadCompose(t, envFile)
	if err != nil {
		t.Fatalf("docker compose would refuse compose.yaml: %v", err)
	}
	pg, ok := p.Services["postgres"]
	if !ok {
		t.Fatal("no postgres service")
	}
	fp, ok := p.Services["feedpoller"]
	if !ok {
		t.Fatal("no feedpoller service")
	}

	t.Run("postgres", func(t *testing.T) {
		m := regexp.MustCompile(`^postgres:(\d+)`).FindStringSubmatch(pg.Image)
		if m == nil {
			t.Fatalf("image %q is not an official postgres image with a major version", pg.Image)
		}
		if v, _ := strconv.Atoi(m[1]); v < 15 {
			t.Errorf("PostgreSQL %d, want 15 or later", v)
		}
		if env(pg, "POSTGRES_PASSWORD") != password {
			t.Errorf("POSTGRES_PASSWORD is not the one from .env")
		}
		checkHealthcheck(t, pg, "pg_isready")
		checkNamedVolume(t, p, pg, "/var/lib/postgresql/data")
		if len(pg.Ports) != 0 {
			t.Errorf("postgres publishes ports %v: it should be reachable only by feedpoller", pg.Ports)
		}
	})

	t.Run("feedpoller", func(t *testing.T) {
		if fp.Build == nil || fp.Build.Dockerfile != "Dockerfile" {
			t.Fatalf("build %+v, want the repository Dockerfile", fp.Build)
		}
		root, _ := filepath.Abs("..")
		if fp.Build.Context != root {
			t.Errorf("build context %q, want the repository root %q", fp.Build.Context, root)
		}
		if _, err := os.Stat(filepath.Join(fp.Build.Context, fp.Build.Dockerfile)); err != nil {
			t.Errorf("Dockerfile: %v", err)
		}
		dep, ok := fp.DependsOn["postgres"]
		if !ok || dep.Condition != types.ServiceConditionHealthy {
			t.Errorf("depends_on postgres = %+v, want condition service_healthy", dep)
		}
		if got := env(fp, "FEEDPOLLER_ADMIN_TOKEN"); got != token {
			t.Errorf("FEEDPOLLER_ADMIN_TOKEN = %q, want the token from .env", got)
		}
		if got := env(fp, "FEEDPOLLER_LISTEN"); got != "0.0.0.0:8080" {
			t.Errorf("FEEDPOLLER_LISTEN = %q, want 0.0.0.0:8080 inside the container", got)
		}
		dbURL := env(fp, "FEEDPOLLER_DATABASE_URL")
		want := "postgres://" + env(pg, "POSTGRES_USER") + ":" + password + "@postgres:5432/" + env(pg, "POSTGRES_DB") + "?sslmode=disable"
		if dbURL != want {
			t.Errorf("FEEDPOLLER_DATABASE_URL = %q, want %q (the postgres service)", dbURL, want)
		}
		checkHealthcheck(t, fp, "/usr/local/bin/feedpoller-healthcheck")
		checkNamedVolume(t, p, fp, "/data")
		if len(fp.Ports) != 1 {
			t.Fatalf("ports %+v, want one", fp.Ports)
		}
		if port := fp.Ports[0]; port.HostIP != "127.0.0.1" || port.Published != "8080" || port.Target != 8080 {
			t.Errorf("port %+v, want 127.0.0.1:8080 → 8080", port)
		}
	})

	t.Run("every variable the file uses is in the env example", func(t *testing.T) {
		example, err := dotenv.Read("feedpoller.env.example")
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile("compose.yaml")
		for _, m := range regexp.MustCompile(`\$\{([A-Z0-9_]+)`).FindAllStringSubmatch(string(raw), -1) {
			if _, ok := example[m[1]]; !ok {
				t.Errorf("compose.yaml uses ${%s}, which feedpoller.env.example does not name", m[1])
			}
		}
	})
}

// The example's secrets are placeholders that cannot work: compose
// refuses to start until they are filled in, naming the variable.
func TestComposeRefusesTheUnfilledExample(t *testing.T) {
	for _, missing := range []string{"FEEDPOLLER_ADMIN_TOKEN", "POSTGRES_PASSWORD"} {
		set := map[string]string{"FEEDPOLLER_ADMIN_TOKEN": secret(t), "POSTGRES_PASSWORD": secret(t)}
		delete(set, missing)
		_, err := loadCompose(t, userEnv(t, set))
		if err == nil || !strings.Contains(err.Error(), missing) {
			t.Errorf("with %s empty: %v, want a refusal naming it", missing, err)
		}
	}
	example, _ := dotenv.Read("feedpoller.env.example")
	for _, k := range []string{"FEEDPOLLER_ADMIN_TOKEN", "POSTGRES_PASSWORD"} {
		if v, ok := example[k]; !ok || v != "" {
			t.Errorf("the example sets %s=%q; it must be an empty placeholder", k, v)
		}
	}
}

func env(s types.ServiceConfig, k string) string {
	if v := s.Environment[k]; v != nil {
		return *v
	}
	return ""
}

func checkHealthcheck(t *testing.T, s types.ServiceConfig, command string) {
	t.Helper()
	h := s.HealthCheck
	if h == nil || h.Disable || len(h.Test) < 2 {
		t.Fatalf("%s has no health check: %+v", s.Name, h)
	}
	if !strings.Contains(strings.Join(h.Test[1:], " "), command) {
		t.Errorf("%s health check %v does not run %s", s.Name, h.Test, command)
	}
	if h.Interval == nil || h.Timeout == nil || h.Retries == nil {
		t.Errorf("%s health check needs an interval, a timeout and retries: %+v", s.Name, h)
	}
}

func checkNamedVolume(t *testing.T, p *types.Project, s types.ServiceConfig, target string) {
	t.Helper()
	for _, v := range s.Volumes {
		if v.Target == target {
			if v.Type != types.VolumeTypeVolume {
				t.Errorf("%s mounts %s from a %s, want a named volume", s.Name, target, v.Type)
			}
			if _, ok := p.Volumes[v.Source]; !ok {
				t.Errorf("%s's volume %q is not declared", s.Name, v.Source)
			}
			return
		}
	}
	t.Errorf("%s mounts nothing at %s", s.Name, target)
}
