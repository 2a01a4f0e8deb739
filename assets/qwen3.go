package assets

import (
	"bytes"
	_ "embed"
	"sync"
)

// Qwen3TokenizerConfig is Qwen3's tokenizer_config.json (see
// testdata/SOURCES.md), chat template with enable_thinking included: the
// one gen-model writes into Qwen3-shaped models.
//
//go:embed qwen3/tokenizer_config.json
var Qwen3TokenizerConfig []byte

// qwen3Added are the four added tokens Qwen3 has after Qwen2.5's 22
// (docs/spec/qwen3.md §4), serialised like the others in QwenTokenizer.
const qwen3Added = `,{"id":151665,"content":"<tool_response>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":false}` +
	`,{"id":151666,"content":"</tool_response>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":false}` +
	`,{"id":151667,"content":"<think>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":false}` +
	`,{"id":151668,"content":"</think>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":false}`

// endOfAdded is where QwenTokenizer's added_tokens list closes (once).
const endOfAdded = `}],"normalizer"`

var qwen3Tok = sync.OnceValue(func() []byte {
	return bytes.Replace(QwenTokenizer, []byte(endOfAdded), []byte("}"+qwen3Added+`],"normalizer"`), 1)
})

// Qwen3Tokenizer returns the Qwen3 tokenizer.json: QwenTokenizer with the
// four Qwen3 added tokens appended, which is byte for byte the content of
// the upstream file re-serialised (same vocabulary, merges and regex).
// Callers must not modify the slice.
func Qwen3Tokenizer() []byte { return qwen3Tok() }
