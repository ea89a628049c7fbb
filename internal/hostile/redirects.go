package hostile

import (
	"net/http"
	"strconv"
	"strings"
)

// serveRedirectLoop and redirectLoopBack send a client round in a circle.
func (s *Server) serveRedirectLoop(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/redirect-loop/b", http.StatusFound)
}

func (s *Server) redirectLoopBack(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "/redirect-loop", http.StatusFound)
}

// redirectTo answers 302 to a fixed absolute URL.
func redirectTo(target string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	}
}

// serveRedirectLocalhost sends the client to /secret on this server by the
// name localhost, the classic way round an IP-literal blocklist.
func (s *Server) serveRedirectLocalhost(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, "http://localhost:"+strconv.Itoa(s.Port())+"/secret", http.StatusFound)
}

// serveSecret stands for an internal service: any request reaching it is a
// breach, counted by Forbidden whichever way it came.
func (s *Server) serveSecret(w http.ResponseWriter, r *http.Request) {
	s.hit("secret")
	s.mu.Lock()
	s.forbidden++
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("internal secret: this must never be fetched\n"))
}

// RetryAfterSeconds is the Retry-After that /ratelimit sends.
const RetryAfterSeconds = 120

func (s *Server) serveRateLimit(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	http.Error(w, "slow down", http.StatusTooManyRequests)
}

// serveFlap answers 500 on odd-numbered hits and a valid feed on even ones.
func (s *Server) serveFlap(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.flaps++
	n := s.flaps
	s.mu.Unlock()
	if n%2 == 1 {
		http.Error(w, "internal error (flapping)", http.StatusInternalServerError)
		return
	}
	writeDoc(w, "application/rss+xml; charset=utf-8", feedDoc(s.URL(), "flap", "Flapping feed", 3))
}

// serveStatus answers a bare status.
func serveStatus(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, http.StatusText(code), code)
	}
}

// serveStatic answers 200 with doc, "{{BASE}}" replaced by this server's
// URL, so links inside stay on this server.
func (s *Server) serveStatic(contentType, doc string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeDoc(w, contentType, strings.ReplaceAll(doc, "{{BASE}}", s.URL()))
	}
}

func writeDoc(w http.ResponseWriter, contentType, doc string) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(doc)))
	_, _ = w.Write([]byte(doc))
}
