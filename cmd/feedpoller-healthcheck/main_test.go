package main

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestReadyURL(t *testing.T) {
	for listen, want := range map[string]string{
		"":               "http://127.0.0.1:8080/readyz",
		"0.0.0.0:8080":   "http://127.0.0.1:8080/readyz",
		":9000":          "http://127.0.0.1:9000/readyz",
		"[::]:8080":      "http://[::1]:8080/readyz",
		"127.0.0.1:8081": "http://127.0.0.1:8081/readyz",
	} {
		if got, err := readyURL(listen); err != nil || got != want {
			t.Errorf("readyURL(%q) = %q, %v; want %q", listen, got, err, want)
		}
	}
	if _, err := readyURL("8080"); err == nil || !strings.Contains(err.Error(), "FEEDPOLLER_LISTEN") {
		t.Errorf("a bad address: %v", err)
	}
}

func TestRun(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		w.Write([]byte(`{"status":"ready"}`))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var out, errOut bytes.Buffer
	if code := run("0.0.0.0:"+port, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	status = http.StatusServiceUnavailable
	if code := run("0.0.0.0:"+port, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "503") {
		t.Errorf("not ready: exit %d, %q", code, errOut.String())
	}
	srv.Close()
	if code := run("127.0.0.1:"+port, &out, &errOut); code != 1 {
		t.Errorf("nothing listening: exit %d", code)
	}
}
