// Command feedpoller-healthcheck tells a container runtime whether the
// feedpoller beside it is ready: it asks /readyz at the address
// FEEDPOLLER_LISTEN names (an unspecified host is asked on loopback) and
// exits 0 on a 200 answer, 1 otherwise. The runtime image has no shell or
// curl, so the image's HEALTHCHECK and deploy/compose.yaml run this.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// timeout bounds the probe; the daemon's own readiness check gives up on
// the database after 5 s.
const timeout = 8 * time.Second

func main() {
	os.Exit(run(os.Getenv("FEEDPOLLER_LISTEN"), os.Stdout, os.Stderr))
}

func run(listen string, stdout, stderr io.Writer) int {
	target, err := readyURL(listen)
	if err != nil {
		fmt.Fprintf(stderr, "feedpoller-healthcheck: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		fmt.Fprintf(stderr, "feedpoller-healthcheck: %v\n", err)
		return 1
	}
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		fmt.Fprintf(stderr, "feedpoller-healthcheck: %v\n", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintf(stderr, "feedpoller-healthcheck: %s answered %s: %s\n", target, resp.Status, body)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", body)
	return 0
}

// readyURL is the /readyz URL of the daemon listening on listen (the
// daemon's default when empty).
func readyURL(listen string) (string, error) {
	if listen == "" {
		listen = "127.0.0.1:8080"
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("FEEDPOLLER_LISTEN=%q is not host:port: %w", listen, err)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/readyz", nil
}
