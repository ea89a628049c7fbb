package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/sources"
)

func TestForbiddenReason(t *testing.T) {
	cases := []struct{ ip, want string }{
		{"127.0.0.1", "loopback"},
		{"127.9.9.9", "loopback"},
		{"::1", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"192.168.1.1", "private"},
		{"169.254.169.254", "link-local"},
		{"169.254.1.1", "link-local"},
		{"fe80::1", "link-local"},
		{"100.64.0.1", "carrier-grade NAT"},
		{"100.127.255.254", "carrier-grade NAT"},
		{"fc00::1", "unique-local"},
		{"fd12:3456::1", "unique-local"},
		{"fd00:ec2::254", "cloud metadata"},
		{"::ffff:127.0.0.1", "loopback"},
		{"::ffff:169.254.169.254", "link-local"},
		{"::ffff:10.0.0.1", "private"},
		{"224.0.0.1", "link-local"},
		{"239.1.2.3", "multicast"},
		{"ff02::1", "link-local"},
		{"ff05::1", "multicast"},
		{"0.0.0.0", "unspecified"},
		{"0.1.2.3", "unspecified"},
		{"::", "unspecified"},
		{"255.255.255.255", "reserved"},
		{"198.18.0.1", "reserved"},
		{"64:ff9b::7f00:1", "loopback via NAT64"},
		{"2002:a9fe:a9fe::1", "link-local via 6to4"},
		// IPv4 addresses inside IPv6 forms are judged as themselves.
		{"::127.0.0.1", "loopback via IPv4-compatible IPv6"},
		{"::10.0.0.1", "private via IPv4-compatible IPv6"},
		{"::169.254.169.254", "link-local via IPv4-compatible IPv6"},
		{"::8.8.8.8", "IPv4-compatible IPv6"},
		{"::ffff:0:127.0.0.1", "loopback via IPv4-translated IPv6"},
		{"::ffff:0:169.254.169.254", "link-local via IPv4-translated IPv6"},
		{"::ffff:0:8.8.8.8", "IPv4-translated IPv6"},
		{"64:ff9b::a9fe:a9fe", "link-local via NAT64"},
		{"64:ff9b::c0a8:101", "private via NAT64"},
		{"2002:7f00:1::", "loopback via 6to4"},
		{"2002:c0a8:101:1::1", "private via 6to4"},
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback via Teredo"}, // client ^80ff:fffe = 127.0.0.1
		{"2001:0:4136:e378:8000:63bf:f5ff:fffe", "private via Teredo"},  // client 10.0.0.1
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", ""},                    // client 192.0.2.45: public
		{"fec0::1", "site-local"},
		// Public addresses pass.
		{"93.184.216.34", ""},
		{"8.8.8.8", ""},
		{"172.32.0.1", ""},
		{"100.128.0.1", ""},
		{"2606:4700::1111", ""},
		{"::ffff:8.8.8.8", ""},
		{"64:ff9b::808:808", ""},
		{"2002:808:808::1", ""},
		{"2001:db8::1", ""},
	}
	for _, tc := range cases {
		if got := forbiddenReason(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("forbiddenReason(%s) = %q, want %q", tc.ip, got, tc.want)
		}
	}
}

func TestAllowListOpensHostsAndCIDRs(t *testing.T) {
	p, err := newAddrRules(false, []string{"feeds.internal", "10.20.0.0/16", "192.168.5.5", "bad/cidr", "wiki.internal:8080"})
	if err == nil {
		t.Error("a malformed CIDR must be reported")
	}
	cases := []struct {
		host string
		ip   string
		ok   bool
	}{
		{"feeds.internal", "127.0.0.1", true},
		{"FEEDS.internal.", "10.0.0.1", true},
		{"other.internal", "10.20.3.4", true},
		{"other.internal", "10.21.3.4", false},
		{"other.internal", "192.168.5.5", true},
		{"other.internal", "192.168.5.6", false},
		{"other.internal", "169.254.169.254", false},
		{"wiki.internal", "10.9.9.9", true},
	}
	for _, tc := range cases {
		reason := p.reason(netip.MustParseAddr(tc.ip), p.hostAllowed(tc.host))
		if (reason == "") != tc.ok {
			t.Errorf("%s → %s: reason %q, want allowed=%v", tc.host, tc.ip, reason, tc.ok)
		}
	}
}

// refusal is the full message of a refused host: what is refused, and the
// settings that would allow it.
func refusal(msg string) string {
	if strings.Contains(msg, " is not allowed (") {
		return msg + "; " + allowHint
	}
	return msg
}

// ssrfOptions closes private networks, maps names through res, and keeps
// a refused dial from ever waiting on a real network.
func ssrfOptions(res Resolver, allow ...string) Options {
	opts := testOptions()
	opts.AllowPrivateNetworks = false
	opts.Allow = allow
	opts.Resolver = res
	opts.ConnectTimeout = 300 * time.Millisecond
	opts.Attempts = 1
	return opts
}

// countingServer counts requests per path.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if h != nil {
			h(w, r)
			return
		}
		_, _ = w.Write([]byte("secret"))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestRefusesInternalAddresses(t *testing.T) {
	srv, hits := countingServer(t, nil)
	_, port, _ := strings.Cut(srv.Listener.Addr().String(), ":")
	res := newMapResolver(map[string][]string{
		"evil.example":     {"127.0.0.1"},
		"metadata.example": {"169.254.169.254"},
		"v6meta.example":   {"fd00:ec2::254"},
		"mapped.example":   {"::ffff:127.0.0.1"},
	})
	cases := []struct {
		url, wantMsg string
	}{
		{"http://evil.example:" + port + "/", "host evil.example is not allowed (loopback)"},
		{"http://metadata.example/latest/meta-data/", "host metadata.example is not allowed (link-local)"},
		{"http://v6meta.example/", "host v6meta.example is not allowed (cloud metadata)"},
		{"http://mapped.example:" + port + "/", "host mapped.example is not allowed (loopback)"},
		{"http://127.0.0.1:" + port + "/", "host 127.0.0.1 is not allowed (loopback)"},
		{"http://[::ffff:127.0.0.1]:" + port + "/", "host [::ffff:127.0.0.1] is not allowed (loopback)"},
		{"http://169.254.169.254/", "host 169.254.169.254 is not allowed (link-local)"},
		{"http://10.0.0.1/", "host 10.0.0.1 is not allowed (private)"},
		{"http://100.64.1.1/", "host 100.64.1.1 is not allowed (carrier-grade NAT)"},
		{"http://[fc00::1]/", "host [fc00::1] is not allowed (unique-local)"},
		{"http://0.0.0.0:" + port + "/", "host 0.0.0.0 is not allowed (unspecified)"},
		{"http://239.1.2.3/", "host 239.1.2.3 is not allowed (multicast)"},
	}
	c := New(ssrfOptions(res))
	for _, tc := range cases {
		_, err := c.Get(context.Background(), Request{URL: tc.url})
		fe := asFetchError(t, err)
		if want := refusal(tc.wantMsg); fe.Kind != sources.KindRefused || fe.Msg != want {
			t.Errorf("%s: kind %v msg %q, want refused %q", tc.url, fe.Kind, fe.Msg, want)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the internal server was reached %d times", hits.Load())
	}
}

func TestRefusesBadURLs(t *testing.T) {
	c := New(testOptions())
	for _, raw := range []string{
		"ftp://example.com/feed",
		"file:///etc/passwd",
		"gopher://example.com/",
		"http://user:pass@example.com/",
		"https://token@example.com/",
		"http:///nohost",
		"/relative/path",
		"http://exa mple.com/",
	} {
		_, err := c.Get(context.Background(), Request{URL: raw})
		if fe := asFetchError(t, err); fe.Kind != sources.KindPermanent {
			t.Errorf("%s: kind %v (%v), want permanent", raw, fe.Kind, err)
		}
	}
}

func TestAllowedHostReachesPrivateAddress(t *testing.T) {
	srv, hits := countingServer(t, nil)
	_, port, _ := strings.Cut(srv.Listener.Addr().String(), ":")
	res := newMapResolver(map[string][]string{"feeds.internal": {"127.0.0.1"}, "other.internal": {"127.0.0.1"}})
	c := New(ssrfOptions(res, "feeds.internal"))

	if _, err := c.Get(context.Background(), Request{URL: "http://feeds.internal:" + port + "/"}); err != nil {
		t.Fatalf("allowed host: %v", err)
	}
	if _, err := c.Get(context.Background(), Request{URL: "http://other.internal:" + port + "/"}); err == nil {
		t.Fatal("a host not on the allow list reached loopback")
	}
	if hits.Load() != 1 {
		t.Errorf("server hits = %d, want 1", hits.Load())
	}
}

func TestRedirectToInternalAddressRefused(t *testing.T) {
	internal, internalHits := countingServer(t, nil)
	internalURL, _ := url.Parse(internal.URL)
	_, internalPort, _ := strings.Cut(internalURL.Host, ":")

	targets := []struct{ location, wantMsg string }{
		{"http://169.254.169.254/latest/meta-data/", "host 169.254.169.254 is not allowed (link-local)"},
		{"http://localhost:" + internalPort + "/", "host localhost is not allowed (loopback)"},
		{"http://127.0.0.1:" + internalPort + "/", "host 127.0.0.1 is not allowed (loopback)"},
		{"http://[::1]:" + internalPort + "/", "host [::1] is not allowed (loopback)"},
		{"file:///etc/passwd", `redirect to unsupported URL scheme "file" (only http and https)`},
	}
	for _, tc := range targets {
		t.Run(tc.location, func(t *testing.T) {
			front, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, tc.location, http.StatusFound)
			})
			_, frontPort, _ := strings.Cut(front.Listener.Addr().String(), ":")
			res := newMapResolver(map[string][]string{
				"public.example": {"127.0.0.1"},
				"localhost":      {"127.0.0.1"},
			})
			// public.example stands in for a public site: it is allowed by
			// name, everything it redirects to is judged on its own.
			c := New(ssrfOptions(res, "public.example"))
			_, err := c.Get(context.Background(), Request{URL: "http://public.example:" + frontPort + "/feed"})
			fe := asFetchError(t, err)
			// A redirect to a host the policy refuses is the source's doing,
			// a failure of the source, not a matter of configuration.
			if want := refusal(tc.wantMsg); fe.Kind != sources.KindPermanent || fe.Msg != want {
				t.Errorf("kind %v msg %q, want permanent %q", fe.Kind, fe.Msg, want)
			}
		})
	}
	if internalHits.Load() != 0 {
		t.Errorf("redirects reached the internal server %d times", internalHits.Load())
	}
}

// TestDNSRebindingRefusedAtDial: the name first resolves to an allowed
// address (standing in for a public one), then rebinds to an internal one.
// A check made once on the name would pass; the dial-time check must not.
func TestDNSRebindingRefusedAtDial(t *testing.T) {
	var nextHits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) {
		// Close the connection so the redirect needs a fresh dial (and a
		// fresh lookup) to the same host.
		w.Header().Set("Connection", "close")
		http.Redirect(w, r, "/next", http.StatusFound)
	})
	mux.HandleFunc("/next", func(w http.ResponseWriter, r *http.Request) {
		nextHits.Add(1)
		_, _ = w.Write([]byte("internal data"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	_, port, _ := strings.Cut(srv.Listener.Addr().String(), ":")

	res := newMapResolver(map[string][]string{"rebind.example": {"127.0.0.1", "127.0.0.2"}})
	c := New(ssrfOptions(res, "127.0.0.1/32"))
	_, err := c.Get(context.Background(), Request{URL: "http://rebind.example:" + port + "/start"})
	fe := asFetchError(t, err)
	if fe.Msg != "host rebind.example is not allowed (loopback); "+allowHint {
		t.Errorf("msg %q, want the rebound address refused", fe.Msg)
	}
	if n := res.count("rebind.example"); n != 2 {
		t.Errorf("resolver asked %d times, want once per dial (2)", n)
	}
	if nextHits.Load() != 0 {
		t.Error("the rebound request reached the server")
	}
}

func TestMixedAnswerRefused(t *testing.T) {
	srv, hits := countingServer(t, nil)
	_, port, _ := strings.Cut(srv.Listener.Addr().String(), ":")
	res := &multiResolver{ips: []string{"127.0.0.1", "10.0.0.7"}}
	c := New(ssrfOptions(res, "127.0.0.1/32"))
	_, err := c.Get(context.Background(), Request{URL: "http://mixed.example:" + port + "/"})
	if fe := asFetchError(t, err); fe.Msg != "host mixed.example is not allowed (private); "+allowHint || hits.Load() != 0 {
		t.Errorf("msg %q hits %d: one internal answer must refuse the name", fe.Msg, hits.Load())
	}
}
