package webhookstest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// VerifyStandard checks a request's Standard Webhooks headers the way the
// specification tells a receiver to, written from the specification
// alone (it shares no code with the sender's signing): secret is
// "whsec_" and the base64 of the key; the signed content is
// "webhook-id.webhook-timestamp.body"; webhook-signature holds one or
// more space-separated "v1,<base64 HMAC-SHA256>" of which one must
// match; the timestamp must be within tolerance of now (tolerance 0: not
// checked, for senders on a test's clock).
func VerifyStandard(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("missing webhook-id, webhook-timestamp or webhook-signature")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not an integer")
	}
	if d := now.Sub(time.Unix(sec, 0)); tolerance > 0 && (d > tolerance || d < -tolerance) {
		return errors.New("webhook-timestamp is too far from now")
	}
	b64, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return errors.New("the secret is not whsec_…")
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return errors.New("the secret's key is not base64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "." + string(body)))
	want := mac.Sum(nil)
	for _, s := range strings.Fields(sigs) {
		version, sig, ok := strings.Cut(s, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(sig)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no v1 signature matches")
}

// StandardSecret is the secret a receiver's Standard Webhooks library is
// given for a webhook created with secret: a "whsec_" secret as it is,
// any other as "whsec_" and the base64 of its bytes.
func StandardSecret(secret string) string {
	if strings.HasPrefix(secret, "whsec_") {
		return secret
	}
	return "whsec_" + base64.StdEncoding.EncodeToString([]byte(secret))
}
