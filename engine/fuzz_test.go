package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseConfig feeds arbitrary bytes to ParseConfig (config.json): it
// must return an error or a config whose sizes a forward pass can use,
// never panic.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(qwen15Instruct))
	f.Add([]byte(qwen7B))
	if b, err := os.ReadFile("../assets/demo/config.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"model_type":"qwen2","hidden_size":-1}`))
	f.Add([]byte(`{"model_type":"qwen2","rope_scaling":{"rope_type":"yarn"}}`))
	f.Add([]byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		for _, v := range []int{c.HiddenSize, c.IntermediateSize, c.NumHiddenLayers, c.NumAttentionHeads,
			c.NumKeyValueHeads, c.HeadDim, c.VocabSize, c.MaxPositionEmbeddings} {
			if v <= 0 || v > maxDim {
				t.Fatalf("accepted size %d in %+v", v, c)
			}
		}
		if c.NumAttentionHeads%c.NumKeyValueHeads != 0 || c.HeadDim%2 != 0 {
			t.Fatalf("accepted inconsistent heads %+v", c)
		}
		if _, ok := architectures[c.Architecture]; !ok {
			t.Fatalf("accepted unregistered architecture %q", c.Architecture)
		}
		modelInfo(c, weights{}, "", "", 0) // the Model panel's arithmetic on any accepted config
	})
}

// FuzzReadEOS feeds arbitrary bytes as generation_config.json: an error or
// a list of ids, never a panic.
func FuzzReadEOS(f *testing.F) {
	dir := f.TempDir()
	if b, err := os.ReadFile("../assets/demo/generation_config.json"); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"eos_token_id": [151645, 151643], "do_sample": true, "temperature": 0.7}`))
	f.Add([]byte(`{"eos_token_id": null}`))
	f.Add([]byte(`{"eos_token_id": "x"}`))
	p := filepath.Join(dir, "generation_config.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		readEOS(dir, Config{EOSTokenIDs: []int{1}})
	})
}
