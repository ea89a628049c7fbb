package model

import (
	"errors"
	"fmt"
)

// DecayClass says how fast the news of a workspace or source goes stale.
type DecayClass string

// The decay classes and their yearly decay rates.
const (
	DecayFast     DecayClass = "fast"     // 0.3: news, releases, incidents
	DecayModerate DecayClass = "moderate" // 0.1: analysis, guides: the default
	DecayStable   DecayClass = "stable"   // 0.02: reference material, specifications
)

// DefaultDecayClass is the class of a workspace that has none set.
const DefaultDecayClass = DecayModerate

// ErrDecayClass reports an unknown class.
var ErrDecayClass = errors.New("decay class must be fast, moderate or stable")

// ParseDecayClass reads a class name; "" is DefaultDecayClass.
func ParseDecayClass(s string) (DecayClass, error) {
	switch c := DecayClass(s); c {
	case DecayFast, DecayModerate, DecayStable:
		return c, nil
	case "":
		return DefaultDecayClass, nil
	}
	return "", fmt.Errorf("%w, got %q", ErrDecayClass, s)
}

// Rate is the class's decay rate per year (DefaultDecayClass's for an
// unknown class).
func (c DecayClass) Rate() float64 {
	switch c {
	case DecayFast:
		return 0.3
	case DecayStable:
		return 0.02
	}
	return 0.1
}

// EffectiveClass is a source's class when it overrides its workspace's,
// else the workspace's, else DefaultDecayClass.
func EffectiveClass(workspace, source DecayClass) DecayClass {
	for _, c := range []DecayClass{source, workspace} {
		if _, err := ParseDecayClass(string(c)); err == nil && c != "" {
			return c
		}
	}
	return DefaultDecayClass
}
