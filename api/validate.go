package api

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/go-playground/validator/v10"
)

// Limits of request fields; the OpenAPI document states the same.
const (
	minInterval = 1
	maxInterval = 43200 // 30 days
	maxURLLen   = 2048
)

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	// Errors name fields as the client wrote them.
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	return v
}

// check validates v's tags and merges extra field errors (from explicit
// checks); any failure is a 400 naming every bad field.
func (s *Server) check(v any, extra map[string]string) error {
	fields := map[string]string{}
	if err := s.validate.Struct(v); err != nil {
		var verrs validator.ValidationErrors
		if !errors.As(err, &verrs) {
			return fmt.Errorf("validate request: %w", err)
		}
		for _, fe := range verrs {
			fields[fieldPath(fe)] = ruleMessage(fe)
		}
	}
	if p := nulField(v); p != "" {
		fields[p] = "must not contain NUL characters"
	}
	for k, msg := range extra {
		if _, dup := fields[k]; !dup {
			fields[k] = msg
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return badRequest("invalid request: "+joinFields(fields), fields)
}

// joinFields renders field errors as one sentence, in a stable order.
func joinFields(fields map[string]string) string {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + " " + fields[k]
	}
	return strings.Join(parts, "; ")
}

// fieldPath is the field's JSON path without the request type's name, e.g.
// relevance_profile.keywords[0].term.
func fieldPath(fe validator.FieldError) string {
	ns := fe.Namespace()
	if _, rest, ok := strings.Cut(ns, "."); ok {
		return rest
	}
	return ns
}

func ruleMessage(fe validator.FieldError) string {
	p := fe.Param()
	kind := fe.Kind()
	unit := ""
	switch kind {
	case reflect.String:
		unit = " characters"
	case reflect.Slice, reflect.Array, reflect.Map:
		unit = " entries"
	}
	switch fe.Tag() {
	case "required":
		return "is required"
	case "max", "lte":
		return "must be at most " + p + unit
	case "min", "gte":
		return "must be at least " + p + unit
	case "oneof":
		return "must be one of: " + strings.ReplaceAll(p, " ", ", ")
	}
	return "breaks the " + fe.Tag() + " rule"
}

// checkURL returns why raw is not acceptable as a source URL, or "".
func checkURL(raw string) string {
	if raw == "" {
		return "is required"
	}
	if len(raw) > maxURLLen {
		return fmt.Sprintf("must be at most %d characters", maxURLLen)
	}
	if strings.IndexFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return "must not contain spaces or control characters"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "is not a valid URL"
	}
	if s := strings.ToLower(u.Scheme); (s != "http" && s != "https") || u.Opaque != "" {
		return "must be an http(s) URL"
	}
	if u.User != nil {
		return "must not contain credentials"
	}
	if u.Hostname() == "" {
		return "must name a host"
	}
	return ""
}

// blank reports a string that is empty once trimmed.
func blank(s string) bool { return strings.TrimSpace(s) == "" }

// nulField returns the JSON path of the first string in v holding a NUL
// character, or "". PostgreSQL cannot store NUL in text, and no name,
// title or term needs one, so it is refused up front instead of failing
// the insert.
func nulField(v any) string {
	return nulIn(reflect.ValueOf(v), "")
}

func nulIn(v reflect.Value, at string) string {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return nulIn(v.Elem(), at)
	case reflect.String:
		if strings.ContainsRune(v.String(), 0) {
			return at
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if p := nulIn(v.Index(i), fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if at != "" {
				name = at + "." + name
			}
			if p := nulIn(v.Field(i), name); p != "" {
				return p
			}
		}
	}
	return ""
}
