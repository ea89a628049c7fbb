package tokens

// NewCounter builds a counter of its own, apart from the process-wide
// ones For returns, so that a benchmark can start from nothing counted.
func NewCounter(enc Encoding) (*Counter, error) { return newCounter(enc) }
