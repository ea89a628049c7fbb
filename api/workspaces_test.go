package api_test

import (
	"net/http"
	"testing"

	"github.com/feedpoller/feedpoller/model"
)

func TestWorkspaceLifecycle(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		profile := map[string]any{
			"keywords":   []map[string]any{{"term": " golang ", "weight": 2}, {"term": "sqlite", "weight": 1}},
			"exclusions": []string{"sponsored"},
			"threshold":  0.4,
		}
		var ws workspaceJSON
		e.do("POST", wsPath, e.admin, map[string]any{"name": "news", "relevance_profile": profile}).
			want(t, http.StatusCreated).decode(t, &ws)
		if ws.ID == 0 || ws.Name != "news" || len(ws.RelevanceProfile.Keywords) != 2 ||
			ws.RelevanceProfile.Keywords[0].Term != "golang" || ws.RelevanceProfile.Threshold != 0.4 {
			t.Fatalf("created workspace %+v", ws)
		}

		var got workspaceJSON
		e.do("GET", path("/%d", ws.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &got)
		if got.Name != "news" || got.RelevanceProfile.Exclusions[0] != "sponsored" {
			t.Fatalf("read back %+v", got)
		}

		// PATCH changes only what is sent: renaming keeps the profile.
		e.do("PATCH", path("/%d", ws.ID), e.admin, map[string]any{"name": "tech news"}).want(t, http.StatusOK).decode(t, &got)
		if got.Name != "tech news" || len(got.RelevanceProfile.Keywords) != 2 {
			t.Fatalf("after rename %+v", got)
		}
		e.do("PATCH", path("/%d", ws.ID), e.admin, map[string]any{"relevance_profile": map[string]any{"threshold": 0.9}}).
			want(t, http.StatusOK).decode(t, &got)
		if got.Name != "tech news" || len(got.RelevanceProfile.Keywords) != 0 || got.RelevanceProfile.Threshold != 0.9 {
			t.Fatalf("after profile replace %+v", got)
		}

		e.createWorkspace(t, "second")
		var list struct{ Items []workspaceJSON }
		e.do("GET", wsPath, e.admin, nil).want(t, http.StatusOK).decode(t, &list)
		if len(list.Items) != 2 || list.Items[0].ID != ws.ID {
			t.Fatalf("admin list %+v", list)
		}
	})
}

func TestWorkspaceFailures(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		ws := e.createWorkspace(t, "taken")
		other := e.createWorkspace(t, "other")
		cases := []struct {
			name   string
			method string
			path   string
			body   any
			status int
			field  string
		}{
			{"duplicate name", "POST", wsPath, map[string]any{"name": "taken"}, http.StatusConflict, "name"},
			{"blank name", "POST", wsPath, map[string]any{"name": "   "}, http.StatusBadRequest, "name"},
			{"name too long", "POST", wsPath, map[string]any{"name": string(make([]byte, 201))}, http.StatusBadRequest, "name"},
			{"keyword without term", "POST", wsPath, map[string]any{"name": "k", "relevance_profile": map[string]any{
				"keywords": []map[string]any{{"term": " ", "weight": 1}}}}, http.StatusBadRequest, "relevance_profile.keywords[0].term"},
			{"weight over 100", "POST", wsPath, map[string]any{"name": "k", "relevance_profile": map[string]any{
				"keywords": []map[string]any{{"term": "go", "weight": 101}}}}, http.StatusBadRequest, "relevance_profile.keywords[0].weight"},
			{"negative weight", "POST", wsPath, map[string]any{"name": "k", "relevance_profile": map[string]any{
				"keywords": []map[string]any{{"term": "go", "weight": -1}}}}, http.StatusBadRequest, "relevance_profile.keywords[0].weight"},
			{"threshold over 1", "POST", wsPath, map[string]any{"name": "k", "relevance_profile": map[string]any{"threshold": 1.5}},
				http.StatusBadRequest, "relevance_profile.threshold"},
			{"term too long", "POST", wsPath, map[string]any{"name": "k", "relevance_profile": map[string]any{
				"keywords": []map[string]any{{"term": string(make([]rune, 201)), "weight": 1}}}}, http.StatusBadRequest, "relevance_profile.keywords[0].term"},
			{"unknown profile field", "POST", wsPath, map[string]any{"name": "k", "relevance_profile": map[string]any{"treshold": 0.5}},
				http.StatusBadRequest, "relevance_profile.treshold"},
			{"rename onto a taken name", "PATCH", path("/%d", other.ID), map[string]any{"name": "taken"}, http.StatusConflict, "name"},
			{"empty patch", "PATCH", path("/%d", ws.ID), map[string]any{}, http.StatusBadRequest, ""},
			{"patch unknown workspace", "PATCH", path("/999999"), map[string]any{"name": "x"}, http.StatusNotFound, ""},
			{"get unknown workspace", "GET", path("/999999"), nil, http.StatusNotFound, ""},
			{"get non-numeric id", "GET", path("/abc"), nil, http.StatusNotFound, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				before := e.countRows(t, "workspaces")
				r := e.do(c.method, c.path, e.admin, c.body).want(t, c.status)
				eb := r.errBody(t)
				if c.field != "" && eb.Fields[c.field] == "" {
					t.Fatalf("error names fields %v, want %q: %s", eb.Fields, c.field, eb.Error)
				}
				if after := e.countRows(t, "workspaces"); after != before {
					t.Fatalf("refused request changed the workspace count %d → %d", before, after)
				}
			})
		}
		var got workspaceJSON
		e.do("GET", path("/%d", other.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &got)
		if got.Name != "other" {
			t.Fatalf("refused rename still renamed: %q", got.Name)
		}
	})
}

// A workspace created (or a profile replaced) without a threshold gets the
// one documented default, the CLI's too; an explicit 0 stays 0.
func TestWorkspaceThresholdDefault(t *testing.T) {
	forEachDialect(t, func(t *testing.T, e *env) {
		var ws workspaceJSON
		e.do("POST", wsPath, e.admin, map[string]any{"name": "bare"}).want(t, http.StatusCreated).decode(t, &ws)
		if ws.RelevanceProfile.Threshold != model.DefaultThreshold || model.DefaultThreshold != 0.2 {
			t.Fatalf("workspace without a profile: threshold %v, want the default 0.2", ws.RelevanceProfile.Threshold)
		}
		e.do("POST", wsPath, e.admin, map[string]any{"name": "keywords only",
			"relevance_profile": map[string]any{"keywords": []map[string]any{{"term": "go"}}}}).want(t, http.StatusCreated).decode(t, &ws)
		if ws.RelevanceProfile.Threshold != 0.2 {
			t.Fatalf("profile without a threshold: %v, want 0.2", ws.RelevanceProfile.Threshold)
		}
		var got workspaceJSON
		e.do("GET", path("/%d", ws.ID), e.admin, nil).want(t, http.StatusOK).decode(t, &got)
		if got.RelevanceProfile.Threshold != 0.2 {
			t.Fatalf("stored threshold %v, want 0.2", got.RelevanceProfile.Threshold)
		}
		e.do("PATCH", path("/%d", ws.ID), e.admin, map[string]any{"relevance_profile": map[string]any{"threshold": 0}}).
			want(t, http.StatusOK).decode(t, &got)
		if got.RelevanceProfile.Threshold != 0 {
			t.Fatalf("explicit threshold 0 became %v", got.RelevanceProfile.Threshold)
		}
		e.do("PATCH", path("/%d", ws.ID), e.admin, map[string]any{"relevance_profile": map[string]any{"exclusions": []string{"ads"}}}).
			want(t, http.StatusOK).decode(t, &got)
		if got.RelevanceProfile.Threshold != 0.2 {
			t.Fatalf("replaced profile without a threshold: %v, want 0.2", got.RelevanceProfile.Threshold)
		}
	})
}
