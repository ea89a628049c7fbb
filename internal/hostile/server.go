package hostile

import (
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// keepTimes bounds the request times remembered per endpoint.
const keepTimes = 256

// Server is a running hostile server. Create it with New, stop it with Close.
type Server struct {
	srv     *httptest.Server
	closing chan struct{}
	once    sync.Once

	mu        sync.Mutex
	hits      map[string]int64
	times     map[string][]time.Time
	forbidden int64
	flaps     int64

	bombOnce sync.Once
	bomb     []byte // gzip member of the feed head, then the spaces member
	bombHead int    // length of the head member within bomb
}

// New starts a hostile server on 127.0.0.1 with an OS-chosen port.
func New() *Server {
	s := &Server{
		closing: make(chan struct{}),
		hits:    map[string]int64{},
		times:   map[string][]time.Time{},
	}
	s.srv = httptest.NewServer(s.routes())
	return s
}

// URL is the server's base URL, http://127.0.0.1:PORT.
func (s *Server) URL() string { return s.srv.URL }

// Port is the TCP port the server listens on.
func (s *Server) Port() int {
	_, port, _ := strings.Cut(strings.TrimPrefix(s.srv.URL, "http://"), ":")
	n, _ := strconv.Atoi(port)
	return n
}

// EndpointURL is the absolute URL of an endpoint name such as "hang" or
// "healthy/3".
func (s *Server) EndpointURL(name string) string {
	return s.srv.URL + "/" + strings.TrimPrefix(name, "/")
}

// Close releases every request still held open (hang, trickle, huge) and
// shuts the server down. It is safe to call more than once.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.closing)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Hits is how many requests reached an endpoint, by name without the leading
// slash: "hang", "redirect-loop", "healthy" (all healthy feeds together),
// "healthy/3" (one of them), "secret".
func (s *Server) Hits(name string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[strings.TrimPrefix(name, "/")]
}

// AllHits returns a copy of every endpoint's hit count.
func (s *Server) AllHits() map[string]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int64, len(s.hits))
	for k, v := range s.hits {
		out[k] = v
	}
	return out
}

// HitTimes returns when an endpoint was requested, oldest first; only the
// most recent 256 are kept. The chaos suite measures scheduling lag of the
// healthy feeds with it.
func (s *Server) HitTimes(name string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.times[strings.TrimPrefix(name, "/")]
	out := make([]time.Time, len(t))
	copy(out, t)
	return out
}

// Forbidden is how many requests reached /secret, whichever way they came.
// Anything above zero means a client followed a redirect to localhost.
func (s *Server) Forbidden() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forbidden
}

// hit counts a request under each of names.
func (s *Server) hit(names ...string) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range names {
		s.hits[n]++
		t := append(s.times[n], now)
		if len(t) > keepTimes {
			t = t[len(t)-keepTimes:]
		}
		s.times[n] = t
	}
}

// counted wraps h so that every request is counted under name first.
func (s *Server) counted(name string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.hit(name)
		h(w, r)
	}
}

// routes wires every endpoint of Endpoints, and the pages their documents
// link to.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	for _, e := range catalogue {
		mux.HandleFunc("GET "+e.route, s.counted(e.Name, e.handler(s)))
	}
	mux.HandleFunc("GET /redirect-loop/b", s.counted("redirect-loop", s.redirectLoopBack))
	mux.HandleFunc("GET /secret", s.serveSecret)
	mux.HandleFunc("GET /healthy/{n}", s.serveHealthy)
	mux.HandleFunc("GET /healthy/{n}/{k}", s.serveHealthyArticle)
	mux.HandleFunc("GET /a/{k}", s.counted("many-items/article", s.serveManyItemsArticle))
	return mux
}

// Endpoints lists every hostile endpoint with its absolute URL, in a stable
// order, so the chaos suite can register one source per entry.
func (s *Server) Endpoints() []Endpoint {
	out := make([]Endpoint, 0, len(catalogue))
	for _, e := range catalogue {
		e.URL = s.EndpointURL(e.Name)
		e.Outcomes = append([]Outcome(nil), e.Outcomes...)
		out = append(out, e.Endpoint)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// HealthyURL is the URL of healthy feed n.
func (s *Server) HealthyURL(n int) string {
	return s.EndpointURL("healthy/" + strconv.Itoa(n))
}
