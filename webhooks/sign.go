package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Headers of a delivery.
const (
	HeaderSignature = "X-Feedpoller-Signature"
	HeaderDelivery  = "X-Feedpoller-Delivery"
	HeaderEvent     = "X-Feedpoller-Event"
	HeaderTimestamp = "X-Feedpoller-Timestamp"
)

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
