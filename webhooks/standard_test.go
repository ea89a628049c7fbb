package webhooks_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/webhooks"
	"github.com/feedpoller/feedpoller/webhooks/webhookstest"
)

// The Standard Webhooks specification's own example: secret, message id,
// timestamp and payload, and the signature it gives for them.
const (
	specSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	specID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	specTimestamp = 1614265330
	specPayload   = `{"test": 2432232314}`
	specSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

// SignStandard gives the specification's signature for its example, and
// the independent verifier (written from the specification) accepts it.
func TestStandardSignatureSpecExample(t *testing.T) {
	if got := webhooks.SignStandard(specSecret, specID, specTimestamp, []byte(specPayload)); got != specSignature {
		t.Fatalf("SignStandard = %s, want the specification's %s", got, specSignature)
	}
	h := http.Header{}
	h.Set("webhook-id", specID)
	h.Set("webhook-timestamp", "1614265330")
	h.Set("webhook-signature", "v1,bm90IGl0 "+specSignature)
	if err := webhookstest.VerifyStandard(specSecret, h, []byte(specPayload), time.Unix(specTimestamp, 0), 5*time.Minute); err != nil {
		t.Fatalf("the verifier refuses the specification's example: %v", err)
	}
	if err := webhookstest.VerifyStandard(specSecret, h, []byte(specPayload+" "), time.Unix(specTimestamp, 0), 5*time.Minute); err == nil {
		t.Fatal("the verifier accepts a changed body")
	}
}

// documentedUserAgent is the User-Agent docs/webhooks.md shows.
func documentedUserAgent(t *testing.T) string {
	t.Helper()
	f, err := os.Open("../docs/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if ua, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "User-Agent: "); ok {
			return ua
		}
	}
	t.Fatal("docs/webhooks.md shows no User-Agent")
	return ""
}

// A delivery carries the Standard Webhooks headers beside feedpoller's,
// which a receiver verifies with a generated secret as it is (whsec_ and
// standard base64) and with a secret of its own through StandardSecret;
// the User-Agent is the one the docs show.
func TestSenderSendsStandardWebhooksHeaders(t *testing.T) {
	type seen struct {
		h    http.Header
		body []byte
	}
	got := make(chan seen, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.Header.Clone(), b}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	sender, err := webhooks.NewSender(webhooks.SenderOptions{Policy: loopbackPolicy(t)})
	if err != nil {
		t.Fatal(err)
	}
	generated := webhooks.NewSecret()
	if key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(generated, "whsec_")); err != nil || len(key) != 32 ||
		!strings.HasPrefix(generated, "whsec_") {
		t.Fatalf("generated secret %q is not whsec_ and 32 bytes of standard base64: %v", generated, err)
	}
	for _, c := range []struct{ secret, receiverSecret string }{
		{generated, generated},
		{"a-secret-of-my-own", webhookstest.StandardSecret("a-secret-of-my-own")},
	} {
		body := []byte(`{"delivery_id":"0195b2d4-7c1e-7a41-9b8e-3f1c2a9d4e01","event":"content_item.promoted"}`)
		a := sender.Send(context.Background(), model.PendingDelivery{ID: "0195b2d4-7c1e-7a41-9b8e-3f1c2a9d4e01", Event: "content_item.promoted",
			URL: srv.URL + "/hook", Secret: c.secret, Payload: body})
		if a.Class != model.AttemptDelivered {
			t.Fatalf("send: %+v", a)
		}
		s := <-got
		if err := webhookstest.VerifyStandard(c.receiverSecret, s.h, s.body, time.Now(), 5*time.Minute); err != nil {
			t.Errorf("secret %q: the Standard Webhooks signature does not verify: %v (headers %v)", c.secret, err, s.h)
		}
		if !webhooks.Verify(c.secret, s.body, s.h.Get(webhooks.HeaderSignature)) {
			t.Errorf("secret %q: X-Feedpoller-Signature does not verify", c.secret)
		}
		if s.h.Get("webhook-id") != s.h.Get(webhooks.HeaderDelivery) || s.h.Get("webhook-timestamp") != s.h.Get(webhooks.HeaderTimestamp) {
			t.Errorf("the two sets of headers disagree: %v", s.h)
		}
		if ua, want := s.h.Get("User-Agent"), documentedUserAgent(t); ua != want {
			t.Errorf("User-Agent %q, the docs show %q", ua, want)
		}
	}
}
