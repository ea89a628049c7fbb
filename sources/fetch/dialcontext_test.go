package fetch

import (
	"context"
	"log/slog"
	"net"
	"testing"
)

// Policy.DialContext connects only where the policy allows, and its
// refusal is told apart from a network failure.
func TestPolicyDialContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			c.Close()
		}
	}()
	quiet := slog.New(slog.DiscardHandler)
	closed, _ := NewPolicy(Options{Logger: quiet})
	if _, err := closed.DialContext(context.Background(), "tcp", ln.Addr().String()); !IsRefused(err) {
		t.Fatalf("dial loopback under the default policy: %v, want a refusal", err)
	}
	select {
	case <-accepted:
		t.Fatal("the refused dial reached the listener")
	default:
	}
	open, _ := NewPolicy(Options{Allow: []string{"127.0.0.1"}, Logger: quiet})
	conn, err := open.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("dial an allowed address: %v", err)
	}
	conn.Close()
	<-accepted
	if _, err := open.DialContext(context.Background(), "tcp", "127.0.0.1:1"); err == nil || IsRefused(err) {
		t.Errorf("a closed port: %v, want a network error that is not a refusal", err)
	}
}
