package main

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// The stream: ECB+ has no dates, so the benchmark draws them. Every
// topic gets a time in one week; its events (the ECB and the ECB+
// sub-topic) happen within hours of each other, so that two events of
// one kind are always inside one story window together; each article is
// reported some hours after its event. Articles are then delivered the
// way the daemon sees them: by outlet, one poll at a time, each poll
// bringing everything the outlet reported since its previous poll; some
// outlets are added late in the week, and their first poll brings all
// they reported before. Everything is drawn from one seed.

// streamStart is the Monday the drawn week starts on.
var streamStart = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

const (
	week = 7 * 24 * time.Hour
	// eventSpread is how far after its topic's time an event happens.
	eventSpread = 8 * time.Hour
	// meanLag is the mean delay of a report after its event
	// (exponential), capped at maxLag.
	meanLag = 6 * time.Hour
	maxLag  = 3 * 24 * time.Hour
	// syntheticOutlets carry the older ECB documents, which have no
	// address.
	syntheticOutlets = 40
	// lateShare is the share of outlets added during the week.
	lateShare = 0.15
)

// pollIntervals are the outlets' polling intervals, one drawn per outlet.
var pollIntervals = []time.Duration{15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour}

// article is one document placed in the stream.
type article struct {
	doc
	Outlet     string
	ReportedAt time.Time
	// PolledAt is when the poll that delivered it ran.
	PolledAt time.Time
}

// poll is one visit to an outlet: what it delivered, in the order
// reported.
type poll struct {
	At       time.Time
	Outlet   string
	Articles []int // positions in the stream's articles
}

// stream is the benchmark's input: the articles and the polls that
// deliver them, in the order they ran.
type stream struct {
	Articles []article
	Polls    []poll
}

// buildStream draws reporting times and polls for the documents.
func buildStream(docs []doc, seed uint64) stream {
	rng := rand.New(rand.NewPCG(seed, 0x5eed_ecb0))
	topicAt := map[int]time.Duration{}
	eventAt := map[string]time.Duration{}
	var arts []article
	for _, d := range docs {
		if _, ok := topicAt[d.Topic]; !ok {
			topicAt[d.Topic] = time.Duration(rng.Int64N(int64(week - 24*time.Hour)))
		}
		if _, ok := eventAt[d.Event]; !ok {
			eventAt[d.Event] = topicAt[d.Topic] + time.Duration(rng.Int64N(int64(eventSpread)))
		}
		lag := min(time.Duration(rng.ExpFloat64()*float64(meanLag)), maxLag)
		at := min(eventAt[d.Event]+lag, week-time.Minute)
		outlet := outletOf(d.URL)
		if outlet == "" {
			// Outlet popularity falls off like a Zipf law.
			outlet = fmt.Sprintf("outlet-%02d.example", zipf(rng, syntheticOutlets))
		}
		arts = append(arts, article{doc: d, Outlet: outlet, ReportedAt: streamStart.Add(at).Truncate(time.Second)})
	}
	// Each outlet: an interval, a phase, and for some a late start.
	type schedule struct {
		every time.Duration
		first time.Time
	}
	var outlets []string
	for _, a := range arts {
		outlets = append(outlets, a.Outlet)
	}
	slices.Sort(outlets)
	outlets = slices.Compact(outlets)
	sched := map[string]schedule{}
	for _, o := range outlets {
		every := pollIntervals[rng.IntN(len(pollIntervals))]
		first := streamStart.Add(time.Duration(rng.Int64N(int64(every))))
		if rng.Float64() < lateShare {
			first = first.Add(24*time.Hour + time.Duration(rng.Int64N(int64(5*24*time.Hour))))
		}
		sched[o] = schedule{every, first}
	}
	byPoll := map[string]*poll{}
	for i := range arts {
		a := &arts[i]
		s := sched[a.Outlet]
		at := s.first
		if a.ReportedAt.After(at) {
			n := a.ReportedAt.Sub(s.first) / s.every
			at = s.first.Add(n * s.every)
			if at.Before(a.ReportedAt) {
				at = at.Add(s.every)
			}
		}
		a.PolledAt = at
		key := a.Outlet + "@" + at.Format(time.RFC3339)
		p, ok := byPoll[key]
		if !ok {
			p = &poll{At: at, Outlet: a.Outlet}
			byPoll[key] = p
		}
		p.Articles = append(p.Articles, i)
	}
	st := stream{Articles: arts}
	for _, p := range byPoll {
		slices.SortFunc(p.Articles, func(x, y int) int {
			if c := arts[x].ReportedAt.Compare(arts[y].ReportedAt); c != 0 {
				return c
			}
			return cmp.Compare(arts[x].Name, arts[y].Name)
		})
		st.Polls = append(st.Polls, *p)
	}
	slices.SortFunc(st.Polls, func(x, y poll) int {
		if c := x.At.Compare(y.At); c != 0 {
			return c
		}
		return cmp.Compare(x.Outlet, y.Outlet)
	})
	return st
}

// zipf draws 1..n with probability proportional to 1/k.
func zipf(rng *rand.Rand, n int) int {
	var total float64
	for k := 1; k <= n; k++ {
		total += 1 / float64(k)
	}
	x := rng.Float64() * total
	for k := 1; k <= n; k++ {
		x -= 1 / float64(k)
		if x <= 0 {
			return k
		}
	}
	return n
}
