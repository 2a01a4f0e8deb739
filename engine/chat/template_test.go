package chat

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/assets"
	"loupe/engine/tokenizer"
)

// The shipped templates (testdata/SOURCES.md).
const (
	qwen25File = "../../testdata/chat/qwen2.5-instruct.chat_template.jinja"
	qwen3File  = "../../testdata/chat/qwen3.tokenizer_config.json"
)

func qwen25(t *testing.T) *Template {
	t.Helper()
	src, err := os.ReadFile(qwen25File)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := Parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func qwen3(t *testing.T) *Template {
	t.Helper()
	data, err := os.ReadFile(qwen3File)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := ParseTokenizerConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// ChatML pieces (docs/spec/tokenizer.md §7).
const (
	defaultSystem = "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
	genPrompt     = "<|im_start|>assistant\n"
	emptyThink    = "<think>\n\n</think>\n\n"
)

func turn(role, content string) string {
	return "<|im_start|>" + role + "\n" + content + "<|im_end|>\n"
}

type renderCase struct {
	name string
	msgs []Message
	opt  Options
	want string
}

var (
	capital   = []Message{{Role: User, Content: "What is the capital of France?"}}
	withSys   = []Message{{Role: System, Content: "You are terse."}, {Role: User, Content: "Hi"}}
	reasoned  = "<think>\nThe user greets me.\n</think>\n\nHello!"
	multiTurn = []Message{{Role: System, Content: "S"}, {Role: User, Content: "Hi"}, {Role: Assistant, Content: reasoned}, {Role: User, Content: "Again"}}
	lastReply = []Message{{Role: User, Content: "Hi"}, {Role: Assistant, Content: reasoned}}
	gen       = Options{AddGenerationPrompt: true}
)

// Expected strings written from the templates' rules (docs/spec/tokenizer.md §7,
// docs/spec/qwen3.md §5), not from a renderer.
func TestRenderQwen25Instruct(t *testing.T) {
	tm := qwen25(t)
	if tm.HasThinking() {
		t.Error("Qwen2.5 template reported enable_thinking")
	}
	cases := []renderCase{
		// No system message: the default one is emitted.
		{"default system", capital, gen, defaultSystem + turn(User, "What is the capital of France?") + genPrompt},
		{"own system", withSys, gen, turn(System, "You are terse.") + turn(User, "Hi") + genPrompt},
		// Assistant turns are re-emitted verbatim, think block and all.
		{"multi-turn", multiTurn, gen, turn(System, "S") + turn(User, "Hi") + turn(Assistant, reasoned) + turn(User, "Again") + genPrompt},
		{"no generation prompt", lastReply, Options{}, defaultSystem + turn(User, "Hi") + turn(Assistant, reasoned)},
		// enable_thinking means nothing to it.
		{"think off ignored", capital, Options{AddGenerationPrompt: true, Think: ThinkOff}, defaultSystem + turn(User, "What is the capital of France?") + genPrompt},
	}
	runCases(t, tm, cases)
	// Thinking on cannot be honoured: refused, not rendered as if it were.
	if out, err := tm.Render(capital, Options{AddGenerationPrompt: true, Think: ThinkOn}); !errors.Is(err, ErrTemplate) || out != "" {
		t.Errorf("think on: %q, %v; want ErrTemplate", out, err)
	}
}

func TestRenderQwen3(t *testing.T) {
	tm := qwen3(t)
	if !tm.HasThinking() {
		t.Error("Qwen3 template did not report enable_thinking")
	}
	on := Options{AddGenerationPrompt: true, Think: ThinkOn}
	off := Options{AddGenerationPrompt: true, Think: ThinkOff}
	cases := []renderCase{
		// No default system prompt; thinking on (or undefined) ends at "assistant\n".
		{"user", capital, gen, turn(User, "What is the capital of France?") + genPrompt},
		{"think on", capital, on, turn(User, "What is the capital of France?") + genPrompt},
		// Thinking off adds the empty think block (docs/spec/qwen35.md §8).
		{"think off", capital, off, turn(User, "What is the capital of France?") + genPrompt + emptyThink},
		{"system", withSys, off, turn(System, "You are terse.") + turn(User, "Hi") + genPrompt + emptyThink},
		// Reasoning of an assistant turn before the last user query is dropped.
		{"history reasoning dropped", multiTurn, on, turn(System, "S") + turn(User, "Hi") + turn(Assistant, "Hello!") + turn(User, "Again") + genPrompt},
		{"history reasoning dropped, think off", multiTurn, off, turn(System, "S") + turn(User, "Hi") + turn(Assistant, "Hello!") + turn(User, "Again") + genPrompt + emptyThink},
		// ... and kept (normalised) for the last assistant turn after it.
		{"last reply keeps reasoning", lastReply, Options{}, turn(User, "Hi") + turn(Assistant, "<think>\nThe user greets me.\n</think>\n\nHello!")},
		{"last reply without think block gets an empty one", []Message{{Role: User, Content: "Hi"}, {Role: Assistant, Content: "Hello!"}}, Options{},
			turn(User, "Hi") + turn(Assistant, "<think>\n\n</think>\n\nHello!")},
	}
	runCases(t, tm, cases)
}

func runCases(t *testing.T, tm *Template, cases []renderCase) {
	t.Helper()
	for _, c := range cases {
		got, err := tm.Render(c.msgs, c.opt)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func qwen3Tokenizer(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Parse(assets.Qwen3Tokenizer())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// The ids of the rendered prompts: the public fixture of docs/spec/tokenizer.md §7
// for Qwen2.5, and the control tokens as single ids.
func TestRenderedIDs(t *testing.T) {
	tok := qwen3Tokenizer(t)
	s, err := qwen25(t).Render(capital, gen)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{151644, 8948, 198, 2610, 525, 1207, 16948, 11, 3465, 553, 54364, 14817, 13, 1446, 525, 264, 10950,
		17847, 13, 151645, 198, 151644, 872, 198, 3838, 374, 279, 6722, 315, 9625, 30, 151645, 198, 151644, 77091, 198}
	if got := tok.Encode(s); !slices.Equal(got, want) {
		t.Errorf("Qwen2.5 prompt ids\n got %v\nwant %v", got, want)
	}
	s, err = qwen3(t).Render(capital, Options{AddGenerationPrompt: true, Think: ThinkOff})
	if err != nil {
		t.Fatal(err)
	}
	// <|im_start|> user \n What is the capital of France? <|im_end|> \n <|im_start|> assistant \n <think> \n\n </think> \n\n
	want = []int{151644, 872, 198, 3838, 374, 279, 6722, 315, 9625, 30, 151645, 198, 151644, 77091, 198, 151667, 271, 151668, 271}
	if got := tok.Encode(s); !slices.Equal(got, want) {
		t.Errorf("Qwen3 non-thinking prompt ids\n got %v\nwant %v", got, want)
	}
}

// The Qwen3 tokenizer matches <think>, </think> and <tool_response> as
// single added tokens (reference ids in the special-cases file).
func TestQwen3SpecialCases(t *testing.T) {
	tok := qwen3Tokenizer(t)
	f, err := os.Open("../../testdata/qwen3-vs-qwen25-special-cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var c struct {
			Text  string `json:"text"`
			Qwen3 []int  `json:"ids_qwen3"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		if got := tok.Encode(c.Text); !slices.Equal(got, c.Qwen3) {
			t.Errorf("%q: got %v, want %v", c.Text, got, c.Qwen3)
		}
	}
	if n != 8 {
		t.Fatalf("%d cases, want 8", n)
	}
}

func TestFromDir(t *testing.T) {
	cfg, err := os.ReadFile(qwen3File)
	if err != nil {
		t.Fatal(err)
	}
	jinja, err := os.ReadFile(qwen25File)
	if err != nil {
		t.Fatal(err)
	}
	write := func(files map[string][]byte) string {
		dir := t.TempDir()
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	// tokenizer_config.json alone.
	tm, err := FromDir(write(map[string][]byte{TokenizerConfigFile: cfg}))
	if err != nil || !tm.HasThinking() {
		t.Fatalf("tokenizer_config.json: %v, thinking %v", err, err == nil && tm.HasThinking())
	}
	if tm.vars["eos_token"] != "<|im_end|>" || tm.vars["pad_token"] != "<|endoftext|>" {
		t.Errorf("token variables %v", tm.vars)
	}
	// chat_template.jinja wins over tokenizer_config.json.
	tm, err = FromDir(write(map[string][]byte{TokenizerConfigFile: cfg, JinjaFile: jinja}))
	if err != nil || tm.HasThinking() {
		t.Fatalf("chat_template.jinja beside tokenizer_config.json: %v", err)
	}
	// Neither: a base model.
	if _, err := FromDir(write(nil)); !errors.Is(err, ErrNoTemplate) {
		t.Errorf("empty folder: %v, want ErrNoTemplate", err)
	}
	if _, err := FromDir(write(map[string][]byte{TokenizerConfigFile: []byte(`{"eos_token": "<|endoftext|>"}`)})); !errors.Is(err, ErrNoTemplate) {
		t.Errorf("config without template: %v, want ErrNoTemplate", err)
	}
}

func TestTokenizerConfigForms(t *testing.T) {
	list := `{"chat_template": [{"name": "tool_use", "template": "T"}, {"name": "default", "template": "{{ messages[0].content }}|{{ bos_token }}"}],
		"bos_token": {"content": "<s>", "lstrip": false}, "eos_token": null}`
	tm, err := ParseTokenizerConfig([]byte(list))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := tm.Render([]Message{{Role: User, Content: "x"}}, Options{}); err != nil || got != "x|<s>" {
		t.Errorf("named list: %q, %v", got, err)
	}
	bad := map[string]string{
		"not json":        `{"chat_template": `,
		"number":          `{"chat_template": 3}`,
		"no default":      `{"chat_template": [{"name": "tool_use", "template": "T"}]}`,
		"empty":           `{"chat_template": "  "}`,
		"syntax":          `{"chat_template": "{% if %}"}`,
		"unclosed":        `{"chat_template": "{% for m in messages %}"}`,
		"bad token field": `{"chat_template": "x", "bos_token": 5}`,
	}
	for name, cfg := range bad {
		if _, err := ParseTokenizerConfig([]byte(cfg)); !errors.Is(err, ErrTemplate) {
			t.Errorf("%s: %v, want ErrTemplate", name, err)
		}
	}
	tm, err = Parse("{{ messages[0].content.nosuchmethod() }}")
	if err == nil {
		if _, err = tm.Render([]Message{{Role: User, Content: "x"}}, Options{}); !errors.Is(err, ErrTemplate) {
			t.Errorf("render error: %v, want ErrTemplate", err)
		}
	}
	if _, err := qwen3(t).Render(nil, gen); err == nil || !strings.Contains(err.Error(), "no messages") {
		t.Errorf("no messages: %v", err)
	}
}
