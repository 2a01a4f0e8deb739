package assets

import _ "embed"

// GoldBugPassage is the passage of Edgar Allan Poe's The Gold-Bug the
// article reads and times (3,139 tokens with the Qwen2.5 tokenizer):
// Legrand's explanation of the cryptogram (see testdata/SOURCES.md). The
// benchmarks, the experiments and the lesson's timing chapters all read
// this one copy.
//
//go:embed texts/gold-bug-passage.txt
var GoldBugPassage string
