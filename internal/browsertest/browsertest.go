// Package browsertest runs Debian's headless Chromium for end-to-end
// tests of the web console, on a closed network: every host but
// loopback resolves to nothing, nothing runs in the background, the
// profile is empty, and every request the pages make is recorded so a
// test can show no page reached past the daemon.
package browsertest

import (
	"context"
	"net/url"
	"os/exec"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Binary is the Chromium to run: the first of Debian's and the usual
// names on PATH, or "" when none is installed.
func Binary() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser is one headless Chromium and its first tab.
type Browser struct {
	// Ctx is the tab's context: pass it to chromedp.Run.
	Ctx context.Context

	mu       sync.Mutex
	requests []string
	problems []string
}

// Start runs Chromium with a window of width × height, or skips the test
// when Chromium is not installed. It is stopped when the test ends.
func Start(t testing.TB, width, height int) *Browser {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("Chromium is not installed: the browser tests need it (Debian: apt-get install -y chromium; .ci/run installs it)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("metrics-recording-only", true),
		// A closed network: only loopback resolves.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"),
	}
	// Chromium now and then dies at start on a loaded machine (its
	// zygote or crash handler gives up before the DevTools socket is up):
	// a start that fails is tried again, twice, before the test fails.
	var err error
	for attempt := 1; attempt <= 3; attempt++ {
		var b *Browser
		if b, err = launch(t, opts); err == nil {
			return b
		}
		t.Logf("start Chromium (%s), attempt %d: %v", bin, attempt, err)
		time.Sleep(time.Duration(attempt) * time.Second)
	}
	t.Fatalf("start Chromium (%s): %v", bin, err)
	return nil
}

// launch starts one Chromium with opts and its first tab, and listens to
// the tab's requests and errors.
func launch(t testing.TB, opts []chromedp.ExecAllocatorOption) (*Browser, error) {
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	b := &Browser{Ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.mu.Lock()
			b.requests = append(b.requests, e.Request.URL)
			b.mu.Unlock()
		case *runtime.EventExceptionThrown:
			b.note("script exception: " + e.ExceptionDetails.Text)
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError {
				b.note("console error")
			}
		case *cdplog.EventEntryAdded:
			// Failed requests are the tests' business (a refused form
			// answers 403 on purpose); anything else at error level, such
			// as a Content-Security-Policy violation, is a problem.
			if e.Entry.Level == cdplog.EntryLevelError && e.Entry.Source != cdplog.EntrySourceNetwork {
				b.note(string(e.Entry.Source) + ": " + e.Entry.Text)
			}
		}
	})
	if err != nil {
		cancel()
		cancelAlloc()
		return nil, err
	}
	t.Cleanup(func() { cancel(); cancelAlloc() })
	return b, nil
}

func (b *Browser) note(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.problems = append(b.problems, s)
}

// Problems are the script exceptions and console errors so far (a
// Content-Security-Policy violation is one).
func (b *Browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// ForeignRequests are the requests the pages made to any host but
// allowed (host:port), data: and about: URLs aside.
func (b *Browser) ForeignRequests(allowed string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, r := range b.requests {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "data" && u.Scheme != "about" && u.Host != allowed) {
			out = append(out, r)
		}
	}
	return out
}
