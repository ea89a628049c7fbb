package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
)

// Headers of a delivery: feedpoller's own, and those of the Standard
// Webhooks specification, which receivers' libraries verify.
const (
	HeaderSignature = "X-Feedpoller-Signature"
	HeaderDelivery  = "X-Feedpoller-Delivery"
	HeaderEvent     = "X-Feedpoller-Event"
	HeaderTimestamp = "X-Feedpoller-Timestamp"

	// HeaderWebhookID is the delivery id (the same on every attempt).
	HeaderWebhookID = "webhook-id"
	// HeaderWebhookTimestamp is the attempt's time in Unix seconds.
	HeaderWebhookTimestamp = "webhook-timestamp"
	// HeaderWebhookSignature is "v1," and the base64 HMAC-SHA256 of
	// "id.timestamp.body" (SignStandard).
	HeaderWebhookSignature = "webhook-signature"
)

// secretPrefix marks a secret in the Standard Webhooks form: the prefix
// and the key in base64.
const secretPrefix = "whsec_"

// StandardKey is the HMAC key of the Standard Webhooks signature for a
// webhook's secret: for a "whsec_" secret the bytes its base64 stands for
// (standard alphabet, as generated; the URL-safe one of older generated
// secrets is read too), for any other secret its own bytes. A receiver
// whose library wants a "whsec_" secret gives it "whsec_" and the base64
// of those bytes.
func StandardKey(secret string) []byte {
	if b64, ok := strings.CutPrefix(secret, secretPrefix); ok {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
			if key, err := enc.DecodeString(b64); err == nil && len(key) > 0 {
				return key
			}
		}
	}
	return []byte(secret)
}

// SignStandard is the webhook-signature value of a delivery: "v1," and
// the base64 HMAC-SHA256, keyed with StandardKey(secret), of the delivery
// id, the timestamp (Unix seconds) and the raw body joined by dots.
func SignStandard(secret, id string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, StandardKey(secret))
	mac.Write([]byte(id + "." + strconv.FormatInt(timestamp, 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

const signaturePrefix = "sha256="

// Sign is the X-Feedpoller-Signature value of body: "sha256=" and the hex
// HMAC-SHA256 of the raw body with the secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return signaturePrefix + hex.EncodeToString(mac.Sum(nil))
}

// Verify reports whether header is the signature of body with secret. It
// is what a receiver runs on the raw request body before parsing it; the
// comparison takes the same time wherever the values differ.
func Verify(secret string, body []byte, header string) bool {
	hexSig, ok := strings.CutPrefix(strings.TrimSpace(header), signaturePrefix)
	if !ok {
		return false
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hmac.Equal(got, mac.Sum(nil))
}
