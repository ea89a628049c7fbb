package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"gopkg.in/yaml.v3"

	"github.com/feedpoller/feedpoller/api"
)

// The OpenAPI document is loaded once; every response the tests receive is
// checked against it (status documented for the operation, a documented
// content type, a JSON body valid under its schema), so the document
// cannot drift from the server. The document's schemas are OpenAPI 3.0
// Schema Objects: they are read as JSON Schema once nullable and the
// components' $refs are rewritten, and validated with the JSON Schema
// library the MCP server already uses.
var spec struct {
	once sync.Once
	err  error
	doc  map[string]any
	defs map[string]any
	ops  []specOp
	mu   sync.Mutex
	hit  map[string]bool
}

type specOp struct {
	method, template string
	re               *regexp.Regexp
	responses        map[string]any
}

func (o specOp) key() string { return o.method + " " + o.template }

func loadSpec(t testing.TB) {
	t.Helper()
	spec.once.Do(func() {
		var doc map[string]any
		if err := yaml.Unmarshal(api.OpenAPIDocument(), &doc); err != nil {
			spec.err = err
			return
		}
		if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.0.") {
			spec.err = fmt.Errorf("openapi version %q, want 3.0.x", v)
			return
		}
		spec.doc = doc
		if err := checkRefs(doc, doc, "#"); err != nil {
			spec.err = err
			return
		}
		schemas, _ := dig(doc, "components", "schemas").(map[string]any)
		spec.defs = map[string]any{}
		for name, sc := range schemas {
			spec.defs[name] = toJSONSchema(sc)
		}
		// Every component schema must be a schema the library accepts.
		for name := range schemas {
			if _, err := compile(map[string]any{"$ref": "#/$defs/" + name}); err != nil {
				spec.err = fmt.Errorf("components/schemas/%s: %w", name, err)
				return
			}
		}
		spec.hit = map[string]bool{}
		paths, _ := doc["paths"].(map[string]any)
		for p, item := range paths {
			re := regexp.MustCompile("^" + regexp.MustCompile(`\\\{[^}]+\\\}`).ReplaceAllString(regexp.QuoteMeta(p), `[^/]+`) + "$")
			ops, _ := item.(map[string]any)
			for m, op := range ops {
				if m == "parameters" {
					continue
				}
				responses, _ := dig(op, "responses").(map[string]any)
				if len(responses) == 0 {
					spec.err = fmt.Errorf("%s %s documents no response", strings.ToUpper(m), p)
					return
				}
				spec.ops = append(spec.ops, specOp{method: strings.ToUpper(m), template: p, re: re, responses: responses})
			}
		}
	})
	if spec.err != nil {
		t.Fatalf("load api/openapi.yaml: %v", spec.err)
	}
}

// dig walks nested maps by key.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// deref follows a local $ref ("#/components/…") in the document.
func deref(doc map[string]any, v any) (any, error) {
	for range 10 {
		m, ok := v.(map[string]any)
		if !ok {
			return v, nil
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return v, nil
		}
		if !strings.HasPrefix(ref, "#/") {
			return nil, fmt.Errorf("$ref %q is not local", ref)
		}
		next := dig(doc, strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
		if next == nil {
			return nil, fmt.Errorf("$ref %q names nothing", ref)
		}
		v = next
	}
	return nil, fmt.Errorf("$ref chain too long")
}

// checkRefs fails on a $ref that names nothing in the document.
func checkRefs(doc map[string]any, v any, at string) error {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["$ref"]; ok {
			if _, err := deref(doc, v); err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
		}
		for k, c := range v {
			if err := checkRefs(doc, c, at+"/"+k); err != nil {
				return err
			}
		}
	case []any:
		for i, c := range v {
			if err := checkRefs(doc, c, at+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// toJSONSchema rewrites an OpenAPI 3.0 Schema Object as JSON Schema:
// component $refs point into $defs, nullable widens the type to null,
// and the keywords JSON Schema does not know are dropped.
func toJSONSchema(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, c := range v {
			switch k {
			case "nullable", "example", "discriminator", "xml", "externalDocs":
				continue
			case "$ref":
				out[k] = strings.Replace(c.(string), "#/components/schemas/", "#/$defs/", 1)
			case "properties":
				props := map[string]any{}
				for name, p := range c.(map[string]any) {
					props[name] = toJSONSchema(p)
				}
				out[k] = props
			default:
				out[k] = toJSONSchema(c)
			}
		}
		if v["nullable"] == true {
			if typ, ok := out["type"].(string); ok {
				out["type"] = []any{typ, "null"}
			} else {
				return map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = toJSONSchema(c)
		}
		return out
	}
	return v
}

// compile resolves a JSON Schema with the document's component schemas.
func compile(schema any) (*jsonschema.Resolved, error) {
	root := map[string]any{"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": spec.defs}
	if m, ok := schema.(map[string]any); ok {
		for k, v := range m {
			root[k] = v
		}
	}
	raw, err := json.Marshal(root)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// checkAgainstSpec validates one real response against the document.
func checkAgainstSpec(t testing.TB, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	loadSpec(t)
	var op *specOp
	for i := range spec.ops {
		o := &spec.ops[i]
		if o.method == req.Method && o.re.MatchString(req.URL.Path) {
			// The most specific template wins (literal segments over {params}).
			if op == nil || strings.Count(o.template, "{") < strings.Count(op.template, "{") {
				op = o
			}
		}
	}
	if op == nil {
		t.Errorf("openapi.yaml does not describe %s %s", req.Method, req.URL.Path)
		return
	}
	spec.mu.Lock()
	spec.hit[op.key()] = true
	spec.mu.Unlock()
	drift := func(format string, args ...any) {
		t.Errorf("openapi drift: %s %s → %d %s\n  %s", req.Method, req.URL.Path, resp.StatusCode, truncate(body, 300),
			fmt.Sprintf(format, args...))
	}
	code := strconv.Itoa(resp.StatusCode)
	documented, ok := op.responses[code]
	if !ok {
		documented, ok = op.responses[code[:1]+"XX"]
	}
	if !ok {
		documented, ok = op.responses["default"]
	}
	if !ok {
		drift("status %d is not documented for %s", resp.StatusCode, op.key())
		return
	}
	r, err := deref(spec.doc, documented)
	if err != nil {
		drift("%v", err)
		return
	}
	content, _ := dig(r, "content").(map[string]any)
	if len(content) == 0 {
		if len(body) > 0 {
			drift("a body, where the document has none")
		}
		return
	}
	mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err != nil {
		drift("content type %q: %v", resp.Header.Get("Content-Type"), err)
		return
	}
	media, ok := content[mt]
	if !ok {
		drift("content type %s is not documented (%v)", mt, keys(content))
		return
	}
	schema := dig(media, "schema")
	if schema == nil || mt != "application/json" {
		return
	}
	resolved, err := compile(toJSONSchema(schema))
	if err != nil {
		drift("schema: %v", err)
		return
	}
	var instance any
	if err := json.Unmarshal(body, &instance); err != nil {
		drift("body is not JSON: %v", err)
		return
	}
	if err := resolved.Validate(instance); err != nil {
		drift("%v", err)
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	loadSpec(t)
	if len(spec.ops) < 20 {
		t.Fatalf("document lists %d operations; expected every endpoint", len(spec.ops))
	}
}

// TestOpenAPIServedMatchesEmbedded checks /openapi.yaml serves the
// document the tests validate against.
func TestOpenAPIServedMatchesEmbedded(t *testing.T) {
	e := newEnv(t, "sqlite")
	r := e.do("GET", "/openapi.yaml", "", nil).want(t, http.StatusOK)
	if !bytes.Equal(r.body, api.OpenAPIDocument()) {
		t.Fatal("served document differs from the embedded one")
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/yaml") {
		t.Fatalf("content type %q", ct)
	}
}

// missingOperations lists documented operations no test exercised.
func missingOperations() []string {
	spec.mu.Lock()
	defer spec.mu.Unlock()
	var out []string
	for _, o := range spec.ops {
		if !spec.hit[o.key()] {
			out = append(out, o.key())
		}
	}
	sort.Strings(out)
	return out
}
