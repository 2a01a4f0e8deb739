package tokenizer

import (
	"bytes"
	"testing"
)

// FuzzFromVocab builds GGUF-style vocabularies from arbitrary bytes — the
// tokens split at NUL, a type and a score per token taken from the bytes,
// merges from pairs of tokens, every model and pre-tokenizer Loupe reads —
// and checks that FromVocab refuses them or gives a tokenizer whose
// Encode, Decode and DecodeText work on any text with ids in range.
func FuzzFromVocab(f *testing.F) {
	f.Add([]byte("<unk>\x00<s>\x00</s>\x00<0x41>\x00\xe2\x96\x81\x00a\x00b\x00\xe2\x96\x81a\x00ab"), byte(0), []byte{2, 3, 3, 6, 1, 1, 1, 1, 1})
	f.Add([]byte("a\x00b\x00ab\x00\xc4\xa0\x00<|endoftext|>"), byte(3), []byte{1, 1, 1, 1, 3})
	f.Add([]byte("1\x002\x0012\x00 \x00x"), byte(5), []byte{1, 1, 1, 1, 1})
	pres := []string{"", "qwen2", "llama-bpe", "gpt-2", "smollm", "default", "bogus"}
	f.Fuzz(func(t *testing.T, data []byte, sel byte, types []byte) {
		tokens := bytes.Split(data, []byte{0})
		if len(tokens) > 4096 {
			return
		}
		v := Vocab{Model: "llama", BOS: -1, UNK: -1}
		if sel&1 == 1 {
			v.Model = "gpt2"
		}
		v.Pre = pres[int(sel>>1)%len(pres)]
		v.AddSpacePrefix = sel&0x80 != 0
		for i, tk := range tokens {
			v.Tokens = append(v.Tokens, string(tk))
			typ := int32(1)
			if i < len(types) {
				typ = int32(types[i]%7) + 1 // 7 is out of range: refused
			}
			v.Types = append(v.Types, typ)
			v.Scores = append(v.Scores, float32(int(sel)-i))
			if i > 0 {
				v.Merges = append(v.Merges, v.Tokens[i-1]+" "+v.Tokens[i])
			}
		}
		if len(v.Tokens) > 1 {
			v.BOS, v.AddBOS = 1, sel&0x40 != 0
		}
		tok, err := FromVocab(v)
		if err != nil {
			return
		}
		for _, s := range []string{"", "ab ab", "a\xffb", "<s> x", "😀 é 123", string(data)} {
			ids := tok.Encode(s)
			for _, id := range ids {
				if id < 0 || id >= tok.VocabSize() {
					t.Fatalf("Encode(%q) gave id %d of %d", s, id, tok.VocabSize())
				}
			}
			tok.Decode(ids)
			tok.DecodeText(-1, ids)
			tok.DecodeText(v.BOS, ids)
			tok.EncodeTemplate(s)
		}
	})
}
