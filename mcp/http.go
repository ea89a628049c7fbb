package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxBodyBytes bounds one HTTP request body.
const maxBodyBytes = 1 << 20

// MaxBatch is the most messages one JSON-RPC batch may hold. Batches
// exist in protocol version 2025-03-26 only, and the SDK starts every call
// of a batch at once: a 1 MiB body held about 7 000 of them.
const MaxBatch = 10

// batchVersion is the only protocol version with JSON-RPC batches, and
// the one a request without an MCP-Protocol-Version header is taken to
// speak.
const batchVersion = "2025-03-26"

// Handler serves Streamable HTTP. Every request needs a bearer token the
// API accepts (else 401 with a WWW-Authenticate challenge); the session is
// stateless, so any replica can answer any request, and each request is
// checked again (a revoked token stops working at once). A request whose
// client has gone ends the work it started, and a batch is refused where
// the protocol version has none and capped where it has them.
func (s *Server) Handler() http.Handler {
	srv := s.sdkServer(&handlers{})
	var h http.Handler = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: maxBodyBytes,
			// hostGuard below does what this does, with the hosts the
			// configuration allows.
			DisableLocalhostProtection: true})
	h = withClient(checkBatch(h))
	h = auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)
	return s.hostGuard(challenge(h))
}

// hostGuard refuses, on a loopback listener, a request whose Host is not
// a loopback name or one of the allowed hosts: a web page the browser
// fetched from elsewhere could otherwise reach a local server through DNS
// rebinding. A reverse proxy that keeps the public Host header has that
// host allowed (mcp_allowed_hosts, or the host of public_url).
func (s *Server) hostGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local != nil && isLoopback(local.String()) && !isLoopback(r.Host) && !s.allowedHost(r.Host) {
			http.Error(w, fmt.Sprintf("Forbidden: the Host %q is not a local name, and mcp_allowed_hosts does not allow it "+
				"(set FEEDPOLLER_MCP_ALLOWED_HOSTS when a reverse proxy forwards this host)", r.Host), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) allowedHost(hostport string) bool {
	host := hostOnly(hostport)
	for _, a := range s.allowedHosts {
		if strings.EqualFold(hostOnly(a), host) {
			return true
		}
	}
	return false
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.Trim(h, "[]")
	}
	return strings.Trim(hostport, "[]")
}

// isLoopback: localhost or a loopback address, with or without a port.
func isLoopback(hostport string) bool {
	host := hostOnly(hostport)
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// challenge adds the WWW-Authenticate header RFC 6750 asks of a 401: a
// client learns that a bearer token is wanted, and whether the one it
// sent was refused. feedpoller issues its tokens itself (`feedpoller
// tokens create`), so it names no authorization server.
func challenge(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent := strings.TrimSpace(r.Header.Get("Authorization")) != ""
		next.ServeHTTP(&challengeWriter{ResponseWriter: w, sent: sent}, r)
	})
}

type challengeWriter struct {
	http.ResponseWriter
	sent bool
}

func (c *challengeWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized && c.Header().Get("WWW-Authenticate") == "" {
		v := `Bearer realm="feedpoller"`
		if c.sent {
			v += `, error="invalid_token", error_description="the bearer token is unknown or revoked"`
		}
		c.Header().Set("WWW-Authenticate", v)
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *challengeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// checkBatch reads the body (at most maxBodyBytes) and refuses a JSON-RPC
// batch unless the request speaks protocol version 2025-03-26, the only
// one with batches, and one of more than MaxBatch messages.
func checkBatch(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "failed to read the request body", http.StatusBadRequest)
			return
		}
		if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '[' {
			version := r.Header.Get("Mcp-Protocol-Version")
			if version == "" {
				version = batchVersion
			}
			var msgs []json.RawMessage
			switch {
			case version != batchVersion:
				refuse(w, fmt.Sprintf("JSON-RPC batches are part of MCP %s only; this request speaks %s: send one message per request",
					batchVersion, version))
				return
			case json.Unmarshal(trimmed, &msgs) == nil && len(msgs) > MaxBatch:
				refuse(w, fmt.Sprintf("a batch holds at most %d messages; this one has %d", MaxBatch, len(msgs)))
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// refuse answers 400 with a JSON-RPC error (Invalid Request, id null).
func refuse(w http.ResponseWriter, msg string) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": jsonrpc.CodeInvalidRequest, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(body)
}

// clientKey holds, in a request handler's context, the context of the
// HTTP request that carried it. The SDK runs handlers on a context of
// their own that the request's end does not cancel (a client that left
// had 60 calls of a batch run for 150 s); stopWhenClientGone ties them
// back to it.
type clientKey struct{}

func withClient(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientKey{}, r.Context())))
	})
}

// errClientGone answers a request whose client has left (nobody reads
// it).
var errClientGone = errors.New("the client has gone: the request was not run")

// stopWhenClientGone ends a handler's work when the HTTP request that
// carried it ends (its client disconnected), and does not start the work
// of a request whose client is already gone, such as the rest of a batch.
func stopWhenClientGone(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		client, ok := ctx.Value(clientKey{}).(context.Context)
		if !ok {
			return next(ctx, method, req)
		}
		if client.Err() != nil {
			return nil, errClientGone
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(client, cancel)
		defer stop()
		return next(ctx, method, req)
	}
}

// initializeOnce gives a refused initialize (a second one on a session)
// the JSON-RPC code of an invalid request: the SDK answers it with a
// plain error, which goes out with code 0, no code JSON-RPC defines.
func initializeOnce(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		var wire *jsonrpc.Error
		if method == "initialize" && err != nil && !errors.As(err, &wire) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
				Message: err.Error() + ": a session is initialized once, by its first request"}
		}
		return res, err
	}
}
