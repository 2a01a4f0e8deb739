package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine/gguf"
)

// storyTokens is a SentencePiece vocabulary laid out as llama.cpp's
// convert-llama2c-to-ggml writes the llama2.c tokenizer: <unk> (unknown),
// <s> and </s> (control), byte tokens, then pieces with scores. Only the
// ASCII byte tokens are present, so that any sequence a random model
// picks is valid UTF-8 and the text can be compared exactly.
func storyTokens(n int) (tokens []string, types []int32, scores []float32) {
	add := func(s string, typ int32) {
		tokens, types, scores = append(tokens, s), append(types, typ), append(scores, -float32(len(tokens)))
	}
	add("<unk>", 2)
	add("<s>", 3)
	add("</s>", 3)
	for b := range 128 {
		add(fmt.Sprintf("<0x%02X>", b), 6)
	}
	// each word with its prefixes, so that merging reaches it
	for _, w := range []string{"▁Once", "▁upon", "▁a", "▁time", ",", "▁there", "▁was", ".", "你", "▁好", "é", "▁é"} {
		for i := range w {
			if i > 0 && !slices.Contains(tokens, w[:i]) {
				add(w[:i], 1)
			}
		}
		add(w, 1)
	}
	for len(tokens) < n {
		add(fmt.Sprintf("▁w%d", len(tokens)), 1)
	}
	return tokens, types, scores
}

// writeStoryGGUF writes a random Llama model (h 64, 2 layers, vocabulary
// 300) as llama.cpp's llama2.c converter would: architecture llama, F32
// tensors in GGUF order, context_length 128, no add_bos_token key (llama
// vocabularies then add BOS) and no add_space_prefix (default true).
func writeStoryGGUF(t *testing.T, extra ...gguf.KV) (path string, tokens []string, types []int32) {
	t.Helper()
	const h, inter, layers, heads, vocab = 64, 128, 2, 4, 300
	tokens, types, scores := storyTokens(vocab)
	kv := []gguf.KV{
		{Key: "general.architecture", Value: "llama"},
		{Key: "general.name", Value: "llama"},
		{Key: "llama.context_length", Value: uint32(128)},
		{Key: "llama.embedding_length", Value: uint32(h)},
		{Key: "llama.feed_forward_length", Value: uint32(inter)},
		{Key: "llama.attention.head_count", Value: uint32(heads)},
		{Key: "llama.attention.head_count_kv", Value: uint32(heads)},
		{Key: "llama.block_count", Value: uint32(layers)},
		{Key: "llama.rope.dimension_count", Value: uint32(h / heads)},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: float32(1e-5)},
		{Key: "tokenizer.ggml.model", Value: "llama"},
		{Key: "tokenizer.ggml.tokens", Value: tokens},
		{Key: "tokenizer.ggml.scores", Value: scores},
		{Key: "tokenizer.ggml.token_type", Value: types},
		{Key: "tokenizer.ggml.unknown_token_id", Value: uint32(0)},
		{Key: "tokenizer.ggml.bos_token_id", Value: uint32(1)},
		{Key: "tokenizer.ggml.eos_token_id", Value: uint32(2)},
	}
	kv = append(kv, extra...)
	r := rand.New(rand.NewPCG(7, 8))
	tensor := func(name string, scale float64, dims ...uint64) gguf.WriteTensor {
		n := uint64(1)
		for _, d := range dims {
			n *= d
		}
		b := make([]byte, 4*n)
		for i := range n {
			x := float32(1)
			if scale > 0 {
				x = float32(r.NormFloat64() * scale)
			}
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
		}
		return gguf.WriteTensor{Name: name, Type: gguf.F32, Dims: dims, Data: b}
	}
	out := tensor("output.weight", 0.3, h, vocab)
	for i := 4 * h * 3; i < 4*h*131; i += 4 { // byte tokens: rarer, so that words follow BOS
		x := math.Float32frombits(binary.LittleEndian.Uint32(out.Data[i:]))
		binary.LittleEndian.PutUint32(out.Data[i:], math.Float32bits(x/4))
	}
	ts := []gguf.WriteTensor{tensor("token_embd.weight", 0.5, h, vocab), tensor("output_norm.weight", 0, h), out}
	for l := range layers {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts, tensor(p+"attn_norm.weight", 0, h), tensor(p+"ffn_norm.weight", 0, h),
			tensor(p+"attn_q.weight", 0.2, h, h), tensor(p+"attn_k.weight", 0.2, h, h),
			tensor(p+"attn_v.weight", 0.2, h, h), tensor(p+"attn_output.weight", 0.2, h, h),
			tensor(p+"ffn_gate.weight", 0.2, h, inter), tensor(p+"ffn_up.weight", 0.2, h, inter),
			tensor(p+"ffn_down.weight", 0.2, inter, h))
	}
	path = filepath.Join(t.TempDir(), "stories.gguf")
	if err := gguf.WriteFile(path, kv, ts); err != nil {
		t.Fatal(err)
	}
	return path, tokens, types
}

// llamaText is the text llama.cpp's detokenize and Hugging Face's Llama
// decoder give for ids after token prev: control and unknown tokens
// dropped, "<0xXX>" that byte, ▁ a space, all joined, and one leading space
// removed when the text starts right after BOS (prev 1).
func llamaText(tokens []string, types []int32, prev int, ids []int) string {
	var out []byte
	for _, id := range ids {
		piece := tokens[id]
		switch types[id] {
		case 2, 3:
			piece = ""
		case 6:
			var b byte
			fmt.Sscanf(piece, "<0x%02X>", &b)
			piece = string([]byte{b})
		default:
			piece = strings.ReplaceAll(piece, "▁", " ")
		}
		out = append(out, piece...)
	}
	if prev == 1 {
		out = bytes.TrimPrefix(out, []byte(" "))
	}
	return string(out)
}

// TestRunLlamaSentencePiece: `loupe run` on a Llama GGUF with a
// SentencePiece vocabulary prints the continuation as llama.cpp does, in
// the streamed text and in --json's text alike: from BOS alone for
// --prompt "", the prompt's tokens by hand, the continuation of a prompt
// keeping its leading space, 200 tokens past the file's context_length of
// 128 (llama.cpp's default context is 4096).
func TestRunLlamaSentencePiece(t *testing.T) {
	path, tokens, types := writeStoryGGUF(t)
	id := func(s string) int { return slices.Index(tokens, s) }
	for _, tc := range []struct {
		prompt string
		ids    []int
		n      string
	}{
		{"", []int{1}, "200"},
		{"Once upon a time", []int{1, id("▁Once"), id("▁upon"), id("▁a"), id("▁time")}, "30"},
		{"a\n", []int{1, id("▁a"), 3 + '\n'}, "30"},
	} {
		r := runJSONOut(t, "--model", path, "--prompt", tc.prompt, "--max-tokens", tc.n)
		if !slices.Equal(r.PromptIDs, tc.ids) {
			t.Fatalf("%q: prompt ids %v, want %v", tc.prompt, r.PromptIDs, tc.ids)
		}
		var gen []int
		for _, tk := range r.Tokens {
			gen = append(gen, tk.ID)
		}
		if r.StopReason == "eos" {
			gen = gen[:len(gen)-1]
		}
		if len(gen) < 10 {
			t.Fatalf("%q: only %d tokens (%s)", tc.prompt, len(gen), r.StopReason)
		}
		if !strings.HasPrefix(tokens[gen[0]], "▁") {
			t.Fatalf("%q: first token %q: the test wants a word that starts with ▁", tc.prompt, tokens[gen[0]])
		}
		want := llamaText(tokens, types, tc.ids[len(tc.ids)-1], gen)
		if r.Text != want {
			t.Errorf("%q: text %q, llama.cpp prints %q", tc.prompt, r.Text, want)
		}
		code, out, errs := runCLI("--model", path, "--prompt", tc.prompt, "--max-tokens", tc.n)
		if code != 0 || !strings.HasPrefix(out, want+"\n\n") {
			t.Errorf("%q: exit %d, stdout %q (%s), want it to start with %q", tc.prompt, code, out, errs, want)
		}
	}
}

// llama2Template is Llama 2 chat's template in short: the BOS and the
// [INST] markers are the template's to write.
const llama2Template = "{% for m in messages %}{% if m['role'] == 'user' %}{{ bos_token + '[INST] ' + m['content'] + ' [/INST]' }}" +
	"{% elif m['role'] == 'assistant' %}{{ ' ' + m['content'] + ' ' + eos_token }}{% endif %}{% endfor %}"

// TestRunGGUFChatTemplate: --chat on a GGUF file renders its
// tokenizer.chat_template with the file's BOS and EOS pieces, and the
// rendered text is encoded without a second BOS (apply_chat_template).
func TestRunGGUFChatTemplate(t *testing.T) {
	path, tokens, _ := writeStoryGGUF(t, gguf.KV{Key: "tokenizer.chat_template", Value: llama2Template})
	r := runJSONOut(t, "--model", path, "--chat", "--prompt", "a time", "--max-tokens", "3")
	if want := "<s>[INST] a time [/INST]"; r.Rendered != want {
		t.Fatalf("rendered %q, want %q", r.Rendered, want)
	}
	if r.PromptIDs[0] != 1 || slices.Contains(r.PromptIDs[1:], 1) || !slices.Contains(r.PromptIDs, slices.Index(tokens, "▁time")) {
		t.Errorf("prompt ids %v: want one BOS, then the text", r.PromptIDs)
	}
	plain, _, _ := writeStoryGGUF(t)
	code, _, errs := runCLI("--model", plain, "--chat", "--prompt", "x")
	if code != 1 || !strings.Contains(errs, "tokenizer.chat_template") {
		t.Errorf("no template: exit %d, %q", code, errs)
	}
}
