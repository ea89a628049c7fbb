package stories

import "slices"

// DecideReported is Decide for items given in any order (a poll's
// articles come in feed order): it decides them in the order they were
// reported, ties in the order given, and returns the assignments in the
// order given, with JoinsItem naming positions of that order.
func DecideReported(items []Item, candidates []Candidate, opts Options) ([]Assignment, error) {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return items[a].At.Compare(items[b].At) })
	sorted := make([]Item, len(items))
	for i, o := range order {
		sorted[i] = items[o]
	}
	decided, err := Decide(sorted, candidates, opts)
	if err != nil {
		return nil, err
	}
	out := make([]Assignment, len(items))
	for i, a := range decided {
		if a.JoinsItem >= 0 {
			a.JoinsItem = order[a.JoinsItem]
		}
		out[order[i]] = a
	}
	return out, nil
}
