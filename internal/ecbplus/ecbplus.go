// Package ecbplus reads the ECB+ corpus (CC BY 3.0; tokenised XML, one
// folder per topic, files named N_Mecb.xml and N_Mecbplus.xml) for the
// benchmarks and measurements that run on it. The corpus is not in the
// repository: they take its folder as an argument or from the
// environment.
package ecbplus

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// Doc is one document of the corpus: its file name, topic, gold
// sub-topic ("36ecb", "36ecbplus") and its tokens by sentence.
type Doc struct {
	Name      string
	Topic     int
	Event     string
	Sentences [][]string
}

var docName = regexp.MustCompile(`^(\d+)_(\d+)(ecb|ecbplus)\.xml$`)

// Walk reads every document under dir and hands each to fn, in the
// order the folder is walked (lexical).
func Walk(dir string, fn func(Doc) error) error {
	found := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		m := docName.FindStringSubmatch(d.Name())
		if d.IsDir() || m == nil {
			return nil
		}
		topic, _ := strconv.Atoi(m[1])
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		sents, err := Sentences(f)
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		found++
		return fn(Doc{Name: d.Name(), Topic: topic, Event: m[1] + m[3], Sentences: sents})
	})
	if err == nil && found == 0 {
		err = fmt.Errorf("no ECB+ documents (N_Mecb.xml, N_Mecbplus.xml) under %s", dir)
	}
	return err
}

// Sentences returns the tokens of one document, by sentence.
func Sentences(r io.Reader) ([][]string, error) {
	dec := xml.NewDecoder(r)
	var sents [][]string
	last := -1
	for {
		t, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return sents, nil
		}
		if err != nil {
			return nil, err
		}
		se, ok := t.(xml.StartElement)
		if !ok || se.Name.Local != "token" {
			continue
		}
		var tok struct {
			Sentence int    `xml:"sentence,attr"`
			Text     string `xml:",chardata"`
		}
		if err := dec.DecodeElement(&tok, &se); err != nil {
			return nil, err
		}
		if tok.Sentence != last || len(sents) == 0 {
			sents = append(sents, nil)
			last = tok.Sentence
		}
		sents[len(sents)-1] = append(sents[len(sents)-1], tok.Text)
	}
}
