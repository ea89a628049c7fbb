package firecrawltest

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// FaultKind is a one-shot misbehaviour of the API or what stands in front
// of it.
type FaultKind int

const (
	// FaultGateway: a 502/503/504 from the load balancer, with a Body of
	// the chosen kind. The API never runs.
	FaultGateway FaultKind = iota
	// FaultStatus: any status with the API's JSON error body carrying
	// Message (e.g. 500 with a '%' in it, or 409).
	FaultStatus
	// FaultMalformedJSON: 200 with a truncated JSON body.
	FaultMalformedJSON
	// FaultSuccessFalse: 200 {"success":false,"error":Message}.
	FaultSuccessFalse
	// FaultSuccessWithoutData: 200 {"success":true}.
	FaultSuccessWithoutData
	// FaultSlowHeaders: wait Delay (real time) before answering normally;
	// a client that gives up frees the handler.
	FaultSlowHeaders
	// FaultDrop: hijack the connection and close it with no response.
	FaultDrop
	// FaultWithoutMetadata: a normal success with data.metadata removed.
	FaultWithoutMetadata
	// FaultTitleArray: a normal success whose metadata.title is an array.
	FaultTitleArray
	// FaultStatusCodeString: a normal success whose metadata.statusCode is
	// a string.
	FaultStatusCodeString
	// FaultSuccessStatus: a normal success body sent with Status (e.g. 201).
	FaultSuccessStatus
	// FaultSlowBody: a normal success that sends half its JSON, flushes and
	// stalls until the client gives up.
	FaultSlowBody
	// FaultOversized: a normal success whose html is Size bytes.
	FaultOversized
)

// GatewayBody is what a gateway error page contains.
type GatewayBody int

const (
	// GatewayHTML is an nginx-style HTML error page.
	GatewayHTML GatewayBody = iota
	// GatewayEmpty is an empty body.
	GatewayEmpty
	// GatewayJSON is {"success":false,"error":Message}.
	GatewayJSON
)

// Fault is a one-shot override queued with Server.Enqueue. Faults that
// reshape a success (WithoutMetadata, TitleArray, StatusCodeString,
// SuccessStatus, SlowBody, Oversized) apply only when the API would have
// answered 200; otherwise that answer is sent and the fault is used up.
type Fault struct {
	Kind    FaultKind
	Status  int
	Body    GatewayBody
	Message string
	// Delay is real time (FaultSlowHeaders).
	Delay time.Duration
	// Size is the html length in bytes (FaultOversized).
	Size int
	// Header is added to the answer of a fault that replaces the API's
	// (e.g. the Retry-After a proxy might add to a 429).
	Header http.Header
}

// Gateway is a 502/503/504 from the proxy in front of the API.
func Gateway(status int, body GatewayBody) Fault {
	return Fault{Kind: FaultGateway, Status: status, Body: body}
}

// ErrorStatus answers status with the API's JSON error body.
func ErrorStatus(status int, msg string) Fault {
	return Fault{Kind: FaultStatus, Status: status, Message: msg}
}

// MalformedJSON answers 200 with truncated JSON.
func MalformedJSON() Fault { return Fault{Kind: FaultMalformedJSON} }

// SuccessFalse answers 200 {"success":false,"error":msg}.
func SuccessFalse(msg string) Fault { return Fault{Kind: FaultSuccessFalse, Message: msg} }

// SuccessWithoutData answers 200 {"success":true}.
func SuccessWithoutData() Fault { return Fault{Kind: FaultSuccessWithoutData} }

// SlowHeaders delays the answer by d of real time.
func SlowHeaders(d time.Duration) Fault { return Fault{Kind: FaultSlowHeaders, Delay: d} }

// DropConnection closes the connection without answering.
func DropConnection() Fault { return Fault{Kind: FaultDrop} }

// WithoutMetadata removes data.metadata from a success.
func WithoutMetadata() Fault { return Fault{Kind: FaultWithoutMetadata} }

// TitleArray turns metadata.title of a success into a string array.
func TitleArray() Fault { return Fault{Kind: FaultTitleArray} }

// StatusCodeString turns metadata.statusCode of a success into a string.
func StatusCodeString() Fault { return Fault{Kind: FaultStatusCodeString} }

// SuccessStatus sends a success body with another 2xx status, e.g. 201.
func SuccessStatus(status int) Fault { return Fault{Kind: FaultSuccessStatus, Status: status} }

// SlowBody sends half of a success and stalls.
func SlowBody() Fault { return Fault{Kind: FaultSlowBody} }

// Oversized makes the html of a success size bytes long.
func Oversized(size int) Fault { return Fault{Kind: FaultOversized, Size: size} }

func (f Fault) replacesResponse() bool {
	switch f.Kind {
	case FaultGateway, FaultStatus, FaultMalformedJSON, FaultSuccessFalse, FaultSuccessWithoutData, FaultDrop:
		return true
	}
	return false
}

func (f Fault) shapesSuccess() bool {
	return !f.replacesResponse() && f.Kind != FaultSlowHeaders
}

// serveFault answers in place of the API.
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, f Fault) {
	for k, vs := range f.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	switch f.Kind {
	case FaultGateway:
		status := f.Status
		if status == 0 {
			status = http.StatusBadGateway
		}
		text := fmt.Sprintf("%d %s", status, http.StatusText(status))
		switch f.Body {
		case GatewayHTML:
			page := "<html>\r\n<head><title>" + text + "</title></head>\r\n<body>\r\n<center><h1>" + text +
				"</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
			writeRaw(w, status, nil, "text/html", []byte(page))
		case GatewayEmpty:
			writeRaw(w, status, nil, "", nil)
		default:
			msg := f.Message
			if msg == "" {
				msg = http.StatusText(status)
			}
			writeJSON(w, status, nil, errorBody("", msg))
		}
	case FaultStatus:
		writeJSON(w, f.Status, nil, errorBody("", f.Message))
	case FaultMalformedJSON:
		writeRaw(w, http.StatusOK, nil, "application/json; charset=utf-8", []byte(`{"success":true,"data":{"html":"<p>cut off`))
	case FaultSuccessFalse:
		writeJSON(w, http.StatusOK, nil, errorBody("", f.Message))
	case FaultSuccessWithoutData:
		writeJSON(w, http.StatusOK, nil, object{{"success", true}})
	case FaultDrop:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic(http.ErrAbortHandler)
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}
}

// serveShaped sends a success the fault reshapes.
func (s *Server) serveShaped(w http.ResponseWriter, r *http.Request, f Fault, out outcome) {
	data := out.success
	metaVal, _ := data.get("metadata")
	meta, _ := metaVal.(object)
	status := http.StatusOK
	switch f.Kind {
	case FaultWithoutMetadata:
		data = data.without("metadata")
	case FaultTitleArray:
		title, _ := meta.get("title")
		data = data.set("metadata", meta.set("title", []any{title, title}))
	case FaultStatusCodeString:
		code, _ := meta.get("statusCode")
		data = data.set("metadata", meta.set("statusCode", fmt.Sprint(code)))
	case FaultSuccessStatus:
		status = f.Status
	case FaultSlowBody:
		b, _ := encode(object{{"success", true}, {"data", data}})
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b[:len(b)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
		s.stall(r.Context())
		return
	case FaultOversized:
		s.spendCredit()
		s.writeOversized(w, f.Size, meta)
		return
	}
	if status == http.StatusOK {
		s.spendCredit()
	}
	writeJSON(w, status, nil, object{{"success", true}, {"data", data}})
}

// writeOversized streams a success whose html is size bytes, so the fake
// itself never holds it in memory.
func (s *Server) writeOversized(w http.ResponseWriter, size int, meta object) {
	metaJSON, _ := encode(meta)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write([]byte(`{"success":true,"data":{"html":"`)); err != nil {
		return
	}
	chunk := []byte(strings.Repeat("<p>lorem ipsum dolor sit amet</p>", 2048))
	for left := size; left > 0; {
		n := min(left, len(chunk))
		if _, err := w.Write(chunk[:n]); err != nil {
			return
		}
		left -= n
	}
	_, _ = w.Write([]byte(`","metadata":`))
	_, _ = w.Write(metaJSON)
	_, _ = w.Write([]byte(`}}`))
}
