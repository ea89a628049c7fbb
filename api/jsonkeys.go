package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode"
)

// checkKeys finds object keys that encoding/json would accept silently
// but a client did not mean: a key given twice in one object (the decoder
// keeps the last), and a key that names a field only case-insensitively
// ({"URL": …}, or "url" and "Url" side by side: the decoder matches field
// names ignoring case). It returns the refusal naming the key, or nil. Raw
// that is not valid JSON is left to the decoder, which names the problem.
func checkKeys(raw []byte, t reflect.Type) *apiError {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	ae, err := walkKeys(dec, t, "", 0)
	if err != nil {
		return nil
	}
	return ae
}

// maxDepth is where the walk stops and leaves the body to the decoder,
// which refuses nesting deeper than this.
const maxDepth = 10000

var errTooDeep = errors.New("nested too deep")

func walkKeys(dec *json.Decoder, t reflect.Type, at string, depth int) (*apiError, error) {
	if depth > maxDepth {
		return nil, errTooDeep
	}
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		return walkObject(dec, t, at, depth)
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if ae, err := walkKeys(dec, elem, fmt.Sprintf("%s[%d]", at, i), depth+1); ae != nil || err != nil {
				return ae, err
			}
		}
		_, err := dec.Token() // ]
		return nil, err
	}
	return nil, nil
}

func walkObject(dec *json.Decoder, t reflect.Type, at string, depth int) (*apiError, error) {
	var fields map[string]reflect.Type // exact JSON name → type
	byFold := map[string]string{}      // folded field name → exact name
	if t != nil && t.Kind() == reflect.Struct {
		fields = map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields[name] = f.Type
			byFold[foldKey(name)] = name
		}
	}
	seen := map[string]string{} // folded (struct) or exact (map) key → key as sent
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		path := key
		if at != "" {
			path = at + "." + key
		}
		seenKey := key
		if fields != nil {
			seenKey = foldKey(key)
		}
		if prev, dup := seen[seenKey]; dup {
			if prev == key {
				return fieldError(path, "is given twice; send each key once"), nil
			}
			return fieldError(path, fmt.Sprintf("repeats the key %q (keys differing only in case name one field); send it once, as %q", prev, byFold[seenKey])), nil
		}
		seen[seenKey] = key
		var sub reflect.Type
		switch {
		case fields != nil:
			ft, ok := fields[key]
			if !ok {
				if exact, near := byFold[foldKey(key)]; near {
					return fieldError(path, fmt.Sprintf("is not a known field; names are case-sensitive: did you mean %q?", exact)), nil
				}
			}
			sub = ft
		case t != nil && t.Kind() == reflect.Map:
			sub = t.Elem()
		}
		if ae, err := walkKeys(dec, sub, path, depth+1); ae != nil || err != nil {
			return ae, err
		}
	}
	_, err := dec.Token() // }
	return nil, err
}

// foldKey maps every rune of s to the smallest rune of its case-folding
// orbit, so two keys encoding/json would match to one field ("url", "URL",
// "Url"; "K" and the Kelvin sign) have one foldKey.
func foldKey(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}
