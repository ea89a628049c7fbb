package main

import (
	"context"
	"fmt"
	"io"

	"github.com/feedpoller/feedpoller/model"
)

func runPoll(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "poll", "poll [--source ID]")
	sourceID := fs.Int64("source", 0, "poll only this source, due or not")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	a, err := env.wire(ctx)
	if err != nil {
		return err
	}
	defer a.Close()
	if *sourceID != 0 {
		out, err := a.svc.PollSource(ctx, 0, *sourceID)
		if err != nil {
			return err
		}
		printOutcome(env.stdout, out)
		return nil
	}
	polled, failed := 0, 0
	err = a.poller.PollDue(ctx, func(o model.PollOutcome, err error) {
		if err != nil {
			failed++
			fmt.Fprintf(env.stdout, "source %d: not recorded: %v\n", o.SourceID, err)
			return
		}
		polled++
		printOutcome(env.stdout, o)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "%d sources polled\n", polled)
	if failed > 0 {
		return fmt.Errorf("%d polls could not be recorded", failed)
	}
	return nil
}

func printOutcome(w io.Writer, o model.PollOutcome) {
	fmt.Fprintf(w, "source %d (%s): %s http=%d seen=%d new=%d duplicate=%d promoted=%d %dms",
		o.SourceID, o.SourceType, o.Status, o.HTTPStatus, o.ItemsSeen, o.ItemsNew, o.ItemsDuplicate, o.ItemsPromoted, o.DurationMS)
	if !o.NextPollAt.IsZero() {
		fmt.Fprintf(w, " next=%s (%s)", o.NextPollAt.UTC().Format(listTime), o.NextPollReason)
	}
	if o.Error != "" {
		fmt.Fprintf(w, " error=%q", o.Error)
	}
	fmt.Fprintln(w)
}
