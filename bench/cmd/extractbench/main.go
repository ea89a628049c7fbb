// Command extractbench runs feedpoller's extraction over the pages of the
// article-extraction benchmark (a directory holding ground-truth.json and
// html/), and:
//
//	predict  writes the Markdown of every page as a prediction file in the
//	         benchmark's format, for the evaluator's `score -format markdown`
//	scan     checks every page's Markdown for the defects a reader notices
//	         (see scan.go) and exits 1 when any is found
//	cv       turns the evaluator's per-page scores into a table
//	         cross-validated over sites (see cv.go)
package main

import (
	"fmt"
	"os"
)

const usage = `usage:
  extractbench predict -data DIR -o FILE [-md-dir DIR] [-variant NAME]
  extractbench scan    -data DIR [-v]
  extractbench cv      -data DIR [-folds N] NAME=SCORES.json...
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "predict":
		err = predictCmd(os.Args[2:])
	case "scan":
		err = scanCmd(os.Args[2:], os.Stdout)
	case "cv":
		err = cvCmd(os.Args[2:], os.Stdout)
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "extractbench %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
