package model

import (
	"errors"
	"fmt"
	"strconv"
)

// Tier is a source's reliability tier, 1 (most reliable) to 5.
type Tier int

// The tiers.
const (
	TierOfficial      Tier = 1 // official documentation, specifications, governments
	TierAcademic      Tier = 2 // academic publishers and preprint servers
	TierAuthoritative Tier = 3 // established newsrooms and authoritative blogs
	TierCommunity     Tier = 4 // community sites and forums
	TierGeneral       Tier = 5 // the general web: the default
)

var tierScores = [...]float64{TierOfficial: 0.95, TierAcademic: 0.90, TierAuthoritative: 0.80, TierCommunity: 0.70, TierGeneral: 0.50}

var tierNames = [...]string{TierOfficial: "official", TierAcademic: "academic", TierAuthoritative: "authoritative", TierCommunity: "community", TierGeneral: "general"}

// ErrTier reports a tier outside 1–5.
var ErrTier = errors.New("reliability tier must be an integer from 1 to 5")

// Valid reports whether t is one of the five tiers.
func (t Tier) Valid() bool { return t >= TierOfficial && t <= TierGeneral }

// Score is the tier's base reliability score (0.95, 0.90, 0.80, 0.70,
// 0.50); a tier out of range scores as TierGeneral.
func (t Tier) Score() float64 {
	if !t.Valid() {
		return tierScores[TierGeneral]
	}
	return tierScores[t]
}

// String names the tier ("official" … "general").
func (t Tier) String() string {
	if !t.Valid() {
		return "tier(" + strconv.Itoa(int(t)) + ")"
	}
	return tierNames[t]
}

// ParseTier reads a tier given as a number ("1"–"5") or a name.
func ParseTier(s string) (Tier, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if t := Tier(n); t.Valid() {
			return t, nil
		}
		return 0, fmt.Errorf("%w, got %d", ErrTier, n)
	}
	for t := TierOfficial; t <= TierGeneral; t++ {
		if tierNames[t] == s {
			return t, nil
		}
	}
	return 0, fmt.Errorf("%w (or official, academic, authoritative, community, general), got %q", ErrTier, s)
}
