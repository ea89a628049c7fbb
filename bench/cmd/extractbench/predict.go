package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/feedpoller/feedpoller/internal/benchpages"
	"github.com/feedpoller/feedpoller/sources/extract"
)

// variants are the settings the cross-validation chooses between: the
// default and each alternative worth measuring.
var variants = map[string]extract.Options{
	"default":  {},
	"captions": {KeepCaptions: true},
}

func variantNames() string {
	names := make([]string, 0, len(variants))
	for n := range variants {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func predictCmd(args []string) error {
	fs := flag.NewFlagSet("predict", flag.ContinueOnError)
	data := fs.String("data", "", "benchmark directory")
	out := fs.String("o", "", "prediction file to write")
	mdDir := fs.String("md-dir", "", "also write each page's Markdown to DIR/<id>.md")
	variant := fs.String("variant", "default", "extraction settings: "+variantNames())
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts, ok := variants[*variant]
	if !ok {
		return fmt.Errorf("unknown variant %q (have %s)", *variant, variantNames())
	}
	if *data == "" || *out == "" {
		return fmt.Errorf("-data and -o are required")
	}
	pages, err := benchpages.Load(*data)
	if err != nil {
		return err
	}
	if *mdDir != "" {
		if err := os.MkdirAll(*mdDir, 0o755); err != nil {
			return err
		}
	}
	preds := map[string]map[string]string{}
	var in, outTok, in2, out2 int
	var reductions []float64
	for _, p := range pages {
		md := ""
		doc, err := extract.Extract(p.HTML, p.URL, opts)
		if err != nil {
			fmt.Fprintf(os.Stderr, "page %s: %v\n", p.ID, err)
		} else {
			md = doc.Markdown
			st := doc.Stats
			in, outTok, in2, out2 = in+st.InputTokens, outTok+st.OutputTokens, in2+st.InputTokensO200k, out2+st.OutputTokensO200k
			reductions = append(reductions, st.TokenReduction())
		}
		preds[p.ID] = map[string]string{"articleBody": md}
		if *mdDir != "" {
			if err := os.WriteFile(filepath.Join(*mdDir, p.ID+".md"), []byte(md+"\n"), 0o644); err != nil {
				return err
			}
		}
	}
	slices.Sort(reductions)
	if len(reductions) > 0 && in > 0 && in2 > 0 {
		fmt.Fprintf(os.Stderr, "tokens over %d pages: cl100k_base %d of HTML, %d of Markdown (%.1f %% fewer); o200k_base %d, %d (%.1f %% fewer); median page %.1f %% fewer, least %.1f %%\n",
			len(reductions), in, outTok, 100*(1-float64(outTok)/float64(in)), in2, out2, 100*(1-float64(out2)/float64(in2)),
			100*reductions[len(reductions)/2], 100*reductions[0])
	}
	b, err := json.MarshalIndent(preds, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}
