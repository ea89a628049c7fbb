package api_test

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"gopkg.in/yaml.v3"

	"github.com/feedpoller/feedpoller/api"
)

// The OpenAPI document is loaded once; every response the tests receive is
// checked against it (status documented for the operation, body valid
// under its schema), so the document cannot drift from the server.
var spec struct {
	once      sync.Once
	err       error
	validator validator.Validator
	ops       []specOp
	mu        sync.Mutex
	hit       map[string]bool
}

type specOp struct {
	method, template string
	re               *regexp.Regexp
}

func (o specOp) key() string { return o.method + " " + o.template }

func loadSpec(t testing.TB) {
	t.Helper()
	spec.once.Do(func() {
		raw := api.OpenAPIDocument()
		doc, err := libopenapi.NewDocument(raw)
		if err != nil {
			spec.err = err
			return
		}
		v, errs := validator.NewValidator(doc)
		if len(errs) > 0 {
			spec.err = errs[0]
			return
		}
		if ok, verrs := v.ValidateDocument(); !ok {
			var msgs []string
			for _, e := range verrs {
				msgs = append(msgs, e.Error())
			}
			spec.err = &specError{strings.Join(msgs, "\n")}
			return
		}
		spec.validator = v
		spec.hit = map[string]bool{}
		// The operation list, read independently of the validator.
		var parsed struct {
			Paths map[string]map[string]any `yaml:"paths"`
		}
		if err := yaml.Unmarshal(raw, &parsed); err != nil {
			spec.err = err
			return
		}
		for p, item := range parsed.Paths {
			re := regexp.MustCompile("^" + regexp.MustCompile(`\\\{[^}]+\\\}`).ReplaceAllString(regexp.QuoteMeta(p), `[^/]+`) + "$")
			for m := range item {
				if m == "parameters" {
					continue
				}
				spec.ops = append(spec.ops, specOp{method: strings.ToUpper(m), template: p, re: re})
			}
		}
	})
	if spec.err != nil {
		t.Fatalf("load api/openapi.yaml: %v", spec.err)
	}
}

type specError struct{ msg string }

func (e *specError) Error() string { return e.msg }

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
	copyResp := *resp
	copyResp.Body = io.NopCloser(bytes.NewReader(body))
	spec.mu.Lock()
	ok, errs := spec.validator.ValidateHttpResponse(req, &copyResp)
	spec.hit[op.key()] = true
	spec.mu.Unlock()
	if !ok {
		for _, e := range errs {
			t.Errorf("openapi drift: %s %s → %d %s\n  %s", req.Method, req.URL.Path, resp.StatusCode, truncate(body, 300), e.Error())
			for _, f := range e.SchemaValidationErrors {
				t.Errorf("    %s", f.Error())
			}
		}
	}
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
