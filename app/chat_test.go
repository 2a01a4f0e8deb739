package app

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"loupe/engine/genmodel"
	"loupe/views"
)

// A chat on a template without thinking (Qwen2.5-Instruct's), asked for
// with --think on: the Think switch is greyed and clear, and a tick set
// behind its back still renders the turn with thinking off.
func TestChatWithoutThinkingSwitch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny-instruct")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile("../testdata/chat/qwen2.5-instruct.chat_template.jinja")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chat_template.jinja"), tmpl, 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Model: dir, Chat: true, Think: "on"}, loadEngine)
	u := h.u
	if !u.chatPanel.Chat() || !u.chatPanel.Think.Disabled() || u.chatPanel.Think.Checked {
		t.Fatalf("chat %v, think switch disabled %v, ticked %v", u.chatPanel.Chat(), u.chatPanel.Think.Disabled(), u.chatPanel.Think.Checked)
	}
	u.chatPanel.Think.SetChecked(true)
	h.generate("Hi", 2)
	if u.st.LastRun == nil || len(u.st.Turns) != 2 || u.st.LastRun.Think == "on" {
		t.Fatalf("turn with a ticked, greyed switch: run %v, %d turns", u.st.LastRun != nil, len(u.st.Turns))
	}
}

// A chat on the generated tiny Qwen3: two turns, thinking on then off;
// the second turn reuses the first's cache, the stream flags the control
// and think-block tokens, the panel keeps the turns, Timing names both.
func TestChatTwoTurns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tiny-qwen3")
	if err := genmodel.Write(dir, "tiny-qwen3", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, Options{Model: dir, Chat: true}, loadEngine)
	u := h.u
	if !u.chatPanel.Chat() || u.chatPanel.Think.Disabled() {
		t.Fatalf("chat %v, think switch disabled %v", u.chatPanel.Chat(), u.chatPanel.Think.Disabled())
	}
	if n := len(u.chatArea.presets); n != 3 {
		t.Fatalf("%d presets, want generation_config.json's and the two of the Qwen3 card", n)
	}
	test := u.chatPanel.Presets
	test.SetSelected(u.chatArea.presets[1].Name) // recommended for thinking
	if u.controls.Mode.Value() != views.Sampling || u.controls.Temperature.Text != "0.6" || u.controls.TopK.Text != "20" || u.controls.TopP.Text != "0.95" {
		t.Errorf("preset not applied: %s T=%s k=%s p=%s", u.controls.Mode.Value(), u.controls.Temperature.Text, u.controls.TopK.Text, u.controls.TopP.Text)
	}
	u.controls.Mode.SetValue(views.Greedy)
	u.chatPanel.Think.SetChecked(true)
	h.generate("What is the capital of France?", 4)
	if u.controls.Prompt.Text != "" || len(u.st.Turns) != 2 || u.st.Turns[0].Content != "What is the capital of France?" {
		t.Fatalf("after turn 1: prompt %q, turns %v", u.controls.Prompt.Text, u.st.Turns)
	}
	toks := u.stream.Tokens()
	if !toks[0].Special || toks[0].Text != "<|im_start|>" || toks[1].Special {
		t.Errorf("first tokens %+v %+v", toks[0], toks[1])
	}
	u.chatPanel.Think.SetChecked(false)
	h.generate("And of Italy?", 4)
	if len(u.st.Turns) != 4 || u.st.LastRun.Think != "off" || u.st.LastRun.Timing.ReusedTokens == 0 {
		t.Fatalf("after turn 2: %d turns, think %q, reused %d", len(u.st.Turns), u.st.LastRun.Think, u.st.LastRun.Timing.ReusedTokens)
	}
	toks = u.stream.Tokens()
	n := firstGenerated(toks)
	if !toks[n-4].Thinking || !toks[n-2].Thinking || toks[n-1].Thinking || !toks[n-4].Special {
		t.Errorf("empty think block before the reply not flagged: %+v", toks[n-4:n])
	}
	if l := u.st.Labels; len(l) != 2 || !strings.Contains(l[0], "think on") || !strings.Contains(l[1], "think off") {
		t.Errorf("timing labels %v", l)
	}
	if r := u.chatPanel.TurnRows(); r != 4 { // You, Model, You, Model (no draft written)
		t.Errorf("turn list has %d rows, want 4", r)
	}
	if shot := os.Getenv("LOUPE_CHAT_SHOT"); shot != "" { // a look at two turns, for the notes
		u.showTab("timing")
		f, err := os.Create(shot)
		if err == nil {
			png.Encode(f, u.win.Canvas().Capture())
			f.Close()
		}
	}
	u.chatPanel.Mode.SetValue(views.ModeComplete)
	h.generate("Once upon a time", 2)
	if u.st.LastRun.Messages != nil || len(u.st.Turns) != 4 {
		t.Errorf("complete mode ran as chat")
	}
}
