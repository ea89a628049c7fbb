package digest

// Render renders a built digest in format: the body and its media type.
// maxTokens (0: DefaultMaxTokens) and tc are used by the compact format
// only.
func Render(d *Digest, format Format, maxTokens int, tc TokenCounter) ([]byte, string, error) {
	switch format {
	case FormatJSON:
		b, err := JSON(d)
		return b, "application/json", err
	case FormatCompact:
		if maxTokens == 0 {
			maxTokens = DefaultMaxTokens
		}
		s, err := Compact(d, maxTokens, tc)
		return []byte(s), "text/plain; charset=utf-8", err
	case FormatMarkdown, "":
		return []byte(Markdown(d)), "text/markdown; charset=utf-8", nil
	}
	_, err := ParseFormat(string(format))
	return nil, "", err
}
