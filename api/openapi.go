package api

import (
	_ "embed"
	"net/http"
)

// openAPIDocument describes every endpoint; the tests hold the server to it.
//
//go:embed openapi.yaml
var openAPIDocument []byte

// OpenAPIDocument returns the embedded OpenAPI 3 document.
func OpenAPIDocument() []byte { return append([]byte(nil), openAPIDocument...) }

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	w.Write(openAPIDocument)
}
