package api_test

import (
	"flag"
	"testing"
)

// TestZZEveryDocumentedOperationExercised runs last (files and tests run
// in source order) and fails when some operation of openapi.yaml was
// never called by the suite, so every documented endpoint has its
// responses checked against the document. It only means something when
// the whole suite ran.
func TestZZEveryDocumentedOperationExercised(t *testing.T) {
	for _, name := range []string{"test.run", "test.skip", "test.shuffle"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "off" {
			t.Skipf("-%s is set: not the whole suite", name)
		}
	}
	loadSpec(t)
	if missing := missingOperations(); len(missing) > 0 {
		t.Fatalf("documented operations no test exercised: %v", missing)
	}
}
