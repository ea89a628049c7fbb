package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/feedpoller/feedpoller/model"
	"github.com/feedpoller/feedpoller/service"
)

const webhooksHelp = `Usage: feedpoller webhooks add --workspace ID --url URL [--secret S] [--event E]... [--quiet]
       feedpoller webhooks list --workspace ID
       feedpoller webhooks enable|disable --workspace ID WEBHOOK_ID
       feedpoller webhooks delete --workspace ID WEBHOOK_ID
       feedpoller webhooks deliveries --workspace ID [--status pending|delivered|failed] [--limit N] WEBHOOK_ID

A webhook receives every promoted content item of its workspace as a signed JSON POST
(see docs/webhooks.md); the daemon (serve) sends them. The URL must pass the fetcher's
address policy (internal hosts only when allowed by FEEDPOLLER_FETCH_ALLOW_PRIVATE_NETWORKS
or FEEDPOLLER_FETCH_ALLOW). Without --secret one is generated and printed once.`

func runWebhooks(ctx context.Context, env *cliEnv, args []string) error {
	return subcommands(ctx, env, "webhooks", webhooksHelp, args, map[string]func(context.Context, *cliEnv, []string) error{
		"add": webhooksAdd, "list": webhooksList, "delete": webhooksDelete, "deliveries": webhooksDeliveries,
		"enable": webhooksSetActive(true), "disable": webhooksSetActive(false),
	})
}

func webhooksAdd(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "webhooks add", "webhooks add --workspace ID --url URL [--secret S] [--event E]... [--quiet]")
	wsID := fs.Int64("workspace", 0, "workspace id (required)")
	url := fs.String("url", "", "where deliveries are POSTed (required)")
	secret := fs.String("secret", "", "signing secret, 16 characters at least (default: generated and printed once)")
	var events listFlag
	fs.Var(&events, "event", "an event to send (repeatable; default every event: content_item.promoted)")
	quiet := fs.Bool("quiet", false, "print only the id (and a generated secret on the next line)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *wsID <= 0 {
		return fmt.Errorf("--workspace is required")
	}
	spec := service.WebhookSpec{URL: *url, Events: events}
	if setFlags(fs)["secret"] {
		spec.Secret = secret
	}
	return withService(ctx, env, func(svc *service.Service) error {
		c, err := svc.CreateWebhook(ctx, *wsID, spec)
		if err != nil {
			return err
		}
		if *quiet {
			fmt.Fprintln(env.stdout, c.Webhook.ID)
			if c.Secret != "" {
				fmt.Fprintln(env.stdout, c.Secret)
			}
			return nil
		}
		fmt.Fprintf(env.stdout, "webhook %d added to workspace %d: %s (%s)\n", c.Webhook.ID, c.Webhook.WorkspaceID, c.Webhook.URL,
			strings.Join(c.Webhook.Events, ", "))
		if c.Secret != "" {
			fmt.Fprintf(env.stdout, "secret (shown this once; it signs every delivery): %s\n", c.Secret)
		}
		return nil
	})
}

func webhooksList(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "webhooks list", "webhooks list --workspace ID")
	wsID := fs.Int64("workspace", 0, "workspace id (required)")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *wsID <= 0 {
		return fmt.Errorf("--workspace is required")
	}
	return withService(ctx, env, func(svc *service.Service) error {
		hooks, err := svc.ListWebhooks(ctx, *wsID)
		if err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, "ID\tACTIVE\tEVENTS\tURL\tDISABLED BECAUSE")
		for _, h := range hooks {
			fmt.Fprintf(env.stdout, "%d\t%v\t%s\t%s\t%s\n", h.ID, h.IsActive, strings.Join(h.Events, ","), h.URL, h.DisabledReason)
		}
		return nil
	})
}

// webhookArg parses --workspace and the one WEBHOOK_ID argument.
func webhookArg(env *cliEnv, name, synopsis string, args []string, more func(*flag.FlagSet)) (ws, id int64, err error) {
	fs := newFlags(env, name, synopsis)
	wsID := fs.Int64("workspace", 0, "workspace id (required)")
	if more != nil {
		more(fs)
	}
	arg, err := oneArg(fs, args)
	if err != nil {
		return 0, 0, err
	}
	if *wsID <= 0 {
		return 0, 0, fmt.Errorf("--workspace is required")
	}
	id, err = strconv.ParseInt(arg, 10, 64)
	if err != nil || id <= 0 {
		return 0, 0, fmt.Errorf("webhook id %q is not a positive whole number", arg)
	}
	return *wsID, id, nil
}

func webhooksSetActive(active bool) func(context.Context, *cliEnv, []string) error {
	verb := map[bool]string{true: "enable", false: "disable"}[active]
	return func(ctx context.Context, env *cliEnv, args []string) error {
		ws, id, err := webhookArg(env, "webhooks "+verb, "webhooks "+verb+" --workspace ID WEBHOOK_ID", args, nil)
		if err != nil {
			return err
		}
		return withService(ctx, env, func(svc *service.Service) error {
			h, err := svc.SetWebhookActive(ctx, ws, id, active)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.stdout, "webhook %d %sd\n", h.ID, verb)
			return nil
		})
	}
}

func webhooksDelete(ctx context.Context, env *cliEnv, args []string) error {
	ws, id, err := webhookArg(env, "webhooks delete", "webhooks delete --workspace ID WEBHOOK_ID", args, nil)
	if err != nil {
		return err
	}
	return withService(ctx, env, func(svc *service.Service) error {
		if err := svc.DeleteWebhook(ctx, ws, id); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "webhook %d deleted with its delivery log\n", id)
		return nil
	})
}

func webhooksDeliveries(ctx context.Context, env *cliEnv, args []string) error {
	var status *string
	var limit *int
	ws, id, err := webhookArg(env, "webhooks deliveries",
		"webhooks deliveries --workspace ID [--status pending|delivered|failed] [--limit N] WEBHOOK_ID", args, func(fs *flag.FlagSet) {
			status = fs.String("status", "", "only deliveries in this state: pending, delivered or failed")
			limit = fs.Int("limit", 50, "newest deliveries shown at most (1..200)")
		})
	if err != nil {
		return err
	}
	return withService(ctx, env, func(svc *service.Service) error {
		ds, err := svc.ListDeliveries(ctx, ws, id, model.DeliveryFilter{Status: *status, Limit: *limit})
		if err != nil {
			return err
		}
		fmt.Fprintln(env.stdout, "DELIVERY\tSTATUS\tATTEMPTS\tCONTENT ITEM\tCREATED\tLAST ERROR / REASON")
		for _, d := range ds {
			item := "-"
			if d.ContentItemID != nil {
				item = strconv.FormatInt(*d.ContentItemID, 10)
			}
			note := d.LastError
			if d.FailureReason != "" {
				note = d.FailureReason
			}
			fmt.Fprintf(env.stdout, "%s\t%s\t%d\t%s\t%s\t%s\n", d.ID, d.Status, d.Attempts, item,
				d.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), note)
		}
		return nil
	})
}
