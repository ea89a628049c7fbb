package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
)

// maxBodyBytes caps every request body.
const maxBodyBytes = 1 << 20

// decodeBody reads r's JSON body into dst strictly: JSON content type, at
// most 1 MiB, one object, no unknown fields, field names spelled exactly
// and no key twice in one object, every value of its field's type. Each
// refusal names what to fix.
func decodeBody(w http.ResponseWriter, r *http.Request, dst any) error {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
		return newError(http.StatusUnsupportedMediaType, "request body must be JSON, sent with Content-Type: application/json (got %q)", ct)
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return decodeError(err)
		}
		return badRequest("request body could not be read: "+err.Error(), nil)
	}
	if ae := checkKeys(raw, reflect.TypeOf(dst)); ae != nil {
		return ae
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		ae := decodeError(err)
		if name, ok := ae.Fields[unknownMarker]; ok {
			// encoding/json names only the key; find where it sits.
			if p := unknownFieldPath(raw, reflect.TypeOf(dst), name); p != "" {
				name = p
			}
			ae = fieldError(name, "is not a known field")
		}
		return ae
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			if ae := decodeError(err); ae.Status == http.StatusRequestEntityTooLarge {
				return ae
			}
		}
		return badRequest("request body must hold exactly one JSON object", nil)
	}
	return nil
}

// unknownMarker carries an unknown field's bare name from decodeError to
// decodeBody, which works out its full path.
const unknownMarker = "\x00unknown"

func decodeError(err error) *apiError {
	var (
		tooBig  *http.MaxBytesError
		syntax  *json.SyntaxError
		typeErr *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &tooBig):
		return newError(http.StatusRequestEntityTooLarge, "request body is larger than %d bytes (1 MiB)", maxBodyBytes)
	case errors.Is(err, io.EOF):
		return badRequest("request body is empty; send a JSON object", nil)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badRequest("malformed JSON: the body ends before the object does", nil)
	case errors.As(err, &syntax):
		return badRequest(fmt.Sprintf("malformed JSON at byte %d: %s", syntax.Offset, strings.TrimPrefix(syntax.Error(), "json: ")), nil)
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return badRequest("request body must be a JSON object, not "+jsonKind(typeErr.Value), nil)
		}
		return fieldError(typeErr.Field, "must be "+typeName(typeErr.Type)+", not "+jsonKind(typeErr.Value))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &apiError{Status: http.StatusBadRequest, Fields: map[string]string{unknownMarker: strings.Trim(name, `"`)}}
	}
	return badRequest("malformed JSON: "+strings.TrimPrefix(err.Error(), "json: "), nil)
}

// jsonKind names the JSON value the decoder found ("string", "number
// 1.5", ...) in words a client recognises.
func jsonKind(v string) string {
	switch v {
	case "string":
		return "a string"
	case "bool":
		return "true/false"
	case "array":
		return "an array"
	case "object":
		return "an object"
	}
	if rest, ok := strings.CutPrefix(v, "number"); ok {
		return "the number" + rest
	}
	return v
}

func typeName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number in range"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return "a " + t.String()
}

// unknownFieldPath finds the object key name in raw that type t has no
// field for, and returns its JSON path (relevance_profile.treshold).
func unknownFieldPath(raw []byte, t reflect.Type, name string) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return unknownIn(v, t, "", name)
}

func unknownIn(v any, t reflect.Type, at, name string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch val := v.(type) {
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return ""
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			fields[strings.ToLower(name)] = f.Type
		}
		for k, sub := range val {
			path := k
			if at != "" {
				path = at + "." + k
			}
			ft, ok := fields[strings.ToLower(k)]
			if !ok {
				if k == name {
					return path
				}
				continue
			}
			if p := unknownIn(sub, ft, path, name); p != "" {
				return p
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return ""
		}
		for i, sub := range val {
			if p := unknownIn(sub, t.Elem(), fmt.Sprintf("%s[%d]", at, i), name); p != "" {
				return p
			}
		}
	}
	return ""
}
