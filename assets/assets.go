// Package assets holds files Loupe ships inside its binary.
package assets

import _ "embed"

// QwenTokenizer is the Qwen2.5 tokenizer.json (see testdata/SOURCES.md):
// the tokenizer of every model gen-model writes.
//
//go:embed qwen2.5/tokenizer.json
var QwenTokenizer []byte
