package ecbplus

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A document's tokens come back by sentence, and Walk names the topic and
// the gold sub-topic from the file name, skipping other files.
func TestWalkReadsDocumentsBySentence(t *testing.T) {
	dir := t.TempDir()
	xml := `<Document doc_name="36_1ecbplus.xml"><token t_id="1" sentence="0" number="0">Warren</token>` +
		`<token t_id="2" sentence="0" number="1">Jeffs</token><token t_id="3" sentence="1" number="0">Sentenced</token></Document>`
	if err := os.MkdirAll(filepath.Join(dir, "36"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"36/36_1ecbplus.xml": xml, "36/notes.txt": "not a document"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []Doc
	if err := Walk(dir, func(d Doc) error { got = append(got, d); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []Doc{{Name: "36_1ecbplus.xml", Topic: 36, Event: "36ecbplus", Sentences: [][]string{{"Warren", "Jeffs"}, {"Sentenced"}}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if err := Walk(t.TempDir(), func(Doc) error { return nil }); err == nil || !strings.Contains(err.Error(), "no ECB+ documents") {
		t.Fatalf("an empty folder: %v, want an error naming what is missing", err)
	}
}
