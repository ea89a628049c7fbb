package api

import (
	"net/http"
	"strconv"

	"github.com/feedpoller/feedpoller/service"
)

var digestParams = map[string]bool{"since": true, "until": true, "format": true, "max_tokens": true}

// getDigest answers a workspace's digest in the asked format, with that
// format's media type (text/markdown, application/json, text/plain).
func (s *Server) getDigest(w http.ResponseWriter, r *http.Request) error {
	id, err := workspaceID(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	fields := map[string]string{}
	for k := range q {
		if !digestParams[k] {
			fields[k] = "is not a known query parameter (known: since, until, format, max_tokens)"
		}
	}
	req := service.DigestRequest{Since: q.Get("since"), Until: q.Get("until"), Format: q.Get("format")}
	if v := q.Get("max_tokens"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			fields["max_tokens"] = "must be a positive whole number of tokens"
		}
		req.MaxTokens = n
	}
	if len(fields) > 0 {
		return service.Invalid("invalid query parameters", fields)
	}
	d, err := s.svc.Digest(r.Context(), id, req)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", d.MediaType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(d.Body)
	return nil
}
