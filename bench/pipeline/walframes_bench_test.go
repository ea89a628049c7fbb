package pipeline

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/feedpoller/feedpoller/store"
)

// BenchmarkSaveWALFrames counts what a SQLite save of 20 new articles
// writes: the pages of its WAL frames, by the table or index each page
// belongs to, in a workspace of the largest archive of
// BenchmarkStoryPlacement (grown the same way; STORYBENCH_MAX narrows
// it). A page is written whole however little of it changed, so rows
// spread over a table cost a page each. The checkpoint runs by hand
// before each save, so the WAL holds that save's frames alone.
//
//	STORYBENCH_MAX=100000 go test -run XXX -bench SaveWALFrames -benchtime 20x ./bench/pipeline/
func BenchmarkSaveWALFrames(b *testing.B) {
	first := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	every := 24 * time.Hour / 1000
	sizes := benchSizes()
	n := sizes[len(sizes)-1]
	d := storyDB(b, store.SQLite)
	growArchive(b, d, newSynthNews(b, 1), 0, n, first, every)
	end := first.Add(time.Duration(n) * every)
	var path string
	if err := d.direct.QueryRow(`SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&path); err != nil {
		b.Fatal(err)
	}
	d.exec(b, `PRAGMA wal_autocheckpoint = 0`)
	qgen := newSynthNews(b, 99)
	next := 1_000_000
	pages := map[string]int{}
	frames := 0
	for b.Loop() {
		d.exec(b, `PRAGMA wal_checkpoint(TRUNCATE)`)
		p := storyPoll(b, d, qgen, next, 20, func(int) time.Time { return end }, true)
		next += 20
		if _, err := d.store.SavePoll(context.Background(), p); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		f, byName := walPages(b, d, path)
		frames += f
		for name, k := range byName {
			pages[name] += k
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(frames)/float64(b.N), "frames/save")
	var story int
	names := make([]string, 0, len(pages))
	for name, k := range pages {
		names = append(names, name)
		if strings.HasPrefix(name, "story_") {
			story += k
		}
	}
	b.ReportMetric(float64(story)/float64(b.N), "story-index-pages/save")
	slices.SortFunc(names, func(x, y string) int { return cmp.Compare(pages[y], pages[x]) })
	var line strings.Builder
	for _, name := range names[:min(10, len(names))] {
		fmt.Fprintf(&line, " %s %.1f;", name, float64(pages[name])/float64(b.N))
	}
	b.Logf("%d articles, pages written per save:%s", n, line.String())
}

// walPages reads the WAL beside the database at path: its frames, and
// the distinct pages they write by the table or index owning each
// (dbstat).
func walPages(b *testing.B, d *benchDB, path string) (int, map[string]int) {
	b.Helper()
	wal, err := os.ReadFile(path + "-wal")
	if err != nil {
		b.Fatal(err)
	}
	if len(wal) < 32 {
		return 0, nil
	}
	size := int(binary.BigEndian.Uint32(wal[8:12]))
	written := map[uint32]bool{}
	frames := 0
	for off := 32; off+24+size <= len(wal); off += 24 + size {
		written[binary.BigEndian.Uint32(wal[off:off+4])] = true
		frames++
	}
	rows, err := d.direct.Query(`SELECT name, pageno FROM dbstat`)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var name string
		var page uint32
		if err := rows.Scan(&name, &page); err != nil {
			b.Fatal(err)
		}
		if written[page] {
			out[name]++
		}
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	return frames, out
}
