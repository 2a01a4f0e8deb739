package viz

import "loupe/format"

// Numbering is how layers and heads are counted (format.Numbering): the
// figures take it from their Theme (Theme.Count).
type Numbering = format.Numbering

const (
	FromOne  = format.FromOne  // layer 1 is the first, as the article counts
	FromZero = format.FromZero // layer 0 is the first, as in code
)
