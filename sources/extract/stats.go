package extract

// Stats measures an extracted document.
type Stats struct {
	WordCount          int
	ReadingTimeSeconds int
	InputTokens        int
	OutputTokens       int
	CompressionRatio   float64
	Quality            float64
}

func computeStats(page []byte, d *Document) Stats { return Stats{} }

func markdownText(md string) string { return md }
