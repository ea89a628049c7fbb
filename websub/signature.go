package websub

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // HMAC-SHA1 is a sound MAC; hubs that sign only with sha1 must still be heard
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"strings"
)

// signatureMethods are the X-Hub-Signature methods the WebSub
// Recommendation names. sha1 is accepted: HMAC-SHA1 has no known forgery
// (the collisions of SHA-1 do not carry over to HMAC) and widely used hubs
// sign with nothing else.
var signatureMethods = map[string]func() hash.Hash{
	"sha1": sha1.New, "sha256": sha256.New, "sha384": sha512.New384, "sha512": sha512.New,
}

// checkSignature reports whether header (X-Hub-Signature, "method=hex")
// is the HMAC of body with secret. present is false when there is no
// header at all.
func checkSignature(header string, body []byte, secret string) (present, valid bool) {
	header = strings.TrimSpace(header)
	if header == "" {
		return false, false
	}
	method, sig, ok := strings.Cut(header, "=")
	newHash, known := signatureMethods[strings.ToLower(method)]
	if !ok || !known {
		return true, false
	}
	want, err := hex.DecodeString(sig)
	if err != nil {
		return true, false
	}
	mac := hmac.New(newHash, []byte(secret))
	mac.Write(body)
	return true, hmac.Equal(mac.Sum(nil), want)
}
