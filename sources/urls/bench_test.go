package urls

import "testing"

func BenchmarkNormalize(b *testing.B) {
	inputs := []string{
		"https://www.example.com/news/2024/05/story-title",
		"HTTPS://WWW.Example.com:443/news/./2024/../2024/story?utm_source=rss&utm_medium=feed&id=42&b=2#comments",
		"https://Bücher.example/straße?q=%c3%a9&fbclid=IwAR0abc",
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Normalize(inputs[i%len(inputs)]); err != nil {
			b.Fatal(err)
		}
	}
}
