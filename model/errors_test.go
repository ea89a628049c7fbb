package model_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/feedpoller/feedpoller/model"
)

// A refusal keeps the database's message and the errors it wraps, and is
// told from any other error by errors.Is alone.
func TestRefusedDataKeepsTheCause(t *testing.T) {
	cause := errors.New("pq: value too long for type character varying(10)")
	err := fmt.Errorf("save poll of source 3: %w", model.RefusedData(cause))
	if !errors.Is(err, model.ErrRefusedData) || !errors.Is(err, cause) {
		t.Errorf("%v: want both ErrRefusedData and its cause", err)
	}
	if got, want := err.Error(), "save poll of source 3: "+cause.Error(); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if errors.Is(cause, model.ErrRefusedData) {
		t.Error("an unmarked error is taken for a refusal")
	}
}
