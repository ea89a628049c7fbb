package model

// Keyword is one weighted term or phrase of a relevance profile.
type Keyword struct {
	Term   string  `json:"term" validate:"required,max=200"`
	Weight float64 `json:"weight" validate:"gte=0,lte=100"`
}

// RelevanceProfile is what a workspace cares about: the keywords that
// make an article relevant, the terms that exclude it, and the score it
// must reach to be promoted. A profile with no keywords promotes
// everything that is not excluded. The scorer (analysis/relevance) reads
// it; the store keeps one per workspace; the tags are those of the API's
// and the store's JSON.
type RelevanceProfile struct {
	Keywords   []Keyword `json:"keywords" validate:"max=500,dive"`
	Exclusions []string  `json:"exclusions" validate:"max=500,dive,required,max=200"`
	Threshold  float64   `json:"threshold" validate:"gte=0,lte=1"`
}
