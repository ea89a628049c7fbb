package fetch

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/feedpoller/feedpoller/sources"
)

// TestRefusesIPv4EmbeddedInIPv6: an internal IPv4 address written inside
// an IPv6 form is refused by the policy itself, as a literal and behind a
// name, before any dial.
func TestRefusesIPv4EmbeddedInIPv6(t *testing.T) {
	srv, hits := countingServer(t, nil)
	_, port, _ := strings.Cut(srv.Listener.Addr().String(), ":")
	cases := []struct{ host, reason string }{
		{"::127.0.0.1", "loopback via IPv4-compatible IPv6"},
		{"::ffff:0:127.0.0.1", "loopback via IPv4-translated IPv6"},
		{"::a9fe:a9fe", "link-local via IPv4-compatible IPv6"},
		{"::ffff:0:a00:1", "private via IPv4-translated IPv6"},
		{"64:ff9b::a9fe:a9fe", "link-local via NAT64"},
		{"2002:a00:1::1", "private via 6to4"},
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback via Teredo"},
		{"fec0::1", "site-local"},
	}
	names := map[string][]string{}
	for i, tc := range cases {
		names["v6-"+string(rune('a'+i))+".example"] = []string{tc.host}
	}
	c := New(ssrfOptions(newMapResolver(names)))
	for i, tc := range cases {
		literal := "http://[" + tc.host + "]:" + port + "/"
		name := "v6-" + string(rune('a'+i)) + ".example"
		for url, shown := range map[string]string{literal: "[" + tc.host + "]", "http://" + name + ":" + port + "/": name} {
			_, err := c.Get(context.Background(), Request{URL: url})
			fe := asFetchError(t, err)
			want := "host " + shown + " is not allowed (" + tc.reason + "); " + allowHint
			if fe.Kind != sources.KindRefused || fe.Msg != want {
				t.Errorf("%s: kind %v msg %q, want refused %q", url, fe.Kind, fe.Msg, want)
			}
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the server was reached %d times", hits.Load())
	}
}

// TestRefusalNamesHostNotAddress: the error of a refused name (which API
// callers see) names the host and the settings that allow it, never the
// internal address the name resolves to; the log keeps the address for
// the operator.
func TestRefusalNamesHostNotAddress(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	opts := ssrfOptions(newMapResolver(map[string][]string{"intranet.example.com": {"10.1.2.3"}}))
	opts.Logger = slog.New(slog.NewTextHandler(&lockedBuffer{b: &logs, mu: &mu}, nil))
	c := New(opts)
	_, err := c.Get(context.Background(), Request{URL: "http://intranet.example.com/wiki"})
	want := "host intranet.example.com is not allowed (private); set FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS=true or add the host to FEEDPOLLER_FETCH_ALLOW to allow it"
	if err == nil || err.Error() != want {
		t.Fatalf("err %v, want %q", err, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "addr=10.1.2.3") || !strings.Contains(logs.String(), "host=intranet.example.com") {
		t.Errorf("the log does not keep the refused address for the operator: %s", logs.String())
	}
}

type lockedBuffer struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// TestCheckURL is the policy as services that fetch for us get it: the
// same decisions and words as the native fetcher, without a request.
func TestCheckURL(t *testing.T) {
	res := newMapResolver(map[string][]string{
		"public.example":   {"93.184.215.14"},
		"intranet.example": {"10.1.2.3"},
		"feeds.internal":   {"10.9.9.9"},
	})
	p, err := NewPolicy(Options{Resolver: res, Allow: []string{"feeds.internal", "192.168.7.0/24"},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		url  string
		kind sources.ErrorKind // meaningful only when msg is set
		msg  string            // "" = allowed
	}{
		{url: "https://public.example/a"},
		{url: "http://feeds.internal:8080/feed"},
		{url: "http://192.168.7.9/"},
		{url: "http://[2606:4700::1111]/"},
		{url: "http://intranet.example/", kind: sources.KindRefused, msg: refusal("host intranet.example is not allowed (private)")},
		{url: "http://169.254.169.254/latest/meta-data/", kind: sources.KindRefused, msg: refusal("host 169.254.169.254 is not allowed (link-local)")},
		{url: "http://[::127.0.0.1]/", kind: sources.KindRefused, msg: refusal("host [::127.0.0.1] is not allowed (loopback via IPv4-compatible IPv6)")},
		{url: "http://nowhere.example/", kind: sources.KindPermanent, msg: "host not found: nowhere.example"},
		{url: "file:///etc/passwd", kind: sources.KindPermanent, msg: `unsupported URL scheme "file" (only http and https)`},
		{url: "http://user:pw@public.example/", kind: sources.KindPermanent, msg: "URL with credentials is not allowed"},
	}
	for _, tc := range cases {
		err := p.CheckURL(context.Background(), tc.url)
		if tc.msg == "" {
			if err != nil {
				t.Errorf("%s: %v, want allowed", tc.url, err)
			}
			continue
		}
		fe := asFetchError(t, err)
		if fe.Kind != tc.kind || fe.Msg != tc.msg {
			t.Errorf("%s: kind %v msg %q, want %v %q", tc.url, fe.Kind, fe.Msg, tc.kind, tc.msg)
		}
	}
	if n := res.count("feeds.internal"); n != 0 {
		t.Errorf("a host allowed by name was resolved %d times; its addresses do not matter", n)
	}
}

// TestCheckURLDNSFailureIsTransient: a lookup that fails for a reason
// other than "no such host" may work at the next poll.
func TestCheckURLDNSFailureIsTransient(t *testing.T) {
	p, _ := NewPolicy(Options{Resolver: failingResolver{}, Logger: slog.New(slog.DiscardHandler)})
	fe := asFetchError(t, p.CheckURL(context.Background(), "https://flaky.example/"))
	if fe.Kind != sources.KindTransient || fe.Msg != "DNS lookup failed for flaky.example" {
		t.Fatalf("kind %v msg %q", fe.Kind, fe.Msg)
	}
}

type failingResolver struct{}

func (failingResolver) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	return nil, &net.DNSError{Err: "server misbehaving", Name: host, IsTemporary: true}
}

// TestPrivateNetworksAllowedSkipsLookups: with private networks open
// there is nothing to decide, so nothing is resolved.
func TestPrivateNetworksAllowedSkipsLookups(t *testing.T) {
	res := newMapResolver(nil)
	p, _ := NewPolicy(Options{AllowPrivateNetworks: true, Resolver: res})
	if err := p.CheckURL(context.Background(), "http://anything.example/"); err != nil {
		t.Fatal(err)
	}
	if res.count("anything.example") != 0 {
		t.Error("resolved a name the policy does not need to judge")
	}
	if p.CheckURL(context.Background(), "gopher://x.example/") == nil {
		t.Error("a non-http URL passed")
	}
}
