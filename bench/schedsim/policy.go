package schedsim

import (
	"math/rand/v2"
	"time"

	"github.com/feedpoller/feedpoller/poller/schedule"
)

// Policy is a way of scheduling polls, run on every source.
type Policy struct {
	Name string
	// WebSub: the policy takes pushes from sources that offer a hub.
	WebSub bool
	// New starts the scheduler of one source.
	New func(src *Source, seed uint64) Scheduler
}

// Poll is what the scheduler learns from one simulated poll.
type Poll struct {
	Obs schedule.Observation
	// MaxAge is the Cache-Control max-age as sent, before the Age the
	// CDN's copy already had (Obs.Hints.MaxAge is what is left of it).
	MaxAge time.Duration
}

// Scheduler decides one source's polls.
type Scheduler interface {
	// Next is when to poll after the poll at now.
	Next(now time.Time, p Poll) time.Time
	// Push takes an item delivered by WebSub at now.
	Push(now, published time.Time)
}

// Fixed is today's daemon: every 30 minutes with 10% jitter, through the
// scheduling package in fixed mode.
func Fixed() Policy {
	return Policy{Name: "fixed 30m", New: func(_ *Source, seed uint64) Scheduler {
		cfg := schedule.Config{Mode: schedule.Fixed, Base: 30 * time.Minute, Jitter: 0.1,
			Rand: rand.New(rand.NewPCG(seed, 1)).Float64}
		return &ours{cfg: cfg, keepInMemory: true}
	}}
}

// Adaptive is the scheduling package with its defaults, its state stored
// and read back as text at every poll, as the daemon stores it.
// Zero target and balance take the package's defaults.
func Adaptive(webSub bool, target, balance time.Duration) Policy {
	name := "adaptive"
	if webSub {
		name = "adaptive + WebSub"
	}
	return Policy{Name: name, WebSub: webSub, New: func(_ *Source, seed uint64) Scheduler {
		cfg := schedule.Config{Base: 30 * time.Minute, Jitter: 0.1, Target: target, Balance: balance,
			Rand: rand.New(rand.NewPCG(seed, 2)).Float64}
		return &ours{cfg: cfg, subscribed: webSub, kinds: map[schedule.Kind]int{}}
	}}
}

// ours runs poller/schedule.
type ours struct {
	cfg          schedule.Config
	subscribed   bool
	keepInMemory bool
	mem          schedule.State
	text         []byte
	kinds        map[schedule.Kind]int
	maxText      int
}

func (o *ours) load() schedule.State {
	if o.keepInMemory {
		return o.mem
	}
	var s schedule.State
	if err := s.UnmarshalText(o.text); err != nil {
		panic("schedule state does not read back: " + err.Error())
	}
	return s
}

func (o *ours) store(s schedule.State) {
	if o.keepInMemory {
		o.mem = s
		return
	}
	text, err := s.MarshalText()
	if err != nil {
		panic(err)
	}
	o.text = text
	o.maxText = max(o.maxText, len(text))
}

func (o *ours) Next(now time.Time, p Poll) time.Time {
	p.Obs.Subscribed = p.Obs.Subscribed && o.subscribed
	d, s := schedule.Next(now, o.cfg, o.load(), p.Obs)
	o.store(s)
	if o.kinds != nil {
		o.kinds[d.Kind]++
	}
	return d.At
}

func (o *ours) Push(now, published time.Time) {
	o.store(schedule.Learn(now, o.cfg, o.load(),
		schedule.Observation{NewItems: 1, Published: []time.Time{published}}))
}
