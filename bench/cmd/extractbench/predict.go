package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
	pages, err := loadPages(*data)
	if err != nil {
		return err
	}
	if *mdDir != "" {
		if err := os.MkdirAll(*mdDir, 0o755); err != nil {
			return err
		}
	}
	preds := map[string]map[string]string{}
	for _, p := range pages {
		md := ""
		doc, err := extract.Extract(p.HTML, p.URL, opts)
		if err != nil {
			fmt.Fprintf(os.Stderr, "page %s: %v\n", p.ID, err)
		} else {
			md = doc.Markdown
		}
		preds[p.ID] = map[string]string{"articleBody": md}
		if *mdDir != "" {
			if err := os.WriteFile(filepath.Join(*mdDir, p.ID+".md"), []byte(md+"\n"), 0o644); err != nil {
				return err
			}
		}
	}
	b, err := json.MarshalIndent(preds, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(*out, b, 0o644)
}
