package format

import "strconv"

// Numbering is how layers and heads are counted wherever they are named:
// from 1, as the article does ("layer 19" is index 18), or from 0, as the
// code and the tensor names (model.layers.18) do. Token positions are
// always counted from 0: they are indices into the sequence, not names.
//
// The zero value counts from 1. Every figure takes it from its Theme
// (viz.Theme.Count); the window carries one in its session, set by
// View › Count layers and heads.
type Numbering int

const (
	FromOne  Numbering = iota // layer 1 is the first, as the article counts
	FromZero                  // layer 0 is the first, as in code
)

// Base is the number given to index 0.
func (n Numbering) Base() int {
	if n == FromZero {
		return 0
	}
	return 1
}

// Index names index i (0-based) as the reader counts: "19" for 18 from 1.
func (n Numbering) Index(i int) string { return strconv.Itoa(i + n.Base()) }

// Layer is "layer 19" for index 18 counted from 1.
func (n Numbering) Layer(i int) string { return "layer " + n.Index(i) }

// Head is "head 2" for index 1 counted from 1.
func (n Numbering) Head(i int) string { return "head " + n.Index(i) }

// KVHead is "K/V head 1" for index 0 counted from 1.
func (n Numbering) KVHead(i int) string { return "K/V head " + n.Index(i) }

// Range is "1…28" for 28 indices counted from 1 ("0…27" from 0).
func (n Numbering) Range(count int) string {
	if count <= 0 {
		return "none"
	}
	return n.Index(0) + "…" + n.Index(count-1)
}

// String names the setting, for menus and captions.
func (n Numbering) String() string {
	if n == FromZero {
		return "counted from 0"
	}
	return "counted from 1"
}
