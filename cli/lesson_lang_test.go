package cli

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"loupe/lesson"
)

// lessonProse is `loupe lesson --json` with its prose and its figures
// kept raw, to compare two languages.
type lessonProse struct {
	Model    string `json:"model"`
	Prompt   string `json:"prompt"`
	Chapters []struct {
		ID       string          `json:"id"`
		Title    string          `json:"title"`
		Text     string          `json:"text"`
		Question string          `json:"question"`
		Skipped  string          `json:"skipped"`
		Figures  json.RawMessage `json:"figures"`
	} `json:"chapters"`
}

var (
	decimalComma = regexp.MustCompile(`\d,\d`)
	decimalPoint = regexp.MustCompile(`\d\.\d`)
)

// `loupe lesson --json` in English, with --lang fr and with
// LANG=fr_FR.UTF-8: the same chapter ids, skipped values and figures;
// every title and text translated, the French with decimal commas and
// no decimal point; --lang fr and LANG=fr_FR give the same lesson, and
// --lang en wins over LANG.
func TestLessonJSONInFrench(t *testing.T) {
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	t.Setenv("LANG", "C.UTF-8")
	prompt := "My cat is purple. But my friends tell me there is no such thing as a"
	base := []string{"lesson", "--prompt", prompt, "--max-tokens", "5", "--json"}
	var en, fr, env, enOverEnv lessonProse
	cliJSON(t, &en, append(base, "--lang", "en")...)
	cliJSON(t, &fr, append(base, "--lang", "fr")...)
	t.Setenv("LANG", "fr_FR.UTF-8")
	cliJSON(t, &env, base...)
	cliJSON(t, &enOverEnv, append(base, "--lang", "en")...)
	if len(en.Chapters) != len(lesson.IDs) || len(fr.Chapters) != len(en.Chapters) || fr.Model != en.Model || fr.Prompt != en.Prompt {
		t.Fatalf("%d English chapters, %d French", len(en.Chapters), len(fr.Chapters))
	}
	var commas int
	for i, e := range en.Chapters {
		f := fr.Chapters[i]
		if f.ID != e.ID || f.Skipped != e.Skipped || !bytes.Equal(untimed(t, f.Figures), untimed(t, e.Figures)) {
			t.Errorf("%s: French id %q, skipped %q or figures differ", e.ID, f.ID, f.Skipped)
		}
		if f.Title == e.Title || f.Text == e.Text || (e.Question != "") != (f.Question != "") || e.Question != "" && f.Question == e.Question {
			t.Errorf("%s: not translated: %q / %q", e.ID, f.Title, f.Text)
		}
		if decimalPoint.MatchString(f.Text) {
			t.Errorf("%s: a decimal point in French: %q", e.ID, f.Text)
		}
		commas += len(decimalComma.FindAllString(f.Text, -1))
	}
	if commas < 10 {
		t.Errorf("%d decimal commas in the French lesson", commas)
	}
	for _, c := range []struct {
		name      string
		got, want *lessonProse
	}{{"LANG=fr_FR.UTF-8", &env, &fr}, {"--lang en over LANG=fr_FR", &enOverEnv, &en}} {
		for i, w := range c.want.Chapters {
			g := c.got.Chapters[i]
			if g.Title != w.Title || !timed[w.ID] && g.Text != w.Text {
				t.Errorf("%s: %s: %q, want %q", c.name, w.ID, g.Text, w.Text)
			}
		}
	}
}

// timed are the chapters whose text quotes the run's own timing, which
// differs from one run to the next.
var timed = map[string]bool{"two-times": true, "summary": true}

// untimed is a chapter's figures without the run's timings and the
// shares made of them.
func untimed(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k := range m {
		if strings.Contains(k, "seconds") || strings.Contains(k, "reading_share") {
			delete(m, k)
		}
	}
	b, _ := json.Marshal(m)
	return b
}

// The text output speaks the language too, and a language Loupe does
// not speak is refused with a clear error.
func TestLessonTextInFrenchAndBadLang(t *testing.T) {
	var o, e bytes.Buffer
	args := []string{"lesson", "--prompt", "My cat is purple. But my friends tell me there is no such thing as a", "--max-tokens", "3"}
	if code := Main(append(args, "--lang", "fr"), &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	for _, want := range []string{"Le texte devient des tokens  [tokens]", "(chapitre non mesuré\u00a0: demande --timing)", "Le cache KV"} {
		if !strings.Contains(o.String(), want) {
			t.Errorf("French text lacks %q", want)
		}
	}
	o.Reset()
	e.Reset()
	if code := Main(append(args, "--lang", "de"), &o, &e); code != 2 || !strings.Contains(e.String(), "want en or fr") {
		t.Errorf("--lang de: exit %d, %q", code, e.String())
	}
}
