package app

import (
	"io"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"loupe/assets"
	"loupe/engine"
	"loupe/engine/hub"
	"loupe/i18n"
	"loupe/views"
)

// --lang takes en or fr and refuses the rest, as the headless commands do.
func TestLangFlag(t *testing.T) {
	if o, err := ParseFlags([]string{"--lang", "fr"}, io.Discard); err != nil || o.Lang != "fr" {
		t.Fatalf("--lang fr: %v, %q", err, o.Lang)
	}
	if _, err := ParseFlags([]string{"--lang", "de"}, io.Discard); err == nil {
		t.Fatal("--lang de accepted")
	}
}

// The language of a launch: --lang, else the remembered choice, else the
// system's (LC_ALL, LC_MESSAGES, LANG).
func TestChooseLang(t *testing.T) {
	a := test.NewTempApp(t)
	prefs := a.Preferences()
	t.Setenv("LANGUAGE", "")
	t.Setenv("LC_ALL", "fr_FR.UTF-8")
	defer func() { views.Lang = i18n.English }()
	cases := []struct {
		flag, saved string
		want        i18n.Lang
	}{
		{"", "", i18n.French},     // the system's
		{"", "en", i18n.English},  // the remembered choice over the system's
		{"fr", "en", i18n.French}, // --lang over the remembered choice
		{"en", "", i18n.English},  // --lang over the system's
	}
	for _, c := range cases {
		prefs.SetString(prefLang, c.saved)
		if got := chooseLang(c.flag, prefs); got != c.want || views.Lang != c.want {
			t.Errorf("--lang %q, saved %q: %q (views %q), want %q", c.flag, c.saved, got, views.Lang, c.want)
		}
	}
}

// The lesson names tabs by their English titles: each finds its panel
// whatever the window's language, and the French titles are translated.
func TestPanelOfTab(t *testing.T) {
	for _, name := range tabNames {
		en := i18n.English.T("views.tab."+name, nil)
		if got := panelOfTab(en); got != name {
			t.Errorf("panelOfTab(%q) = %q, want %q", en, got, name)
		}
		if fr := i18n.French.T("views.tab."+name, nil); fr == "" || fr == "views.tab."+name {
			t.Errorf("%s: no French title", name)
		}
	}
	if got := panelOfTab("KV cache"); got != "kv-cache" {
		t.Errorf("the lesson's \"KV cache\" finds %q", got)
	}
}

// The bad-model dialog's last paragraph says in English what the engine
// says (engine.SupportedFiles, the CLI's), and in French the same lists.
func TestExpectedFilesInBothLanguages(t *testing.T) {
	old := views.Lang
	t.Cleanup(func() { views.Lang = old })
	views.Lang = i18n.English
	if got, want := expected(), engine.SupportedFiles(); got != want {
		t.Errorf("English: %q\nwant the engine's %q", got, want)
	}
	views.Lang = i18n.French
	archs, gguf, types := engine.SupportedNames()
	if got := expected(); !strings.HasPrefix(got, "Attendu") || !strings.Contains(got, archs) || !strings.Contains(got, gguf) || !strings.Contains(got, types) {
		t.Errorf("French: %q", got)
	}
}

// Every model of the Get a model… list says what it shows in French,
// and in English says the catalogue's own sentence.
func TestCatalogueInBothLanguages(t *testing.T) {
	old := views.Lang
	t.Cleanup(func() { views.Lang = old })
	for _, e := range hub.Catalog {
		views.Lang = i18n.English
		if got := shows(e); got != e.Shows {
			t.Errorf("%s in English: %q, want the catalogue's %q", e.ID, got, e.Shows)
		}
		views.Lang = i18n.French
		if got := shows(e); got == e.Shows {
			t.Errorf("%s: no French sentence (app.models.shows.%s)", e.ID, e.ID)
		}
	}
}

// The demo prompts' captions (Prompts menu, status line) come in French
// too; in English they are the assets' own sentences.
func TestDemoCaptionsInBothLanguages(t *testing.T) {
	old := views.Lang
	t.Cleanup(func() { views.Lang = old })
	for _, d := range assets.DemoExamples {
		views.Lang = i18n.English
		if got := demoCaption(d.Text); got != d.Caption {
			t.Errorf("English caption %q, want the assets' %q", got, d.Caption)
		}
		views.Lang = i18n.French
		if got := demoCaption(d.Text); got == d.Caption || got == "" {
			t.Errorf("no French caption for %q", d.Text)
		}
	}
	if demoCaption("not a demo prompt") != "" {
		t.Error("a caption for another text")
	}
}
