package assets

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestQwen3TokenizerAddsTheFourTokens(t *testing.T) {
	if n := bytes.Count(QwenTokenizer, []byte(endOfAdded)); n != 1 {
		t.Fatalf("QwenTokenizer has %d end-of-added-tokens markers, want 1", n)
	}
	var tj struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
			Special bool   `json:"special"`
		} `json:"added_tokens"`
		Model json.RawMessage `json:"model"`
	}
	if err := json.Unmarshal(Qwen3Tokenizer(), &tj); err != nil {
		t.Fatal(err)
	}
	if len(tj.AddedTokens) != 26 || len(tj.Model) == 0 {
		t.Fatalf("%d added tokens (want 26), model %d bytes", len(tj.AddedTokens), len(tj.Model))
	}
	want := []string{"<tool_response>", "</tool_response>", "<think>", "</think>"}
	for i, w := range want {
		a := tj.AddedTokens[22+i]
		if a.ID != 151665+i || a.Content != w || a.Special {
			t.Errorf("added token %d = %+v, want id %d %q special false", 22+i, a, 151665+i, w)
		}
	}
}
