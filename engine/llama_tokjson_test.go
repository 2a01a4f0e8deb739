package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestLlamaFolderTokenizers: LlamaForCausalLM folders with a
// SentencePiece-style tokenizer.json (Llama 2/TinyLlama) and a Llama 3 one
// load and generate; the prompt starts with the post-processor's BOS, so
// an empty prompt is BOS alone, and the generated text is the tokenizer's
// DecodeText of the ids (checked against Hugging Face in engine/tokenizer).
func TestLlamaFolderTokenizers(t *testing.T) {
	for _, tc := range []struct {
		file string
		bos  int
	}{{"llama2", 1}, {"llama3", 1584}} {
		t.Run(tc.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("tokenizer", "testdata", "small", tc.file+".tokenizer.json"))
			if err != nil {
				t.Fatal(err)
			}
			cfg := tinyConfig()
			cfg.VocabSize, cfg.EOSTokenIDs, cfg.TieWordEmbeddings, cfg.RMSNormEps = 1760, []int{2}, false, 1e-5
			if tc.file == "llama3" {
				cfg.EOSTokenIDs = []int{1585}
			}
			dir := writeModel(t, cfg, dropBiases(randomTensors(cfg, 9)), "F32", llamaEdit)
			if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), src, 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := Load(dir, LoadOptions{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if bos, add := m.Tokenizer().BOS(); bos != tc.bos || !add {
				t.Fatalf("BOS %d %v, want %d added", bos, add, tc.bos)
			}
			for _, prompt := range []string{"", "Once upon a time"} {
				var text string
				run, err := m.Generate(context.Background(), prompt, greedy(12), func(e Event) {
					if e.Token != nil {
						text += e.Token.Text
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				var prompts, gen []int
				for _, tk := range run.Tokens {
					if tk.Generated {
						gen = append(gen, tk.ID)
					} else {
						prompts = append(prompts, tk.ID)
					}
				}
				if prompts[0] != tc.bos || prompt == "" && len(prompts) != 1 {
					t.Errorf("%q: prompt ids %v", prompt, prompts)
				}
				if run.StopReason == "eos" {
					gen = gen[:len(gen)-1]
				}
				if want := m.Tokenizer().DecodeText(prompts[len(prompts)-1], gen); text != want || !slices.Equal(prompts, m.Encode(prompt)) {
					t.Errorf("%q: streamed %q, DecodeText %q", prompt, text, want)
				}
			}
		})
	}
}
