// Package websubtest is a local WebSub hub for tests, following the W3C
// Recommendation: subscription requests answered 202 and verified
// asynchronously at the callback (a GET with hub.challenge and
// hub.lease_seconds, the challenge checked in the answer), content
// distribution signed with X-Hub-Signature, and the ways a hub misbehaves:
// denial, never verifying, answering 4xx/5xx, unsigned or wrongly signed
// deliveries.
package websubtest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1" //nolint:gosec // hubs sign with sha1 too
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// Behaviour is how the hub answers subscription requests.
type Behaviour struct {
	// Status, when not 0, answers every request with it and does nothing.
	Status int
	// Deny sends hub.mode=denied instead of verifying subscriptions.
	Deny bool
	// NeverVerify accepts requests (202) and never verifies them.
	NeverVerify bool
	// LeaseSeconds is the lease granted (0: the one asked for).
	LeaseSeconds int
	// MaxLeaseSeconds, when not 0, is the longest lease the hub grants: a
	// request asking for more is refused with 400 (quoting the request,
	// as some hubs do), one asking for none is granted the maximum.
	MaxLeaseSeconds int
}

// Request is a subscription request the hub received, and what came of
// its verification.
type Request struct {
	Mode, Topic, Callback, Secret string
	LeaseAsked                    int
	// Status is what the hub answered the request with.
	Status int
	// Verified: the callback echoed the challenge; Answer is the
	// callback's status.
	Verified bool
	Answer   int
}

// Subscription is an active subscription.
type Subscription struct {
	Topic, Callback, Secret string
	Lease                   int
}

// Hub is a running local hub.
type Hub struct {
	*httptest.Server
	mu        sync.Mutex
	behaviour Behaviour
	requests  []Request
	subs      map[string]Subscription // by callback
	client    *http.Client
}

// New starts a hub; it stops when the test ends.
func New(t interface{ Cleanup(func()) }, b Behaviour) *Hub {
	h := &Hub{behaviour: b, subs: map[string]Subscription{}, client: &http.Client{Timeout: 30 * time.Second}}
	h.Server = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.Close)
	return h
}

// SetBehaviour changes how later requests are answered.
func (h *Hub) SetBehaviour(b Behaviour) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.behaviour = b
}

func (h *Hub) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "subscription requests are POSTs", http.StatusMethodNotAllowed)
		return
	}
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Mode: r.PostForm.Get("hub.mode"), Topic: r.PostForm.Get("hub.topic"),
		Callback: r.PostForm.Get("hub.callback"), Secret: r.PostForm.Get("hub.secret")}
	req.LeaseAsked, _ = strconv.Atoi(r.PostForm.Get("hub.lease_seconds"))
	h.mu.Lock()
	b := h.behaviour
	h.mu.Unlock()
	switch {
	case b.Status != 0:
		req.Status = b.Status
		h.record(req)
		http.Error(w, "hub says no", b.Status)
		return
	case req.Mode != "subscribe" && req.Mode != "unsubscribe", req.Topic == "", req.Callback == "", len(req.Secret) >= 200:
		http.Error(w, "bad subscription request", http.StatusBadRequest)
		return
	case b.MaxLeaseSeconds != 0 && req.Mode == "subscribe" && req.LeaseAsked > b.MaxLeaseSeconds:
		req.Status = http.StatusBadRequest
		h.record(req)
		http.Error(w, fmt.Sprintf("hub.lease_seconds %d for %s exceeds the maximum of %d", req.LeaseAsked, req.Callback,
			b.MaxLeaseSeconds), http.StatusBadRequest)
		return
	}
	if b.MaxLeaseSeconds != 0 && req.LeaseAsked == 0 && b.LeaseSeconds == 0 {
		b.LeaseSeconds = b.MaxLeaseSeconds
	}
	// Recorded before the answer, so a subscriber that got its 202 finds
	// its request here; the verification fills in its outcome later.
	req.Status = http.StatusAccepted
	h.mu.Lock()
	at := len(h.requests)
	h.requests = append(h.requests, req)
	h.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
	go h.verify(at, req, b)
}

// verify is the hub's verification of intent (or denial), after the 202.
// at is the request's place in Requests.
func (h *Hub) verify(at int, req Request, b Behaviour) {
	if b.NeverVerify {
		return
	}
	q := url.Values{"hub.topic": {req.Topic}}
	challenge := randomHex(16)
	lease := req.LeaseAsked
	if b.LeaseSeconds != 0 {
		lease = b.LeaseSeconds
	}
	if b.Deny && req.Mode == "subscribe" {
		q.Set("hub.mode", "denied")
		q.Set("hub.reason", "not on this hub")
	} else {
		q.Set("hub.mode", req.Mode)
		q.Set("hub.challenge", challenge)
		if req.Mode == "subscribe" {
			q.Set("hub.lease_seconds", strconv.Itoa(lease))
		}
	}
	u, err := url.Parse(req.Callback)
	if err != nil {
		return
	}
	u.RawQuery = q.Encode()
	resp, err := h.client.Get(u.String())
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		req.Answer = resp.StatusCode
		req.Verified = !b.Deny && resp.StatusCode/100 == 2 && string(body) == challenge
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests[at] = req
	if !req.Verified {
		return
	}
	if req.Mode == "subscribe" {
		h.subs[req.Callback] = Subscription{Topic: req.Topic, Callback: req.Callback, Secret: req.Secret, Lease: lease}
	} else {
		delete(h.subs, req.Callback)
	}
}

func (h *Hub) record(req Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.requests = append(h.requests, req)
}

// Requests are the requests received so far (verified or not).
func (h *Hub) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Request(nil), h.requests...)
}

// Subscriptions are the verified, active subscriptions.
func (h *Hub) Subscriptions() []Subscription {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Subscription
	for _, s := range h.subs {
		out = append(out, s)
	}
	return out
}

// Publish distributes body to every subscriber of topic, signed with
// sha256, and returns the callbacks' statuses.
func (h *Hub) Publish(ctx context.Context, topic, contentType string, body []byte) ([]int, error) {
	var codes []int
	for _, s := range h.Subscriptions() {
		if s.Topic != topic {
			continue
		}
		code, err := h.Deliver(ctx, s.Callback, contentType, body, Sign("sha256", s.Secret, body))
		if err != nil {
			return codes, err
		}
		codes = append(codes, code)
	}
	return codes, nil
}

// Deliver posts body to callback with the given X-Hub-Signature ("": none),
// the content distribution of the Recommendation with any signature.
func (h *Hub) Deliver(ctx context.Context, callback, contentType string, body []byte, signature string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, callback, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", contentType)
	if signature != "" {
		req.Header.Set("X-Hub-Signature", signature)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("deliver to %s: %w", callback, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// Sign is the X-Hub-Signature of body with secret by method: sha1,
// sha256, sha384 or sha512.
func Sign(method, secret string, body []byte) string {
	hashes := map[string]func() hash.Hash{"sha1": sha1.New, "sha256": sha256.New, "sha384": sha512.New384, "sha512": sha512.New}
	mac := hmac.New(hashes[method], []byte(secret))
	mac.Write(body)
	return method + "=" + hex.EncodeToString(mac.Sum(nil))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
