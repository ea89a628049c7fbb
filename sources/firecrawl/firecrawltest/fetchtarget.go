package firecrawltest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// maxTargetBody bounds what the fake reads of a fetched page.
const maxTargetBody = 32 << 20

// errOffLoopback refuses a dial that would leave the machine.
var errOffLoopback = errors.New("firecrawltest: target is not routed to loopback")

// targetClient is the fake's own web client: a plain one with no address
// policy, as Firecrawl's fetch engine is, that dials the routed address
// when routes name one. Tests never leave loopback: any other address, and
// any name (no DNS is asked), fails as an unreachable host does.
func targetClient(routes map[string]string) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second}
	return &http.Client{Transport: &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if to, ok := routes[addr]; ok {
				addr = to
			}
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if ip, err := netip.ParseAddr(host); err != nil || !ip.IsLoopback() {
				return nil, errOffLoopback
			}
			return dialer.DialContext(ctx, network, addr)
		},
		DisableKeepAlives: true,
	}}
}

// fetchTarget scrapes a target for real, the way a self-hosted Firecrawl
// answers (the facts the fake is held to):
//   - The page is fetched with redirects followed; metadata.url is where
//     they ended and metadata.statusCode the page's own status, so a 404
//     or a 500 of the target is a 200 success of the API.
//   - A target that cannot be reached (connection refused, unknown host,
//     an address the network will not route) and a 2xx page with nothing
//     in it all answer 500 SCRAPE_ALL_ENGINES_FAILED.
//   - A target slower than timeout+waitFor answers 408 SCRAPE_TIMEOUT.
//
// The page's HTML is returned as the target sent it: the fake does not
// parse HTML, so nothing is cleaned and no metadata is extracted.
func (s *Server) fetchTarget(ctx context.Context, req scrapeRequest) outcome {
	fctx, cancel := context.WithTimeout(ctx, s.scaled(req.timeoutMS+req.waitForMS))
	defer cancel()
	// A closing server releases the fetch as it releases stalled handlers.
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-fctx.Done():
		}
	}()
	hreq, err := http.NewRequestWithContext(fctx, http.MethodGet, req.normalised.String(), nil)
	if err != nil {
		return failure(http.StatusInternalServerError, "SCRAPE_ALL_ENGINES_FAILED", msgAllEnginesFailed)
	}
	hreq.Header.Set("User-Agent", "Mozilla/5.0 (compatible; firecrawltest)")
	resp, err := s.web.Do(hreq)
	if err == nil {
		defer resp.Body.Close()
		var body []byte
		body, err = io.ReadAll(io.LimitReader(resp.Body, maxTargetBody))
		if err == nil {
			return s.fetched(req, resp, body)
		}
	}
	if ctx.Err() == nil && errors.Is(fctx.Err(), context.DeadlineExceeded) {
		return failure(http.StatusRequestTimeout, "SCRAPE_TIMEOUT", msgTimeout)
	}
	return failure(http.StatusInternalServerError, "SCRAPE_ALL_ENGINES_FAILED", msgAllEnginesFailed)
}

// fetched is the API's answer for a page that was fetched.
func (s *Server) fetched(req scrapeRequest, resp *http.Response, body []byte) outcome {
	if resp.StatusCode >= 200 && resp.StatusCode < 300 && len(bytes.TrimSpace(body)) == 0 {
		return failure(http.StatusInternalServerError, "SCRAPE_ALL_ENGINES_FAILED", msgAllEnginesFailed)
	}
	page := Page{HTML: string(body), StatusCode: resp.StatusCode, FinalURL: resp.Request.URL.String()}
	data := successData(req, page)
	return outcome{status: http.StatusOK, body: object{{"success", true}, {"data", data}}, success: data}
}
