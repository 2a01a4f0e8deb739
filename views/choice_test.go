package views

import (
	"strings"
	"testing"

	"loupe/i18n"
	"loupe/trace"
)

// inLang sets the window's language for one test.
func inLang(t *testing.T, l i18n.Lang) {
	old := Lang
	Lang = l
	t.Cleanup(func() { Lang = old })
}

// In French the radio groups show French labels, and picking each one by
// its label (what a click does) sets the behaviour of its value: the code
// compares values, not the translated labels.
func TestChoicesWorkInFrench(t *testing.T) {
	newTestApp(t)
	inLang(t, i18n.French)
	c := NewControls(func() {}, func() {})
	want := []string{i18n.French.T("views.controls.greedy", nil), i18n.French.T("views.controls.sampling", nil)}
	if o := c.Mode.Radio.Options; len(o) != 2 || o[0] != want[0] || o[1] != want[1] || o[1] == Sampling {
		t.Fatalf("decoding options %q, want the French %q", o, want)
	}
	for i, label := range c.Mode.Radio.Options {
		c.Mode.Radio.SetSelected(label)
		s, err := c.Settings()
		sampling := i == 1
		if err != nil || (s.Temperature > 0) != sampling || c.Temperature.Disabled() == sampling {
			t.Errorf("%q: temperature %v (knobs disabled %v), err %v; want sampling %v", label, s.Temperature, c.Temperature.Disabled(), err, sampling)
		}
		if v := c.Mode.Value(); v != []string{Greedy, Sampling}[i] {
			t.Errorf("%q: value %q", label, v)
		}
	}

	p := NewChatPanel()
	p.SetAvailable(true, false, nil)
	var told []bool
	p.OnMode = func(chat bool) { told = append(told, chat) }
	if o := p.Mode.Radio.Options; o[0] != i18n.French.T("views.chat.mode_chat", nil) || o[1] != i18n.French.T("views.chat.mode_complete", nil) || o[1] == ModeComplete {
		t.Fatalf("prompt modes %q", o)
	}
	for i, label := range p.Mode.Radio.Options {
		p.Mode.Radio.SetSelected(label)
		chat := i == 0
		if p.Chat() != chat || p.System.Disabled() == chat {
			t.Errorf("%q: Chat() %v, system message disabled %v; want chat %v", label, p.Chat(), p.System.Disabled(), chat)
		}
	}
	if len(told) != 2 || !told[0] || told[1] {
		t.Errorf("OnMode got %v, want [true false]", told)
	}
	p.SetAvailable(false, false, nil)
	if p.Chat() || p.Mode.Value() != ModeComplete {
		t.Errorf("without a template: Chat() %v, mode %q", p.Chat(), p.Mode.Value())
	}
}

// The Compare tab's run picker names runs in the window's language.
func TestRunLabelInFrench(t *testing.T) {
	inLang(t, i18n.French)
	r := &trace.Run{Prompt: "Le  chat\nest", Settings: trace.Settings{Temperature: 0.7, Seed: 3, Kernels: "avx2",
		Ablate: []trace.Head{{}, {}}, DisableExperts: []trace.Expert{{}}, TopKExperts: 1}}
	got := RunLabel(1, r, 1)
	for _, w := range []string{"génération 2 · T 0,7 graine 3 · avx2", " · 2 têtes éteintes", " · 1 expert éteint", " · 1 expert par token", " · Le chat est"} {
		if !strings.Contains(got, w) {
			t.Errorf("RunLabel = %q, want %q in it", got, w)
		}
	}
	r.Settings = trace.Settings{Kernels: "avx2"}
	if got := RunLabel(0, r, 1); !strings.HasPrefix(got, "génération 1 · argmax · avx2") {
		t.Errorf("greedy RunLabel = %q", got)
	}
}
