package tokenizer

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// miniTokenizer is a small Qwen2-style tokenizer.json (the 256 byte-level
// tokens, three merges, one special token), so that the fuzzer mutates a
// valid structure quickly; the demo model's file is a seed too.
func miniTokenizer() []byte {
	var vocab []string
	for b := range 256 {
		vocab = append(vocab, fmt.Sprintf("%q:%d", string(byteToRune[b]), b))
	}
	vocab = append(vocab, `"ab":256`, `"Ġab":257`, `"Ġc":258`)
	return []byte(`{"version":"1.0","added_tokens":[{"id":259,"content":"<|endoftext|>","special":true,"single_word":false,"lstrip":false,"rstrip":false,"normalized":false}],
"normalizer":{"type":"NFC"},
"pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"Split","pattern":{"Regex":"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},"behavior":"Isolated","invert":false},{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":false,"use_regex":false}]},
"decoder":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":false,"use_regex":false},
"model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":"","end_of_word_suffix":"","fuse_unk":false,"byte_fallback":false,"ignore_merges":false,
"vocab":{` + strings.Join(vocab, ",") + `},"merges":["a b","Ġ ab","Ġ c"]}}`)
}

// miniSPMTokenizer is a small Llama 2-style tokenizer.json: ▁ normalizer,
// byte fallback, BOS template, Strip decoder.
func miniSPMTokenizer() []byte {
	vocab := []string{`"<unk>":0`, `"<s>":1`, `"</s>":2`}
	for b := range 256 {
		vocab = append(vocab, fmt.Sprintf(`"<0x%02X>":%d`, b, 3+b))
	}
	vocab = append(vocab, `"▁":259`, `"a":260`, `"b":261`, `"▁a":262`, `"ab":263`, `"▁ab":264`)
	return []byte(`{"added_tokens":[{"id":0,"content":"<unk>","special":true},{"id":1,"content":"<s>","special":true},{"id":2,"content":"</s>","special":true}],
"normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},{"type":"Replace","pattern":{"String":" "},"content":"▁"}]},
"pre_tokenizer":null,
"post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}},
"decoder":{"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"▁"},"content":" "},{"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]},
"model":{"type":"BPE","unk_token":"<unk>","byte_fallback":true,"vocab":{` + strings.Join(vocab, ",") + `},"merges":["▁ a","a b","▁ ab"]}}`)
}

// FuzzParse feeds arbitrary bytes as tokenizer.json: Parse returns an
// error or a tokenizer whose Encode and Decode work on any text, never a
// panic (formats of outside data must fail cleanly, docs/spec/formats.md B.8 step 18).
func FuzzParse(f *testing.F) {
	mini := miniTokenizer()
	if _, err := Parse(mini); err != nil {
		f.Fatalf("the seed tokenizer does not parse: %v", err)
	}
	f.Add(mini)
	spm := miniSPMTokenizer()
	if _, err := Parse(spm); err != nil {
		f.Fatalf("the SentencePiece seed does not parse: %v", err)
	}
	f.Add(spm)
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{"a":0},"merges":[["a","a"]]}}`))
	f.Add([]byte(`{"model":{"type":"BPE","vocab":{"a":99999999999},"merges":[]}}`))
	f.Add([]byte(`{"added_tokens":[{"id":-1,"content":""}],"model":{"type":"BPE","vocab":{"a":0}}}`))
	if !testing.Short() {
		if b, err := os.ReadFile("../../assets/demo/tokenizer.json"); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := Parse(data)
		if err != nil {
			return
		}
		for _, s := range []string{"ab ab", "a\xffb", "<|endoftext|> x", "😀 é"} {
			ids := tok.Encode(s)
			for _, id := range ids {
				if id < 0 || id >= tok.VocabSize() {
					t.Fatalf("Encode(%q) gave id %d of %d", s, id, tok.VocabSize())
				}
			}
			tok.Decode(ids)
			tok.DecodeText(-1, ids)
		}
	})
}
