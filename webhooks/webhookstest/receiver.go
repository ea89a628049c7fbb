package webhookstest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/webhooks"
)

// Receiver is a webhook receiver on loopback: it verifies every request's
// signatures with its secret (X-Feedpoller-Signature, and the Standard
// Webhooks headers by VerifyStandard) and counts the requests of each delivery id,
// answering FailStatus to the first FailFirst requests of each id.
type Receiver struct {
	*httptest.Server
	secret string

	mu            sync.Mutex
	failFirst     int
	failStatus    int
	retryAfter    string
	counts        map[string]int
	payloads      map[string]webhooks.Payload
	badSignatures int
	requests      int
	lastHeader    http.Header
	hold          chan struct{}  // non-nil while Hold is on
	held          map[string]int // requests of each id waiting in Hold
}

// NewReceiver starts a Receiver that accepts every delivery signed with
// secret (answering 204); it is closed when the test ends.
func NewReceiver(t testing.TB, secret string) *Receiver {
	r := &Receiver{secret: secret, counts: map[string]int{}, payloads: map[string]webhooks.Payload{}, held: map[string]int{}}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

// Fail makes the receiver answer status (with Retry-After when
// retryAfter is not empty) to the first n requests of each delivery id.
func (r *Receiver) Fail(n, status int, retryAfter string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failFirst, r.failStatus, r.retryAfter = n, status, retryAfter
}

// Hold makes the receiver keep every correctly signed request waiting,
// counted but unanswered, until Release or until the sender goes away:
// the sender's attempt is then in flight, as when a receiver processed a
// delivery but its answer never arrived.
func (r *Receiver) Hold() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hold == nil {
		r.hold = make(chan struct{})
	}
}

// Release answers the requests Hold kept waiting and stops holding.
func (r *Receiver) Release() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hold != nil {
		close(r.hold)
		r.hold = nil
	}
}

// Held are the delivery ids of the requests waiting in Hold now, sorted.
func (r *Receiver) Held() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var ids []string
	for id, n := range r.held {
		if n > 0 {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if hold, id := r.record(w, req, body); hold != nil {
		select {
		case <-hold:
		case <-req.Context().Done():
		}
		r.mu.Lock()
		r.held[id]--
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}
}

// record checks and counts a request and answers it, unless Hold is on:
// then it returns the channel to wait on instead, with the delivery id.
func (r *Receiver) record(w http.ResponseWriter, req *http.Request, body []byte) (chan struct{}, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.requests++
	r.lastHeader = req.Header.Clone()
	if !webhooks.Verify(r.secret, body, req.Header.Get(webhooks.HeaderSignature)) ||
		VerifyStandard(StandardSecret(r.secret), req.Header, body, time.Time{}, 0) != nil {
		r.badSignatures++
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return nil, ""
	}
	id := req.Header.Get(webhooks.HeaderDelivery)
	var p webhooks.Payload
	if err := json.Unmarshal(body, &p); err != nil || p.DeliveryID != id {
		http.Error(w, "payload does not match the delivery header", http.StatusBadRequest)
		return nil, ""
	}
	r.counts[id]++
	r.payloads[id] = p
	if r.counts[id] <= r.failFirst {
		if r.retryAfter != "" {
			w.Header().Set("Retry-After", r.retryAfter)
		}
		http.Error(w, "try again later", r.failStatus)
		return nil, ""
	}
	if r.hold != nil {
		r.held[id]++
		return r.hold, id
	}
	w.WriteHeader(http.StatusNoContent)
	return nil, ""
}

// Count is how many correctly signed requests delivery id got.
func (r *Receiver) Count(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[id]
}

// IDs are the delivery ids received, sorted.
func (r *Receiver) IDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, 0, len(r.counts))
	for id := range r.counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Payload is the last payload of delivery id.
func (r *Receiver) Payload(id string) webhooks.Payload {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.payloads[id]
}

// BadSignatures counts requests whose signature did not verify.
func (r *Receiver) BadSignatures() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.badSignatures
}

// Requests counts every request, however it was answered.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// LastHeader is the header of the last request.
func (r *Receiver) LastHeader() http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastHeader.Clone()
}
