package api

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
)

// statusRecorder remembers what a handler answered, for the request log and
// for panic recovery (which can only answer if nothing was written yet).
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// probePaths are what load balancers, orchestrators and Prometheus call
// every few seconds: their request lines are logged at debug, so that the
// info log shows what people and programs asked of the API.
var probePaths = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// callbackPrefix is where the WebSub callbacks are served: the rest of
// such a path is a subscription's callback token, a secret.
const callbackPrefix = "/websub/"

// loggedPath is a request's path as logs show it: a WebSub callback's
// token is redacted, since anyone holding it could post to the
// subscription's callback.
func loggedPath(p string) string {
	if strings.HasPrefix(p, callbackPrefix) && len(p) > len(callbackPrefix) {
		return callbackPrefix + "[redacted]"
	}
	return p
}

// observe logs one line per request (method, path, status, duration; never
// headers, so never a token, nor a callback's token in the path) and turns
// a panic into a logged 500 instead of a dropped connection.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "panic serving request", "method", r.Method, "path", loggedPath(r.URL.Path),
					"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if rec.status == 0 {
					writeError(rec, http.StatusInternalServerError, "internal error; the server log has the details")
				}
			}
			level := slog.LevelInfo
			if probePaths[r.URL.Path] {
				level = slog.LevelDebug
			}
			s.log.Log(r.Context(), level, "http request", "method", r.Method, "path", loggedPath(r.URL.Path),
				"status", rec.status, "bytes", rec.bytes, "duration_ms", time.Since(start).Milliseconds())
		}()
		next.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
	})
}

// headerCapture collects what the mux's own 404/405/redirect handlers
// would answer, so it can be answered as JSON instead.
type headerCapture struct {
	header http.Header
	status int
}

func (c *headerCapture) Header() http.Header         { return c.header }
func (c *headerCapture) Write(b []byte) (int, error) { return len(b), nil }
func (c *headerCapture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
}

// jsonFallbacks answers requests no route matches with JSON. Under /api/
// it asks for a token first, so probing paths without one learns nothing.
func (s *Server) jsonFallbacks(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") {
			if _, err := s.authenticate(r); err != nil {
				s.fail(w, r, err)
				return
			}
		}
		c := &headerCapture{header: http.Header{}}
		h.ServeHTTP(c, r)
		switch {
		case c.status == http.StatusMethodNotAllowed:
			w.Header().Set("Allow", c.header.Get("Allow"))
			writeError(w, c.status, fmt.Sprintf("method %s is not allowed on %s (allowed: %s)", r.Method, r.URL.Path, c.header.Get("Allow")))
		case c.status >= 300 && c.status < 400 && c.header.Get("Location") != "":
			w.Header().Set("Location", c.header.Get("Location"))
			writeError(w, c.status, "moved to "+c.header.Get("Location"))
		default:
			writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
		}
	})
}
