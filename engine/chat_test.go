package engine

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine/chat"
	"loupe/engine/genmodel"
	"loupe/trace"
)

func loadTinyQwen3(t *testing.T) *Model {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tiny-qwen3")
	if err := genmodel.Write(dir, "tiny-qwen3", 5, "bf16"); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir, LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func chatOptions(n int) GenerateOptions {
	opt := DefaultGenerateOptions()
	opt.Settings.MaxTokens = n
	return opt
}

func user(s string) chat.Message      { return chat.Message{Role: chat.User, Content: s} }
func assistant(s string) chat.Message { return chat.Message{Role: chat.Assistant, Content: s} }

// A second turn reuses the cached prefix of the first and gives the same
// tokens and top-10 probabilities as the same conversation run fresh.
func TestChatReuseMatchesFreshPrompt(t *testing.T) {
	ctx := context.Background()
	m := loadTinyQwen3(t)
	for _, think := range []chat.Think{chat.ThinkOff, chat.ThinkOn} {
		m.kv = kvContents{} // forget the cache: a model just loaded
		turn1 := []chat.Message{{Role: chat.System, Content: "Be brief."}, user("What is the capital of France?")}
		run1, err := m.GenerateChat(ctx, turn1, think, chatOptions(6), nil)
		if err != nil {
			t.Fatal(err)
		}
		if run1.Timing.ReusedTokens != 0 {
			t.Fatalf("first turn reused %d tokens of an empty cache", run1.Timing.ReusedTokens)
		}
		cached := make([]int, 0, len(run1.Tokens))
		for _, tk := range run1.Tokens[:len(run1.Tokens)-1] { // the last token was never run
			cached = append(cached, tk.ID)
		}
		turn2 := append(slices.Clone(turn1), assistant(m.Reply(run1)), user("And of Italy?"))
		_, ids2, err := m.RenderChat(turn2, think)
		if err != nil {
			t.Fatal(err)
		}
		shared := 0
		for shared < len(cached) && shared < len(ids2)-1 && cached[shared] == ids2[shared] {
			shared++
		}
		reused, err := m.GenerateChat(ctx, turn2, think, chatOptions(6), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := reused.Timing.ReusedTokens; got != shared || shared < len(turn1) {
			t.Errorf("think %d: reused %d tokens, the turns share %d", think, got, shared)
		}
		if reused.Timing.PrefillTokens+reused.Timing.ReusedTokens != len(ids2) {
			t.Errorf("prefill %d + reused %d ≠ prompt %d", reused.Timing.PrefillTokens, reused.Timing.ReusedTokens, len(ids2))
		}
		m.kv = kvContents{}
		fresh, err := m.GenerateChat(ctx, turn2, think, chatOptions(6), nil)
		if err != nil {
			t.Fatal(err)
		}
		if fresh.Timing.ReusedTokens != 0 {
			t.Fatal("a fresh model reused tokens")
		}
		compareRuns(t, reused, fresh)
		at := chatOptions(2)
		at.Attn.Positions = []int{3} // a capture inside the shared prefix stops the reuse there
		at.Attn.AllPrompt = true     // and every prompt row read is captured
		if r, err := m.GenerateChat(ctx, turn2, think, at, nil); err != nil || r.Timing.ReusedTokens != 3 || r.Attention[0].QueryPos != 3 {
			t.Errorf("capture at 3 after a cached turn: %v, reused %d", err, r.Timing.ReusedTokens)
		}
	}
}

// compareRuns: same tokens, top-10 probabilities within 1e-6.
func compareRuns(t *testing.T, a, b *trace.Run) {
	t.Helper()
	if len(a.Steps) != len(b.Steps) || len(a.Tokens) != len(b.Tokens) {
		t.Fatalf("%d/%d steps, %d/%d tokens", len(a.Steps), len(b.Steps), len(a.Tokens), len(b.Tokens))
	}
	worst := 0.0
	for i := range a.Steps {
		sa, sb := a.Steps[i], b.Steps[i]
		if sa.Chosen.ID != sb.Chosen.ID || len(sa.Top) != len(sb.Top) {
			t.Fatalf("step %d: chose %d and %d", i, sa.Chosen.ID, sb.Chosen.ID)
		}
		for j := range sa.Top {
			if sa.Top[j].ID != sb.Top[j].ID {
				t.Fatalf("step %d: candidate %d is %d and %d", i, j, sa.Top[j].ID, sb.Top[j].ID)
			}
			worst = math.Max(worst, math.Abs(sa.Top[j].P-sb.Top[j].P))
		}
	}
	t.Logf("reused vs fresh: max top-10 probability difference %.2g", worst)
	if worst > 1e-6 {
		t.Errorf("top-10 probabilities differ by %.3g", worst)
	}
}

// The non-thinking prompt's empty think block and the control tokens are
// flagged; a prompt that opens a think block makes every generated token
// thinking, and the timing counts them apart.
func TestChatFlags(t *testing.T) {
	m := loadTinyQwen3(t)
	run, err := m.GenerateChat(context.Background(), []chat.Message{user("Hi")}, chat.ThinkOff, chatOptions(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if run.Think != "off" || len(run.Messages) != 1 || !strings.HasSuffix(run.Prompt, "<|im_start|>assistant\n<think>\n\n</think>\n\n") {
		t.Errorf("run think %q, messages %v, prompt %q", run.Think, run.Messages, run.Prompt)
	}
	// <|im_start|> user \n Hi <|im_end|> \n <|im_start|> assistant \n <think> \n\n </think> \n\n
	wantIDs := []int{151644, 872, 198, 13048, 151645, 198, 151644, 77091, 198, 151667, 271, 151668, 271}
	special := []bool{true, false, false, false, true, false, true, false, false, true, false, true, false}
	thinking := []bool{false, false, false, false, false, false, false, false, false, true, true, true, false}
	for i, id := range wantIDs {
		tk := run.Tokens[i]
		if tk.ID != id || tk.Special != special[i] || tk.Thinking != thinking[i] || tk.Generated {
			t.Errorf("prompt token %d = %+v, want id %d special %v thinking %v", i, tk, id, special[i], thinking[i])
		}
	}
	for _, tk := range run.Tokens[len(wantIDs):] {
		if !tk.Generated || tk.Thinking {
			t.Errorf("answer token %+v flagged thinking", tk)
		}
	}

	// A prompt ending inside a think block (as Qwen3.5's template opens it).
	opt := chatOptions(5)
	opt.EOS = []int{} // no stop: five thinking tokens
	var streamed []trace.Token
	run, err = m.Generate(context.Background(), "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n<think>\n", opt, func(e Event) {
		if e.Token != nil {
			streamed = append(streamed, *e.Token)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	tm := run.Timing
	if tm.ThinkingTokens != 5 || tm.DecodeTokens != 5 || tm.ThinkingSeconds <= 0 || tm.ThinkingSeconds > tm.DecodeSeconds {
		t.Errorf("timing %+v: want 5 thinking tokens of 5", tm)
	}
	for _, s := range run.Steps {
		if !s.Thinking || s.Special != m.isSpecial(s.Chosen.ID) {
			t.Errorf("step %+v: thinking %v special %v", s.Pos, s.Thinking, s.Special)
		}
	}
	for _, tk := range streamed {
		if !tk.Thinking {
			t.Errorf("streamed token %+v not flagged thinking", tk)
		}
	}
}

func TestThinkTracker(t *testing.T) {
	tr := thinkTracker{open: 1, close: 2}
	var got []bool
	for _, id := range []int{5, 1, 5, 5, 2, 5, 2, 1} {
		got = append(got, tr.next(id))
	}
	if want := []bool{false, true, true, true, true, false, true, true}; !slices.Equal(got, want) {
		t.Errorf("flags %v, want %v", got, want)
	}
	none := thinkTracker{open: -1, close: -1}
	if none.next(-1) || none.next(1) {
		t.Error("a tokenizer without <think> flagged thinking")
	}
}

// Reply drops the end-of-turn token; the stop ids include <|im_end|>.
func TestReplyAndStops(t *testing.T) {
	m := loadTinyQwen3(t)
	if s := m.chatStops(); !slices.Equal(s, []int{151645, 151643}) {
		t.Errorf("chat stops %v", s)
	}
	run := &trace.Run{StopReason: "eos", Tokens: []trace.Token{{ID: 9707}, {ID: 9707, Generated: true}, {ID: 0, Generated: true}, {ID: 151645, Generated: true}}}
	if got := m.Reply(run); got != "Hello!" {
		t.Errorf("reply %q", got)
	}
	run.StopReason = "max_tokens"
	if got := m.Reply(run); got != "Hello!<|im_end|>" {
		t.Errorf("reply without eos %q", got)
	}
}

func TestPresetsAndMissingTemplate(t *testing.T) {
	m := loadTinyQwen3(t)
	p := m.SamplingPresets()
	if len(p) != 3 || p[0].Temperature != 0.6 || p[0].TopK != 20 || p[0].TopP != 0.95 || p[1].Name != chat.Qwen3CardPresets[0].Name {
		t.Errorf("presets %+v", p)
	}
	var s trace.Settings
	p[2].Apply(&s)
	if s.Temperature != 0.7 || s.TopP != 0.8 || s.TopK != 20 {
		t.Errorf("non-thinking preset applied: %+v", s)
	}
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	base, err := Load(dir, LoadOptions{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	if _, err := base.GenerateChat(context.Background(), []chat.Message{user("Hi")}, chat.ThinkDefault, chatOptions(2), nil); !errors.Is(err, chat.ErrNoTemplate) {
		t.Errorf("chat on a base model: %v, want ErrNoTemplate", err)
	}
	if p := base.SamplingPresets(); len(p) != 1 || p[0].Temperature != 0 {
		t.Errorf("base model presets %+v (want greedy from do_sample false)", p)
	}
}
