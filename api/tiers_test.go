package api_test

import (
	"net/http"
	"testing"
)

// TestTierAndDecayOnCreate: a workspace and a source take their decay
// class (and the source its reliability tier) when created; a value out
// of range is a 400 naming the field, and nothing is created.
func TestTierAndDecayOnCreate(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		for _, tc := range []struct {
			body  map[string]any
			want  string
			field string
		}{
			{map[string]any{"name": "stable ws", "decay_class": "stable"}, "stable", ""},
			{map[string]any{"name": "default ws"}, "moderate", ""},
			{map[string]any{"name": "blank ws", "decay_class": ""}, "moderate", ""},
			{map[string]any{"name": "weekly ws", "decay_class": "weekly"}, "", "decay_class"},
		} {
			r := e.do("POST", wsPath, e.admin, tc.body)
			if refused(t, r, tc.body, tc.field) {
				continue
			}
			var ws struct {
				DecayClass string `json:"decay_class"`
			}
			r.want(t, http.StatusCreated).decode(t, &ws)
			if ws.DecayClass != tc.want {
				t.Errorf("%v: decay class %q, want %q", tc.body, ws.DecayClass, tc.want)
			}
		}

		ws := e.createWorkspace(t, "sources")
		feed := e.site.URL + "/feed.xml"
		for _, tc := range []struct {
			body   map[string]any
			tier   int
			manual bool
			decay  string
			field  string
		}{
			{map[string]any{"url": feed}, 5, false, "", ""},
			{map[string]any{"url": feed + "?a", "reliability_tier": 3, "decay_class": "fast"}, 3, true, "fast", ""},
			{map[string]any{"url": feed + "?b", "reliability_tier": 6}, 0, false, "", "reliability_tier"},
			{map[string]any{"url": feed + "?c", "decay_class": "hourly"}, 0, false, "", "decay_class"},
		} {
			r := e.do("POST", path("/%d/sources", ws.ID), e.admin, tc.body)
			if refused(t, r, tc.body, tc.field) {
				continue
			}
			var src struct {
				ReliabilityTier       int     `json:"reliability_tier"`
				ReliabilityTierManual bool    `json:"reliability_tier_manual"`
				DecayClass            *string `json:"decay_class"`
			}
			r.want(t, http.StatusCreated).decode(t, &src)
			got := ""
			if src.DecayClass != nil {
				got = *src.DecayClass
			}
			if src.ReliabilityTier != tc.tier || src.ReliabilityTierManual != tc.manual || got != tc.decay {
				t.Errorf("%v: %+v (decay %q), want tier %d manual %v decay %q", tc.body, src, got, tc.tier, tc.manual, tc.decay)
			}
		}
		var list struct {
			Items []struct{} `json:"items"`
		}
		e.do("GET", path("/%d/sources", ws.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &list)
		if len(list.Items) != 2 {
			t.Errorf("%d sources stored, want the 2 valid ones", len(list.Items))
		}
	})
}

// refused checks, when field is set, that the answer is a 400 naming it,
// and says whether it was such a case.
func refused(t *testing.T, r *result, body map[string]any, field string) bool {
	t.Helper()
	if field == "" {
		return false
	}
	if eb := r.want(t, http.StatusBadRequest).errBody(t); eb.Fields[field] == "" {
		t.Errorf("%v: %+v, want %s named", body, eb, field)
	}
	return true
}
