package chaos

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/internal/daemontest"
	"github.com/feedpoller/feedpoller/internal/testdb"
)

// binary is the real feedpoller, built once for the suite.
var binary string

// shared is the PostgreSQL cluster the tests that do not stop their
// database share; each test gets a database of its own on it.
var shared struct {
	once sync.Once
	c    *testdb.Cluster
	err  error
	seq  int
	mu   sync.Mutex
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	bin, cleanup, err := daemontest.Build("../cmd/feedpoller")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	binary = bin
	code := m.Run()
	if shared.c != nil {
		if err := shared.c.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "stop shared cluster:", err)
		}
	}
	return code
}

// newDatabase returns the URL of an empty database on the shared cluster.
func newDatabase(t *testing.T) string {
	t.Helper()
	shared.once.Do(func() { shared.c, shared.err = testdb.StartCluster() })
	if shared.err != nil {
		testdb.Unavailable(t, fmt.Errorf("the chaos suite's cluster: %w", shared.err))
	}
	shared.mu.Lock()
	shared.seq++
	name := fmt.Sprintf("chaos_%d", shared.seq)
	shared.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	u, err := shared.c.CreateDatabase(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
