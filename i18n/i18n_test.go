package i18n

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/lang"
)

// messages reads one language's file as plain JSON: key → a string, or
// an object of plural forms.
func messages(t *testing.T, l Lang) map[string]any {
	t.Helper()
	data, err := Files.ReadFile("translations/loupe." + string(l) + ".json")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", l, err)
	}
	return m
}

var field = regexp.MustCompile(`\{\{\s*\.(\w+)`)

// fields lists the {{.Name}} fields of every form of a message.
func fields(v any) []string {
	var out []string
	add := func(s string) {
		for _, m := range field.FindAllStringSubmatch(s, -1) {
			if !slices.Contains(out, m[1]) {
				out = append(out, m[1])
			}
		}
	}
	switch v := v.(type) {
	case string:
		add(v)
	case map[string]any:
		for _, f := range v {
			s, _ := f.(string)
			add(s)
		}
	}
	slices.Sort(out)
	return out
}

// Every key of English is in every language, not empty, with the same
// plural shape and the same {{.Name}} fields (a translation that drops a
// figure fails), and no language has a key English lacks.
func TestEveryKeyHasEveryLanguage(t *testing.T) {
	en := messages(t, English)
	if len(en) == 0 {
		t.Fatal("no English key")
	}
	for _, l := range Langs[1:] {
		m := messages(t, l)
		for _, k := range slices.Sorted(maps.Keys(en)) {
			v, ok := m[k]
			switch {
			case !ok:
				t.Errorf("%s: %q has no translation", l, k)
			case !sound(v):
				t.Errorf("%s: %q is empty or lacks a plural form one/other: %v", l, k, v)
			case !slices.Equal(fields(v), fields(en[k])):
				t.Errorf("%s: %q has fields %v, English %v", l, k, fields(v), fields(en[k]))
			}
		}
		for k := range m {
			if _, ok := en[k]; !ok {
				t.Errorf("%s: %q is not an English key", l, k)
			}
		}
	}
	if err := LoadError(); err != nil {
		t.Errorf("the files do not parse: %v", err)
	}
}

// sound: a non-empty string, or plural forms with one and other.
func sound(v any) bool {
	switch v := v.(type) {
	case string:
		return v != ""
	case map[string]any:
		one, _ := v["one"].(string)
		other, _ := v["other"].(string)
		return one != "" && other != ""
	}
	return false
}

// Fyne's own translation loader reads the files as they are, so the
// window can hand them to lang.AddTranslationsFS.
func TestFyneReadsTheFiles(t *testing.T) {
	if err := lang.AddTranslationsFS(Files, "translations"); err != nil {
		t.Fatal(err)
	}
	// Fyne picks the system's language; either way it finds our key.
	if got := lang.X("lesson.kv.title", "missing"); got != English.T("lesson.kv.title", nil) && got != French.T("lesson.kv.title", nil) {
		t.Errorf("lang.X: %q", got)
	}
}

func TestLanguageFromTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want Lang
	}{
		{map[string]string{}, English},
		{map[string]string{"LANG": "fr_FR.UTF-8"}, French},
		{map[string]string{"LANG": "fr_CA"}, French},
		{map[string]string{"LANG": "fr"}, French},
		{map[string]string{"LANG": "en_US.UTF-8"}, English},
		{map[string]string{"LANG": "de_DE.UTF-8"}, English},
		{map[string]string{"LANG": "fy_NL"}, English}, // Frisian is not French
		{map[string]string{"LANG": "C"}, English},
		{map[string]string{"LANG": "en_GB.UTF-8", "LC_MESSAGES": "fr_BE.UTF-8"}, French},
		{map[string]string{"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "en_US.UTF-8"}, English},
		{map[string]string{"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8", "LC_ALL": "C"}, English},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": "fr_CH.UTF-8"}, French},
	} {
		if got := FromEnv(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %s, want %s", c.env, got, c.want)
		}
	}
}

func TestChooseFlagWins(t *testing.T) {
	env := func(k string) string { return map[string]string{"LANG": "fr_FR.UTF-8"}[k] }
	for _, c := range []struct {
		flag string
		want Lang
		ok   bool
	}{{"", French, true}, {"en", English, true}, {"fr", French, true}, {"FR", French, true}, {"de", English, false}} {
		got, err := Choose(c.flag, env)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("--lang %q: %s, %v; want %s", c.flag, got, err, c.want)
		}
	}
}

// Plural forms follow each language's rule: French counts 0 as one.
func TestPluralForms(t *testing.T) {
	for _, c := range []struct {
		l    Lang
		n    int
		want string
	}{
		{English, 1, "1 token"}, {English, 0, "0 tokens"}, {English, 2, "2 tokens"},
		{French, 1, "1 token"}, {French, 0, "0 token"}, {French, 2, "2 tokens"},
		{French, 1_000_000, "1000000 tokens"}, // CLDR's "many" falls back to "other"
	} {
		if got := c.l.N("unit.token", c.n, Args{"N": c.n}); got != c.want {
			t.Errorf("%s %d: %q, want %q", c.l, c.n, got, c.want)
		}
	}
}

// An unknown key comes back as itself, and the zero Lang speaks English.
func TestUnknownKeyAndZeroLang(t *testing.T) {
	if got := French.T("no.such.key", nil); got != "no.such.key" {
		t.Errorf("unknown key: %q", got)
	}
	if got := Lang("").T("lang.name", nil); got != "English" {
		t.Errorf("zero Lang: %q", got)
	}
	if got := French.T("lang.name", nil); got != "Français" {
		t.Errorf("French: %q", got)
	}
}

// The French file uses the article's words (docs/glossary.md): token,
// never jeton.
func TestFrenchUsesTheArticlesWords(t *testing.T) {
	data, err := Files.ReadFile("translations/loupe.fr.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"jeton", "tête de sortie", "décodeur"} {
		if strings.Contains(strings.ToLower(string(data)), w) {
			t.Errorf("the French file says %q (docs/glossary.md)", w)
		}
	}
}

func TestNames(t *testing.T) {
	if English.Name() != "English" || French.Name() != "Français" {
		t.Errorf("%q %q", English.Name(), French.Name())
	}
}
