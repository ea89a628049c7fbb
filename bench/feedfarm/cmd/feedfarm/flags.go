package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/feedpoller/feedpoller/bench/feedfarm"
)

// config is what the command line asked for.
type config struct {
	listen        string
	allowExternal bool
	opts          feedfarm.Options
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("feedfarm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.listen, "listen", "127.0.0.1:0", "address to listen on (loopback only unless -allow-external)")
	fs.BoolVar(&cfg.allowExternal, "allow-external", false, "allow listening on a non-loopback address")
	fs.IntVar(&cfg.opts.Feeds, "feeds", 1000, "number of feeds")
	fs.IntVar(&cfg.opts.ItemsPerFeed, "items", feedfarm.DefaultItemsPerFeed, "items per feed")
	fs.IntVar(&cfg.opts.BodyBytes, "body", feedfarm.DefaultBodyBytes, "approximate HTML body bytes per item")
	fs.Float64Var(&cfg.opts.ChangeShare, "change", 0.1, "share of feeds that gain a new item on every request after their first (0..1)")
	fs.DurationVar(&cfg.opts.Latency, "latency", 0, "delay before every feed and item response")
	fs.Int64Var(&cfg.opts.Seed, "seed", 1, "seed for all content")
	fs.DurationVar(&cfg.opts.DateSpread, "spread", 0, "feeds start within this much of the farm's epoch (default 720h); a short spread makes the feeds report the same days, and with -text news the same events")
	fs.IntVar(&cfg.opts.KeepTimes, "keep-times", feedfarm.DefaultKeepTimes, "request times kept per feed for /_stats (0 or less: none)")
	fs.BoolVar(&cfg.opts.Sites, "sites", false, "give every feed a site of its own: items link to http://feed{n}.example (not served), so readers count the feeds as independent sources")
	text := fs.String("text", "uniform", "text model: uniform (every word drawn from ~190) or news (Zipf-distributed words, items reporting shared time-bound events)")
	format := fs.String("format", "mixed", "feed format: mixed (even feeds RSS, odd Atom), rss or atom")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if cfg.opts.Text, err = feedfarm.ParseText(*text); err != nil {
		return config{}, fmt.Errorf("-text: %w", err)
	}
	switch *format {
	case "mixed":
		cfg.opts.Format = feedfarm.FormatMixed
	case "rss":
		cfg.opts.Format = feedfarm.FormatRSS
	case "atom":
		cfg.opts.Format = feedfarm.FormatAtom
	default:
		return config{}, fmt.Errorf("-format %q: want mixed, rss or atom", *format)
	}
	switch {
	case cfg.opts.Feeds <= 0:
		return config{}, fmt.Errorf("-feeds %d: want at least 1", cfg.opts.Feeds)
	case cfg.opts.ItemsPerFeed <= 0:
		return config{}, fmt.Errorf("-items %d: want at least 1", cfg.opts.ItemsPerFeed)
	case cfg.opts.BodyBytes <= 0:
		return config{}, fmt.Errorf("-body %d: want at least 1", cfg.opts.BodyBytes)
	case !(cfg.opts.ChangeShare >= 0 && cfg.opts.ChangeShare <= 1):
		return config{}, fmt.Errorf("-change %v: want a share between 0 and 1", cfg.opts.ChangeShare)
	case cfg.opts.Latency < 0:
		return config{}, fmt.Errorf("-latency %v: want zero or more", cfg.opts.Latency)
	case cfg.opts.DateSpread < 0:
		return config{}, fmt.Errorf("-spread %v: want zero or more", cfg.opts.DateSpread)
	}
	if cfg.opts.KeepTimes == 0 {
		cfg.opts.KeepTimes = -1 // 0 on the command line means none, not the default
	}
	return cfg, nil
}
