package cli

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"loupe/assets"
	"loupe/engine"
)

// TestEveryCommandHelp: COMMAND --help, -h and -help exit 0 and print on
// stdout the command's usage line, what it does, and its flags.
func TestEveryCommandHelp(t *testing.T) {
	for _, name := range Names() {
		for _, h := range []string{"--help", "-h", "-help"} {
			var o, e bytes.Buffer
			code := Main([]string{name, h}, &o, &e)
			out := o.String()
			if code != 0 || e.Len() > 0 {
				t.Errorf("%s %s: exit %d, stderr %q", name, h, code, e.String())
			}
			usage, rest, _ := strings.Cut(out, "\n")
			if !strings.HasPrefix(usage, "usage: loupe "+name) {
				t.Errorf("%s %s: first line %q", name, h, usage)
			}
			// What it does: a paragraph of its own after the usage lines.
			if what, _, _ := strings.Cut(rest, "\nflags:"); len(strings.Fields(what)) < 15 {
				t.Errorf("%s %s: no description of what it does:\n%s", name, h, out)
			}
		}
	}
}

// TestHelpListsFlags: the flags follow the description, each with its help.
func TestHelpListsFlags(t *testing.T) {
	for name, want := range map[string][]string{
		"run":       {"-max-tokens", "-prompt", "-json", "-threads", engine.ThreadsHelp},
		"gen-model": {"-out", "-shape", "-quant"},
		"lesson":    {"-prompt", "-timing", "-count", engine.ThreadsHelp, "the article's sentence", assets.DemoPrompts[0]},
		"bench":     {"-model", "-repeat", engine.ThreadsHelp},
		"membw":     {"-passes", engine.ThreadsHelp},
		"inspect":   {"-pos", "-layer", engine.ThreadsHelp},
	} {
		var o, e bytes.Buffer
		Main([]string{name, "--help"}, &o, &e)
		for _, w := range want {
			if !strings.Contains(o.String(), w) {
				t.Errorf("%s --help lacks %q:\n%s", name, w, o.String())
			}
		}
	}
}

// TestFlagErrorOneLine: a bad flag is said once, on one line, and fails.
func TestFlagErrorOneLine(t *testing.T) {
	for _, name := range Names() {
		var o, e bytes.Buffer
		code := Main([]string{name, "--no-such-flag"}, &o, &e)
		if code == 0 || o.Len() > 0 || strings.Count(e.String(), "\n") != 1 || !strings.Contains(e.String(), "no-such-flag") {
			t.Errorf("%s --no-such-flag: exit %d, stdout %q, stderr %q", name, code, o.String(), e.String())
		}
	}
}

// TestLessonPromptDefault: without --prompt the lesson follows the
// article's sentence, as the window's lesson does; an empty one is refused.
func TestLessonPromptDefault(t *testing.T) {
	var help bytes.Buffer
	f, err := parseLessonFlags(nil, &help)
	if err != nil || f.prompt != assets.DemoPrompts[0] {
		t.Fatalf("no --prompt: %v, prompt %q; want %q", err, f.prompt, assets.DemoPrompts[0])
	}
	if _, err := parseLessonFlags([]string{"--prompt", ""}, &help); err == nil {
		t.Error("--prompt \"\" accepted")
	}
	if _, err := parseLessonFlags([]string{"--help"}, &help); err != flag.ErrHelp || !strings.Contains(help.String(), "-prompt") {
		t.Errorf("--help: %v\n%s", err, help.String())
	}
}

// TestLessonDemoName: the lesson on the demo model built in, no --prompt,
// names it as the window's title does, not after its folder's hash.
func TestLessonDemoName(t *testing.T) {
	var l lessonJSON
	cliJSON(t, &l, "lesson", "--json", "--max-tokens", "2")
	if l.Model != assets.DemoName || l.Prompt != assets.DemoPrompts[0] || len(l.Chapters) == 0 {
		t.Errorf("model %q, prompt %q, %d chapters; want %q, %q", l.Model, l.Prompt, len(l.Chapters), assets.DemoName, assets.DemoPrompts[0])
	}
}
