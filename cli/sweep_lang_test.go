package cli

import (
	"bytes"
	"strings"
	"testing"

	"loupe/assets"
	"loupe/i18n"
	"loupe/lesson"
)

// `loupe sweep --lang fr` prints its table, notes and reading in French,
// numbers with decimal commas; --json stays English whatever the
// language.
func TestSweepTextInFrench(t *testing.T) {
	dir := sweepModel(t)
	args := []string{"sweep", "--model", dir, "--what", "context", "--values", "256,8k", "--threads", "1",
		"--prompt-tokens", "8", "--max-tokens", "2"}
	var out, errb bytes.Buffer
	if code := Main(append(args, "--lang", "fr"), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"décodage t/s", "octets/token", "bande passante en lecture 40,0\u202fGo/s", "Mo"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("French table lacks %q:\n%s", want, out.String())
		}
	}
	if decimalPoint.MatchString(out.String()) || !decimalComma.MatchString(out.String()) {
		t.Errorf("French table's decimals:\n%s", out.String())
	}
	for _, want := range []string{"arrêté\u00a0: ", "le contexte du modèle", "note\u00a0: sous les 8 dernières positions"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("French stderr lacks %q:\n%s", want, errb.String())
		}
	}
	out.Reset()
	errb.Reset()
	t.Setenv("LANG", "fr_FR.UTF-8")
	if code := Main(append(args, "--json"), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "the model's context") || strings.Contains(out.String(), "contexte") {
		t.Errorf("JSON changed with the language: %s", out.String())
	}
	out.Reset()
	if code := Main(append(args, "--lang", "de"), &out, &errb); code != 2 || !strings.Contains(errb.String(), "want en or fr") {
		t.Errorf("--lang de: exit %d, %q", code, errb.String())
	}
}

// The first line of `loupe lesson`'s text names the demo model in the
// lesson's language; English is the line it always was.
func TestLessonHeading(t *testing.T) {
	l := &lesson.Lesson{Model: assets.DemoName, Prompt: "My cat is \"purple\"."}
	if got, want := lessonHeading(l, i18n.English), assets.DemoName+` — "My cat is \"purple\"."`; got != want {
		t.Errorf("English heading %q, want %q", got, want)
	}
	want := "le modèle de démonstration (un petit Qwen2 entraîné sur des textes du domaine public) — «\u202fMy cat is \\\"purple\\\".\u202f»"
	if got := lessonHeading(l, i18n.French); got != want {
		t.Errorf("French heading %q, want %q", got, want)
	}
	l.Model = "Qwen/Qwen2.5-1.5B-Instruct"
	if got := lessonHeading(l, i18n.French); !strings.HasPrefix(got, l.Model+" — ") {
		t.Errorf("a model's own name is kept: %q", got)
	}
}
