package app

import (
	"os"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	fynelang "fyne.io/fyne/v2/lang"

	"loupe/format"
	"loupe/i18n"
	"loupe/views"
)

// prefLang is the remembered language of View › Language ("en", "fr";
// "": follow the system).
const prefLang = "lang"

// chooseLang is the window's language for this launch: --lang, else the
// remembered choice, else the system's (LC_ALL, LC_MESSAGES, LANG). It
// is set once, before any panel is built (views.Lang), and Fyne's own
// dialogs are told to speak it too.
func chooseLang(flagLang string, prefs fyne.Preferences) i18n.Lang {
	l := i18n.System()
	if saved, err := i18n.Parse(prefs.String(prefLang)); err == nil && prefs.String(prefLang) != "" {
		l = saved
	}
	if flagLang != "" {
		l, _ = i18n.Parse(flagLang) // ParseFlags refused a bad value
	}
	views.Lang = l
	os.Setenv("LANGUAGE", string(l)) // Fyne's own dialogs read it (go-locale)
	if err := fynelang.AddTranslationsFS(i18n.Files, "translations"); err != nil {
		fyne.LogError("loupe's translations", err)
	}
	return l
}

// tr is the sentence of key in the window's language.
func tr(key string, args i18n.Args) string { return views.Lang.T(key, args) }

// nums writes numbers the way the window's language does.
func nums() format.Lang { return views.Lang.Numbers() }

// languageItems are View › Language's: each language by its own name,
// the one in use checked. The panels make their labels once, so the
// choice is remembered and applies at the next launch, as the dialog
// says.
func (fc *menus) languageItems() *fyne.MenuItem {
	u := fc.ui
	m := u.menus.item(tr("app.menu.language", nil), nil)
	for _, l := range i18n.Langs {
		it := u.menus.item(l.Name(), func() {
			u.app.Preferences().SetString(prefLang, string(l))
			if l != views.Lang {
				dialog.ShowInformation(l.T("app.lang.next_launch.title", nil), l.T("app.lang.next_launch", i18n.Args{"Name": l.Name()}), u.win)
			}
			u.menus.buildMenu()
		})
		it.Checked = l == views.Lang
		m.ChildMenu = appendItem(m.ChildMenu, it)
	}
	return m
}

// panelOfTab is the Name of the panel whose English title is tab: the
// lesson's Show.Tab names a tab in English, whatever language the
// window speaks.
func panelOfTab(tab string) string {
	for _, name := range tabNames {
		if i18n.English.T("views.tab."+name, nil) == tab {
			return name
		}
	}
	return ""
}

// thousands is n with its thousands apart, as the window's language
// writes them: "1,536", "1 536".
func thousands[T ~int | ~int64](n T) string { return nums().Thousands(int64(n)) }
