package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/feedpoller/feedpoller/store"
)

func runSQL(ctx context.Context, env *cliEnv, args []string) error {
	fs := newFlags(env, "sql", `sql "SELECT …"`)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return errUsage
	}
	return withStore(ctx, env, func(st *store.Store) error {
		return st.QueryReadOnly(ctx, pos[0], func(vals []string) error {
			for i, v := range vals {
				vals[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(v)
			}
			_, err := fmt.Fprintln(env.stdout, strings.Join(vals, "\t"))
			return err
		})
	})
}
