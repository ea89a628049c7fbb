package websub

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/sources/fetch"
	"github.com/feedpoller/feedpoller/store"
	"github.com/feedpoller/feedpoller/websub/websubtest"
)

func TestCheckSignature(t *testing.T) {
	body := []byte("<rss/>")
	for _, c := range []struct {
		name, header   string
		present, valid bool
	}{
		{"sha1", websubtest.Sign("sha1", "s3cret", body), true, true},
		{"sha256", websubtest.Sign("sha256", "s3cret", body), true, true},
		{"sha384", websubtest.Sign("sha384", "s3cret", body), true, true},
		{"sha512", websubtest.Sign("sha512", "s3cret", body), true, true},
		{"method in capitals", strings.Replace(websubtest.Sign("sha256", "s3cret", body), "sha256", "SHA256", 1), true, true},
		{"other secret", websubtest.Sign("sha256", "other", body), true, false},
		{"unknown method", "md5=00ff", true, false},
		{"not hex", "sha256=zz", true, false},
		{"no method", "abcdef", true, false},
		{"none", "", false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			present, valid := checkSignature(c.header, body, "s3cret")
			if present != c.present || valid != c.valid {
				t.Fatalf("checkSignature(%q) = %v, %v; want %v, %v", c.header, present, valid, c.present, c.valid)
			}
		})
	}
}

// A hub on an internal address is refused by the fetcher's address
// policy unless private networks are allowed; the error names the host
// and how to allow it.
func TestHubOnInternalAddressRefused(t *testing.T) {
	hub := websubtest.New(t, websubtest.Behaviour{NeverVerify: true})
	for _, allow := range []bool{false, true} {
		policy, err := fetch.NewPolicy(fetch.Options{AllowPrivateNetworks: allow})
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(Options{Store: &store.Store{}, Pusher: nopPusher{}, PublicURL: "https://feeds.example.com",
			Client: &http.Client{Transport: &http.Transport{DialContext: policy.DialContext}}, Lease: time.Hour,
			Interval: time.Minute, MaxBodyBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		err = s.post(context.Background(), model.SubscriptionRequest{Mode: "subscribe", HubURL: hub.URL,
			TopicURL: "https://example.com/feed.xml", CallbackToken: "t", Secret: "s"}, true)
		if allow != (err == nil) {
			t.Fatalf("allow private networks %v: %v", allow, err)
		}
		if !allow && !strings.Contains(err.Error(), "is not allowed") {
			t.Fatalf("refusal does not say why: %v", err)
		}
	}
	if n := len(hub.Requests()); n != 1 {
		t.Fatalf("hub got %d requests, want 1 (the allowed one)", n)
	}
}

func TestNewRefusesBadPublicURL(t *testing.T) {
	for _, u := range []string{"", "feeds.example.com", "ftp://x", "https://u:p@x", "https://x/?a=1"} {
		opts := DefaultOptions()
		opts.Store, opts.Pusher, opts.Client, opts.PublicURL = &store.Store{}, nopPusher{}, http.DefaultClient, u
		if _, err := New(opts); err == nil || !strings.Contains(err.Error(), "public URL") {
			t.Errorf("public URL %q: %v", u, err)
		}
	}
}
