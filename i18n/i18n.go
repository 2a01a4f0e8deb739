// Package i18n is the language Loupe speaks: English or French. Every
// sentence a person reads is a key in the translation files
// (translations/loupe.LANG.json), in the format of Fyne's own
// translations (fyne.io/fyne/v2/lang, which reads them with
// github.com/nicksnyder/go-i18n): one key per string, a value that is a
// Go template ("{{.N}} layers"), and an object of plural forms ("one",
// "other") where a count varies. A third language is one more file (and,
// if it writes numbers neither the English nor the French way, one more
// format.Lang value).
//
// Why not call fyne.io/fyne/v2/lang directly: it builds without cgo, but
// it keeps one language for the whole process, taken from the system's
// locale, with no way to set it; `loupe lesson --lang fr`, a test that
// wants French beside one that wants English, and the window's
// remembered choice all need the language as a value. So the language
// here is a value (Lang), each with its own localizer over the same
// files; nothing global changes when one is chosen.
//
// How a caller uses it:
//
//	l, err := i18n.Choose(flagLang, os.Getenv) // --lang wins, then LC_ALL, LC_MESSAGES, LANG
//	title := l.T("lesson.tokens.title", nil)
//	n := l.N("unit.token", 3, i18n.Args{"N": l.Numbers().Thousands(3)})
//	pct := l.Numbers().Percent(0.675) // "67.5 %", "67,5 %": numbers go through format
//
// The window (app, views) chooses its Lang once per launch: --lang, else
// View › Language's remembered choice (fyne.Preferences), else the
// system's; the panels make their labels with it (views.Lang), so a
// choice in the menu applies at the next launch. For Fyne's own dialogs
// (file picker, …), which Fyne translates itself from the system's
// locale, the window sets LANGUAGE to the chosen code before it opens
// and calls lang.AddTranslationsFS(i18n.Files, "translations") so that
// lang.X sees Loupe's keys too.
package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"

	"loupe/format"
)

// Lang is a language Loupe speaks, by its ISO 639-1 code. The zero Lang
// speaks English.
type Lang string

// The languages of the translation files.
const (
	English Lang = "en"
	French  Lang = "fr"
)

// Langs lists every language, English (the fallback) first.
var Langs = []Lang{English, French}

// Files are the translation files, one per language, for
// lang.AddTranslationsFS(i18n.Files, "translations").
//
//go:embed translations/*.json
var Files embed.FS

// Args are a sentence's named values, already formatted: {"N": "1,536"}.
type Args = map[string]any

// Parse reads a --lang value: "en" or "fr".
func Parse(s string) (Lang, error) {
	for _, l := range Langs {
		if strings.EqualFold(s, string(l)) {
			return l, nil
		}
	}
	return English, fmt.Errorf("--lang %q: want en or fr", s)
}

// FromLocale is the language of a POSIX locale name: French for "fr" and
// any "fr_*" ("fr_FR.UTF-8", "fr_CA"), English for the rest ("C",
// "de_DE.UTF-8", "").
func FromLocale(loc string) Lang {
	if loc == "fr" || strings.HasPrefix(loc, "fr_") || strings.HasPrefix(loc, "fr.") || strings.HasPrefix(loc, "fr@") {
		return French
	}
	return English
}

// FromEnv is the system's language as POSIX orders its variables: the
// first set of LC_ALL, LC_MESSAGES and LANG. getenv is os.Getenv, or a
// test's map.
func FromEnv(getenv func(string) string) Lang {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc := getenv(v); loc != "" {
			return FromLocale(loc)
		}
	}
	return English
}

// System is the language of this process's environment.
func System() Lang { return FromEnv(os.Getenv) }

// Choose is the language of one launch: flag (--lang) when it is set,
// else the environment's.
func Choose(flag string, getenv func(string) string) (Lang, error) {
	if flag != "" {
		return Parse(flag)
	}
	return FromEnv(getenv), nil
}

// Name is l's name in itself ("English", "Français"), for a language
// menu.
func (l Lang) Name() string { return l.T("lang.name", nil) }

// Numbers is how l writes numbers (format.English, format.French).
func (l Lang) Numbers() format.Lang {
	if l == French {
		return format.French
	}
	return format.English
}

// T is the sentence of key in l, its {{.Name}} fields filled from args.
// A key that l's file lacks falls back to English; a key no file has
// is returned as it is (the key test fails on it before a user sees
// it).
func (l Lang) T(key string, args Args) string {
	return l.localize(&goi18n.LocalizeConfig{MessageID: key, TemplateData: args})
}

// N is T for a sentence with plural forms, the form chosen by count by
// l's rule (French says "1 token", "0 token", "2 tokens").
func (l Lang) N(key string, count int, args Args) string {
	return l.localize(&goi18n.LocalizeConfig{MessageID: key, PluralCount: count, TemplateData: args})
}

func (l Lang) localize(c *goi18n.LocalizeConfig) string {
	s, err := localizer(l).Localize(c)
	if s == "" && err != nil {
		return c.MessageID
	}
	return s
}

var (
	loadOnce   sync.Once
	localizers map[Lang]*goi18n.Localizer
	loadErr    error
)

// localizer is l's, built once from Files: a read-only table after that,
// the same for every caller.
func localizer(l Lang) *goi18n.Localizer {
	loadOnce.Do(func() { localizers, loadErr = load() })
	if loc, ok := localizers[l]; ok {
		return loc
	}
	return localizers[English]
}

// load parses every file of Files into one bundle (English its default)
// and makes one localizer per language.
func load() (map[Lang]*goi18n.Localizer, error) {
	b := goi18n.NewBundle(language.English)
	b.RegisterUnmarshalFunc("json", json.Unmarshal)
	var first error
	for _, l := range Langs {
		name := "translations/loupe." + string(l) + ".json"
		data, err := Files.ReadFile(name)
		if err == nil {
			_, err = b.ParseMessageFileBytes(data, name)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	out := map[Lang]*goi18n.Localizer{}
	for _, l := range Langs {
		out[l] = goi18n.NewLocalizer(b, string(l), string(English))
	}
	return out, first
}

// LoadError is the error parsing the files met, nil when they are sound.
func LoadError() error {
	loadOnce.Do(func() { localizers, loadErr = load() })
	return loadErr
}

// Arithmetic is format.Arithmetic's sentence in l: what a run's
// arithmetic ("bf16", "bf16:experts+int8") means.
func (l Lang) Arithmetic(a string) string {
	key, parts := format.ArithmeticKey(a)
	return l.T(key, Args{"Parts": parts, "Name": a})
}
