package service

import (
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-playground/validator/v10"

	"github.com/feedpoller/feedpoller/store/textquery"
)

// Limits of input fields. The validate tags of the spec types and the
// OpenAPI document state the same numbers.
const (
	MinIntervalMinutes = 1
	MaxIntervalMinutes = 43200 // 30 days
	MaxURLLength       = 2048
	MaxTitleRunes      = 500
)

// Rules checks input structs against their validate tags and the text
// rules every stored string obeys. Field errors are named by JSON path, as
// clients write them (relevance_profile.keywords[0].term).
type Rules struct {
	v *validator.Validate
}

// NewRules builds the checker.
func NewRules() *Rules {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	return &Rules{v: v}
}

// Check validates v's tags and text, merges extra field errors (from
// explicit checks), and returns an ErrInvalid *Error naming every bad
// field, or nil.
func (r *Rules) Check(v any, extra map[string]string) error {
	fields := map[string]string{}
	if err := r.v.Struct(v); err != nil {
		var verrs validator.ValidationErrors
		if !errors.As(err, &verrs) {
			return fmt.Errorf("validate input: %w", err)
		}
		for _, fe := range verrs {
			fields[fieldPath(fe)] = ruleMessage(fe)
		}
	}
	if p, msg := badText(reflect.ValueOf(v), ""); p != "" {
		fields[p] = msg
	}
	for k, msg := range extra {
		if _, dup := fields[k]; !dup {
			fields[k] = msg
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return Invalid("invalid request", fields)
}

// fieldPath is the field's JSON path without the struct's name.
func fieldPath(fe validator.FieldError) string {
	ns := fe.Namespace()
	if _, rest, ok := strings.Cut(ns, "."); ok {
		return rest
	}
	return ns
}

func ruleMessage(fe validator.FieldError) string {
	p := fe.Param()
	unit := ""
	switch fe.Kind() {
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

// badText returns the JSON path of the first string in v that cannot be
// stored as text, and why. PostgreSQL stores neither NUL nor invalid
// UTF-8, and no name, title or term needs them, so they are refused up
// front instead of failing the insert.
func badText(v reflect.Value, at string) (string, string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", ""
		}
		return badText(v.Elem(), at)
	case reflect.String:
		switch s := v.String(); {
		case strings.ContainsRune(s, 0):
			return at, "must not contain NUL characters"
		case !utf8.ValidString(s):
			return at, "must be valid UTF-8 text"
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if p, msg := badText(v.Index(i), fmt.Sprintf("%s[%d]", at, i)); p != "" {
				return p, msg
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
			if p, msg := badText(v.Field(i), name); p != "" {
				return p, msg
			}
		}
	}
	return "", ""
}

// checkURL returns why raw is not acceptable as a source URL, or "".
func checkURL(raw string) string {
	if raw == "" {
		return "is required"
	}
	if len(raw) > MaxURLLength {
		return fmt.Sprintf("must be at most %d characters", MaxURLLength)
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

// cleanTitle makes a title a site sent storable: valid UTF-8 without NUL,
// trimmed, at most MaxTitleRunes.
func cleanTitle(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(strings.ToValidUTF8(s, ""), "\x00", ""))
	if utf8.RuneCountInString(s) <= MaxTitleRunes {
		return s
	}
	return string([]rune(s)[:MaxTitleRunes])
}

// trimmed trims *s in place; nil stays nil.
func trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	return &t
}

// MaxQueryRunes bounds a full-text search query.
const MaxQueryRunes = 500

// CheckQuery returns why a search query (the listings' q, the console's
// search) cannot be searched, or "" when it can (an empty one too).
func CheckQuery(q string) string {
	switch {
	case utf8.RuneCountInString(q) > MaxQueryRunes:
		return fmt.Sprintf("must be at most %d characters", MaxQueryRunes)
	case strings.ContainsRune(q, 0):
		return "must not contain NUL characters"
	case strings.TrimSpace(q) == "":
		return ""
	}
	if _, err := textquery.Parse(q); err != nil {
		return "cannot be searched: " + err.Error()
	}
	return ""
}
