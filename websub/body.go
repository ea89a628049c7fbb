package websub

import (
	"errors"
	"io"
	"sync"
)

// bodyBudget bounds the bytes of delivery bodies held before their
// signature is checked, across all deliveries at once. Anyone who knows
// (or guesses at) a callback can send a body of up to MaxBodyBytes, and
// thirty of them at once would otherwise hold thirty bodies; with the
// budget, memory stays bounded whatever arrives, and a delivery that finds
// it spent is answered 503, which a hub retries.
type bodyBudget struct {
	mu    sync.Mutex
	held  int64
	limit int64
}

// take reserves n bytes, or reports that they are not to be had.
func (b *bodyBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held+n > b.limit {
		return false
	}
	b.held += n
	return true
}

// give returns n bytes taken before.
func (b *bodyBudget) give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= n
}

// errBudget: the delivery's body does not fit in what is left of the
// budget now.
var errBudget = errors.New("too many unverified deliveries at once")

// errTooLarge: the body is longer than the limit of one delivery.
var errTooLarge = errors.New("delivery larger than the limit")

// firstChunk is the buffer a body of unknown length starts with.
const firstChunk = 64 << 10

// readBody reads a delivery body of at most limit bytes (declared is its
// Content-Length, -1 when unknown) with every byte of buffer taken from
// the budget before it is allocated. release gives back what the body
// holds; it must be called once the body is no longer needed, whatever
// the error.
func (b *bodyBudget) readBody(r io.Reader, declared, limit int64) (body []byte, release func(), err error) {
	var taken int64
	release = func() { b.give(taken); taken = 0 }
	if declared > limit {
		return nil, release, errTooLarge
	}
	size := declared
	if size < 0 {
		size = min(firstChunk, limit)
	}
	// One byte more than declared (or than the limit) shows a body that
	// is longer than it said.
	grow := func(n int64) bool {
		if !b.take(n - taken) {
			return false
		}
		taken = n
		return true
	}
	if !grow(size + 1) {
		return nil, release, errBudget
	}
	buf := make([]byte, 0, size+1)
	for {
		n, rerr := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, release, errTooLarge
		}
		if rerr == io.EOF {
			return buf, release, nil
		}
		if rerr != nil {
			return nil, release, rerr
		}
		if len(buf) < cap(buf) {
			continue
		}
		next := min(2*int64(cap(buf)), limit+1)
		if !grow(int64(cap(buf)) + next) { // the old buffer is held until copied
			return nil, release, errBudget
		}
		bigger := make([]byte, len(buf), next)
		copy(bigger, buf)
		buf = bigger
		b.give(taken - next)
		taken = next
	}
}
