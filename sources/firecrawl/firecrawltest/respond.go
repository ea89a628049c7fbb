package firecrawltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// field and object are an ordered JSON object: the API is JavaScript, whose
// objects keep insertion order, and the order changes what the SDK decodes.
type field struct {
	key string
	val any
}

type object []field

// set replaces key's value in place, or appends it.
func (o object) set(key string, val any) object {
	for i := range o {
		if o[i].key == key {
			o[i].val = val
			return o
		}
	}
	return append(o, field{key, val})
}

func (o object) get(key string) (any, bool) {
	for _, f := range o {
		if f.key == key {
			return f.val, true
		}
	}
	return nil, false
}

func (o object) without(key string) object {
	out := make(object, 0, len(o))
	for _, f := range o {
		if f.key != key {
			out = append(out, f)
		}
	}
	return out
}

// MarshalJSON writes the fields in order.
func (o object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := encode(f.key)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		v, err := encode(f.val)
		if err != nil {
			return nil, fmt.Errorf("encode %q: %w", f.key, err)
		}
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// encode marshals like JSON.stringify: no HTML escaping.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// errorBody is the API's {success:false, code?, error}.
func errorBody(code, msg string) object {
	o := object{{"success", false}}
	if code != "" {
		o = append(o, field{"code", code})
	}
	return append(o, field{"error", msg})
}

func writeJSON(w http.ResponseWriter, status int, header http.Header, body any) {
	b, err := encode(body)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"success":false,"error":"fake: cannot encode response"}`)
	}
	writeRaw(w, status, header, "application/json; charset=utf-8", b)
}

func writeRaw(w http.ResponseWriter, status int, header http.Header, contentType string, b []byte) {
	for k, vs := range header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if contentType != "" {
		w.Header().Set("Content-Type", contentType)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeExpressNotFound is Express's default 404 page.
func writeExpressNotFound(w http.ResponseWriter, r *http.Request) {
	page := "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot " +
		r.Method + " " + r.URL.EscapedPath() + "</pre>\n</body>\n</html>\n"
	writeRaw(w, http.StatusNotFound, nil, "text/html; charset=utf-8", []byte(page))
}
