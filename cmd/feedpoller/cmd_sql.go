package main

import (
	"context"
	"fmt"
	"strings"
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
	cfg, err := env.config()
	if err != nil {
		return err
	}
	st, err := openStore(ctx, cfg, newLogger(cfg))
	if err != nil {
		return err
	}
	defer st.Close()
	return st.QueryReadOnly(ctx, pos[0], func(vals []string) error {
		for i, v := range vals {
			vals[i] = strings.NewReplacer("\t", " ", "\n", " ").Replace(v)
		}
		_, err := fmt.Fprintln(env.stdout, strings.Join(vals, "\t"))
		return err
	})
}
