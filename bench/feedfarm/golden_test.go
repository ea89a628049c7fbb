package feedfarm_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

// farmDigest serves the same requests to a farm and hashes every answer's
// body, so a change of even one byte of content shows.
func farmDigest(t *testing.T, opts feedfarm.Options) string {
	t.Helper()
	h := feedfarm.New(opts).Handler()
	sum := sha256.New()
	for _, path := range []string{"/feed/0.xml", "/feed/1.xml", "/feed/2.xml", "/feed/0.xml", "/feed/1.xml",
		"/item/0/3", "/item/1/20", "/item/2/0"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://farm.test"+path, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: status %d", path, rec.Code)
		}
		sum.Write(rec.Body.Bytes())
	}
	return hex.EncodeToString(sum.Sum(nil))
}

// TestUniformTextUnchanged pins the default text byte for byte to what the
// farm served before it had a second text model, so every earlier
// benchmark figure stays reproducible.
func TestUniformTextUnchanged(t *testing.T) {
	const want = "916415845496f475f14f4dec831e892ad237a5495e17eabd1435c83b90b182ce"
	got := farmDigest(t, feedfarm.Options{Feeds: 3, ChangeShare: 1, Seed: 7})
	if got != want {
		t.Errorf("uniform text digest %s, want %s", got, want)
	}
}

// TestNewsTextPinned pins the news text too: figures measured on it stay
// reproducible, and a change of the model shows here first.
func TestNewsTextPinned(t *testing.T) {
	const want = "1baf1df20f4c9f4dfb325e684eef50d7ce5caa9df11949a76a64212fee98c49c"
	got := farmDigest(t, feedfarm.Options{Feeds: 3, ChangeShare: 1, Seed: 7, Text: feedfarm.TextNews})
	if got != want {
		t.Errorf("news text digest %s, want %s", got, want)
	}
	if got == farmDigest(t, feedfarm.Options{Feeds: 3, ChangeShare: 1, Seed: 8, Text: feedfarm.TextNews}) {
		t.Error("seeds 7 and 8 serve the same news text")
	}
}
