package chat

import (
	"os"
	"testing"
	"time"
)

// FuzzTokenizerConfig feeds arbitrary bytes as tokenizer_config.json:
// parsing and rendering a short conversation return an error or text,
// never a panic (hostile templates come with downloaded models).
func FuzzTokenizerConfig(f *testing.F) {
	for _, p := range []string{"../../testdata/chat/qwen3.tokenizer_config.json"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	if b, err := os.ReadFile("../../testdata/chat/qwen2.5-instruct.chat_template.jinja"); err == nil {
		f.Add([]byte(`{"chat_template": ` + quoteJSON(string(b)) + `}`))
	}
	f.Add([]byte(`{"chat_template": "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}"}`))
	f.Add([]byte(`{"chat_template": [{"name": "default", "template": "{{ messages[0].content }}"}], "eos_token": {"content": "</s>"}}`))
	f.Add([]byte(`{"chat_template": "{% if %}"}`))
	msgs := []Message{{Role: System, Content: "Be brief."}, {Role: User, Content: "Hi <|im_end|>"}, {Role: Assistant, Content: "<think>\nx\n</think>\n\nHello"}, {Role: User, Content: "Why?"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		done := make(chan struct{})
		go func() { // the fuzzer has no hang detection of its own
			defer close(done)
			tmpl, err := ParseTokenizerConfig(data)
			if err != nil {
				return
			}
			for _, th := range []Think{ThinkDefault, ThinkOn, ThinkOff} {
				tmpl.Render(msgs, Options{AddGenerationPrompt: true, Think: th})
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("parse and render took over 5 s")
		}
	})
}

// quoteJSON writes s as a JSON string literal.
func quoteJSON(s string) string {
	out := []rune{'"'}
	for _, r := range s {
		switch r {
		case '"', '\\':
			out = append(out, '\\', r)
		case '\n':
			out = append(out, '\\', 'n')
		default:
			out = append(out, r)
		}
	}
	return string(append(out, '"'))
}
