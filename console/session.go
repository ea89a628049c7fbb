package console

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/feedpoller/feedpoller/auth"
	"github.com/feedpoller/feedpoller/model"
)

// The session cookie holds 32 random bytes, the session id, and nothing
// else. The database holds SHA-256 of the id (under its own label) and
// the API token the session acts as, sealed with AES-GCM under a key
// derived from the id: only a request that carries the cookie can open
// it, and every request opens it and authenticates the token again as
// the API does, so a token revoked, or an admin token no longer
// configured, ends its sessions at once. The CSRF token of the session's
// forms is an HMAC of a fixed label under the id: it can be checked
// without being stored and tells nothing of the id.
const (
	sessionCookie = "feedpoller_session"
	signInCookie  = "feedpoller_signin"
	sessionIDLen  = 32
)

// derive is SHA-256 of a label and the session id: each use of the id
// gets its own key.
func derive(label string, sid []byte) []byte {
	h := sha256.New()
	h.Write([]byte("feedpoller console " + label + "\x00"))
	h.Write(sid)
	return h.Sum(nil)
}

func idHash(sid []byte) string { return hex.EncodeToString(derive("session id", sid)) }

func csrfToken(sid []byte) string {
	m := hmac.New(sha256.New, derive("csrf key", sid))
	m.Write([]byte("console forms"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func sealToken(sid []byte, token string) (string, error) {
	gcm, err := sessionAEAD(sid)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, gcm.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("seal session token: %w", err)
	}
	return base64.RawStdEncoding.EncodeToString(gcm.Seal(nonce, nonce, []byte(token), nil)), nil
}

func openToken(sid []byte, sealed string) (string, error) {
	raw, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil {
		return "", fmt.Errorf("open session token: %w", err)
	}
	gcm, err := sessionAEAD(sid)
	if err != nil {
		return "", err
	}
	if len(raw) < gcm.NonceSize() {
		return "", errors.New("open session token: too short")
	}
	plain, err := gcm.Open(nil, raw[:gcm.NonceSize()], raw[gcm.NonceSize():], nil)
	if err != nil {
		return "", fmt.Errorf("open session token: %w", err)
	}
	return string(plain), nil
}

func sessionAEAD(sid []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(derive("seal key", sid))
	if err != nil {
		return nil, fmt.Errorf("session cipher: %w", err)
	}
	return cipher.NewGCM(block)
}

// randomValue is n random bytes, base64url.
func randomValue(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random value: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// secure: the cookie may only travel over TLS when the request came over
// it, directly or through a proxy that says so (trusting the header can
// only make the cookie stricter).
func secure(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value, path string, maxAge time.Duration) {
	c := &http.Cookie{Name: name, Value: value, Path: path, HttpOnly: true, Secure: secure(r), SameSite: http.SameSiteLaxMode}
	if maxAge > 0 {
		c.MaxAge = int(maxAge / time.Second)
	} else {
		c.MaxAge = -1
	}
	http.SetCookie(w, c)
}

// sessionID reads the session cookie's id, or nil.
func sessionID(r *http.Request) []byte {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil
	}
	sid, err := base64.RawURLEncoding.DecodeString(ck.Value)
	if err != nil || len(sid) != sessionIDLen {
		return nil
	}
	return sid
}

// errSignedOut: no session, an expired one, or a token no longer valid.
var errSignedOut = errors.New("not signed in")

// session resolves the request's session to its caller.
func (c *Console) session(r *http.Request) (*request, error) {
	sid := sessionID(r)
	if sid == nil {
		return nil, errSignedOut
	}
	rq := &request{sid: sid, idHash: idHash(sid)}
	cs, err := c.store.ConsoleSession(r.Context(), rq.idHash)
	if errors.Is(err, model.ErrNotFound) {
		return nil, errSignedOut
	}
	if err != nil {
		return nil, err
	}
	token, err := openToken(sid, cs.Sealed)
	if err != nil {
		return nil, errSignedOut
	}
	rq.caller, err = auth.Authenticate(r.Context(), c.store, c.adminHash, token)
	if errors.Is(err, auth.ErrUnauthorized) {
		// Revoked, or no longer the configured admin token: the session
		// goes with it.
		if derr := c.store.DeleteConsoleSession(r.Context(), rq.idHash); derr != nil {
			c.log.WarnContext(r.Context(), "console: end the session of an invalid token", "err", derr)
		}
		return nil, errSignedOut
	}
	if err != nil {
		return nil, err
	}
	rq.csrf = csrfToken(sid)
	rq.flash = parseFlash(cs.Flash)
	return rq, nil
}

// signInPage shows the sign-in form, or sends a signed-in browser home.
func (c *Console) signInPage(w http.ResponseWriter, r *http.Request) {
	if rq, err := c.session(r); err == nil && rq != nil {
		http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
		return
	}
	msg := ""
	switch r.URL.Query().Get("m") {
	case "out":
		msg = "You are signed out."
	case "expired":
		msg = "Your session ended (it expired, or its token was revoked): sign in again."
	}
	c.renderSignIn(w, r, http.StatusOK, msg, "")
}

// renderSignIn shows the form with a fresh sign-in CSRF value, kept in a
// cookie of its own: there is no session yet to derive one from.
func (c *Console) renderSignIn(w http.ResponseWriter, r *http.Request, status int, note, problem string) {
	v, err := randomValue(32)
	if err != nil {
		c.fail(w, r, nil, err)
		return
	}
	setCookie(w, r, signInCookie, v, Prefix+"/signin", time.Hour)
	c.render(w, r, nil, status, "signin", "Sign in", signInData{CSRF: v, Note: note, Problem: problem})
}

type signInData struct {
	CSRF, Note, Problem string
}

// signIn checks the token exactly as the API does and starts a session.
func (c *Console) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		c.renderSignIn(w, r, http.StatusBadRequest, "", "The form could not be read: "+err.Error())
		return
	}
	ck, err := r.Cookie(signInCookie)
	if err != nil || !sameOrigin(r) || subtle.ConstantTimeCompare([]byte(ck.Value), []byte(r.PostForm.Get("csrf"))) != 1 {
		c.renderSignIn(w, r, http.StatusForbidden, "", "This sign-in form is stale or did not come from this console: try again.")
		return
	}
	token := strings.TrimSpace(r.PostForm.Get("token"))
	if token == "" {
		c.renderSignIn(w, r, http.StatusBadRequest, "", "Paste an API token.")
		return
	}
	caller, err := auth.Authenticate(r.Context(), c.store, c.adminHash, token)
	if errors.Is(err, auth.ErrUnauthorized) {
		c.log.InfoContext(r.Context(), "console sign-in refused: token not valid")
		c.renderSignIn(w, r, http.StatusUnauthorized, "", "This token is not valid: it is unknown, mistyped or revoked.")
		return
	}
	if err != nil {
		c.fail(w, r, nil, err)
		return
	}
	sid := make([]byte, sessionIDLen)
	if _, err := rand.Read(sid); err != nil {
		c.fail(w, r, nil, fmt.Errorf("new session id: %w", err))
		return
	}
	sealed, err := sealToken(sid, token)
	if err != nil {
		c.fail(w, r, nil, err)
		return
	}
	if err := c.store.CreateConsoleSession(r.Context(), idHash(sid), sealed, time.Now().Add(c.ttl)); err != nil {
		c.fail(w, r, nil, err)
		return
	}
	c.log.InfoContext(r.Context(), "console sign-in", "admin", caller.Admin, "workspace", caller.WorkspaceID,
		"read_only", caller.ReadOnly, "token_id", caller.TokenID)
	setCookie(w, r, signInCookie, "", Prefix+"/signin", 0)
	setCookie(w, r, sessionCookie, base64.RawURLEncoding.EncodeToString(sid), Prefix+"/", c.ttl)
	http.Redirect(w, r, Prefix+"/", http.StatusSeeOther)
}

// signOut ends the session here and in the database.
func (c *Console) signOut(w http.ResponseWriter, r *http.Request, rq *request) error {
	if err := c.store.DeleteConsoleSession(r.Context(), rq.idHash); err != nil {
		return err
	}
	setCookie(w, r, sessionCookie, "", Prefix+"/", 0)
	http.Redirect(w, r, Prefix+"/signin?m=out", http.StatusSeeOther)
	return nil
}

// flash is a message the next page shows once.
type flash struct {
	OK   bool
	Text string
}

func parseFlash(s string) *flash {
	kind, text, ok := strings.Cut(s, "\x1f")
	if !ok || text == "" {
		return nil
	}
	return &flash{OK: kind == "ok", Text: text}
}

// setFlash keeps a message for the next page of the session.
func (c *Console) setFlash(r *http.Request, rq *request, ok bool, text string) {
	kind := "error"
	if ok {
		kind = "ok"
	}
	if err := c.store.SetConsoleFlash(r.Context(), rq.idHash, kind+"\x1f"+text); err != nil {
		c.log.WarnContext(r.Context(), "console: keep a message for the next page", "err", err)
	}
}
