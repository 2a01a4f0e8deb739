package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// proseSources are the Go files whose sentences reach a person and so
// must come from the translation files: the lesson, the experiments'
// sentences, the figures, `loupe lesson`'s text, and the window (app,
// views: the strings its widgets show).
var proseSources = []string{"../lesson/*.go", "../engine/experiment/*.go", "../viz/*.go", "../cli/lesson.go", "../app/*.go", "../views/*.go"}

// terminalCalls are, in the window's files (app, views), the calls that
// write to the terminal, not to a widget: the lines scripts read
// ("loupe: generated …", timings, screenshots saved) and developers'
// messages, English like the errors and the help; and the CSV export's
// header (d.KV, d.Row, d.Token), names for programs that do not change
// with the language.
var terminalCalls = []string{"fmt.Printf", "fmt.Println", "fmt.Fprintf", "fmt.Fprintln", "fyne.LogError", "d.KV", "d.Row", "d.Token"}

// notForPeople are calls whose string arguments are not read as prose
// in a language: errors (English, like the help), flag help (which may
// stay English), a command's usage, developers' logs and panics.
var notForPeople = []string{"fmt.Errorf", "errors.New", "panic", "log.Printf", "log.Println",
	"fs.StringVar", "fs.IntVar", "fs.BoolVar", "fs.Float64Var", "fs.Var", "fs.Func", "fs.String", "fs.Int", "fs.Bool"}

// helpFields are the fields of a command's registration that hold its
// help (cli.Command's Summary and Usage), which may stay English.
var helpFields = []string{"Summary", "Usage"}

// allowedProse are literals, by file and start, that look like prose
// but are not a sentence a person reads in a language, each with why.
var allowedProse = map[string]string{
	"lesson.go: usage: loupe lesson ":                "lessonUsage, the head of loupe lesson --help: help may stay English",
	"lesson.go: loupe lesson: ":                      "the prefix of an error on stderr: errors stay English",
	"chapters.go: KV cache":                          "Show.Tab, the window's tab a chapter opens: an id for programs (JSON)",
	"timing.go: Next token":                          "Show.Tab, the window's tab a chapter opens: an id for programs (JSON)",
	"numbering.go: counted from ":                    "Numbering.String, the setting's Go name; Theme.CountedFrom says it in a language",
	"params.go: output head":                         "trace/stats' name of a model part, compared, never shown (Theme.part translates it)",
	"words.go: Gated DeltaNet":                       "trace/stats' names of model parts, the keys of their translations",
	"words.go: output head":                          "trace/stats' name of a model part, the key of its translation",
	"app/app.go: loupe: no display":                  "noDisplayMessage, on stderr before any window opens: a terminal message, English like the errors",
	"app/app.go: GLFW library is not":                "the toolkit's panic text it recognises, never shown",
	"app/lesson.go: KV cache":                        "a lesson Show.Tab id (English) the card dispatches on, never shown",
	"app/layoutreport.go: Next token":                "a lesson Show.Tab id (English) the layout report compares, never shown",
	"app/machine.go: Exact arithmetic (fp32)":        "a Kernels option stored in the preferences and parsed back (exactLabel): a value for programs",
	"app/memory.go: /gc/heap/live:bytes":             "a runtime/metrics name",
	"app/projector.go:  (mixture-of-experts models)": "lessonChapters, in --lesson-chapter's help and error: help and errors stay English",
	"app/uilatency.go: ui latency":                   "--ui-latency's line on stdout at exit, for developers",
	"views/controls.go: max tokens":                  "a setting's name inside its error (intField): errors stay English",
	"views/controls.go: presence penalty":            "a setting's name inside its error (floatField): errors stay English",
	"views/model.go: Read per token":                 "a Model row's id (ModelRows, hybridRows match it); modelRowLabel shows its key's sentence",
	"views/model.go: KV cache":                       "a Model row's id (ModelRows, hybridRows match it); modelRowLabel shows its key's sentence",
	"views/model.go: Gated DeltaNet":                 "stats' name of a model part, compared, never shown",
	"views/model_deltanet.go: KV cache":              "a Model row's id, matched and shown through modelRowLabel's key",
	"views/model_deltanet.go: Output head":           "a Model row's id, shown through modelRowLabel's key",
	"views/model_deltanet.go: Not used":              "a Model row's id, shown through modelRowLabel's key",
	"views/model_deltanet.go: vision tower":          "the engine's name of a part it does not read, the key of its translation (unusedPart)",
	"views/model_deltanet.go: MTP head":              "the engine's name of a part it does not read, the key of its translation (unusedPart)",
}

// englishWords are two words in a row, the shape of a label ("no
// data") or a sentence; a single word is too short to tell from a name.
var englishWords = regexp.MustCompile(`[A-Za-z]{2,}[ ,:;]+[A-Za-z]{2,}`)

// proseLiterals lists the string literals of file that look like
// English prose, as "file: literal", outside the calls of notForPeople,
// struct tags and imports.
func proseLiterals(t *testing.T, file string, skipCalls []string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	skip := map[*ast.BasicLit]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ImportSpec:
			skip[n.Path] = true
		case *ast.Field:
			if n.Tag != nil {
				skip[n.Tag] = true
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && slices.Contains(helpFields, k.Name) {
				if lit, ok := n.Value.(*ast.BasicLit); ok {
					skip[lit] = true
				}
			}
		case *ast.CallExpr:
			if name := callName(n.Fun); slices.Contains(notForPeople, name) || slices.Contains(skipCalls, name) {
				ast.Inspect(n, func(m ast.Node) bool {
					if lit, ok := m.(*ast.BasicLit); ok {
						skip[lit] = true
					}
					return true
				})
			}
		}
		return true
	})
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || skip[lit] {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil || !englishWords.MatchString(s) {
			return true
		}
		name := window(file) + ": " + s
		if _, ok := allowed(name); !ok {
			out = append(out, fset.Position(lit.Pos()).String()+": "+strconv.Quote(s))
		}
		return true
	})
	return out
}

// window is file as the allow-list names it: "app/menu.go" for the
// window's files (app and views have files of the same name), the base
// name for the others.
func window(file string) string {
	dir := filepath.Base(filepath.Dir(file))
	if dir == "app" || dir == "views" {
		return dir + "/" + filepath.Base(file)
	}
	return filepath.Base(file)
}

// allowed finds the allow-list entry whose "file: start" begins name.
func allowed(name string) (string, bool) {
	for k, why := range allowedProse {
		if strings.HasPrefix(name, k) {
			return why, true
		}
	}
	return "", false
}

// callName is "pkg.Func" or "Func" of a call's function.
func callName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			return x.Name + "." + f.Sel.Name
		}
		return f.Sel.Name
	case *ast.Ident:
		return f.Name
	}
	return ""
}

// No English sentence is built outside the translation files in the
// packages that speak to people: each string literal that reads as
// three English words is a translation key's job, or is named in
// allowedProse with the reason it is not for people.
func TestNoProseOutsideTheFiles(t *testing.T) {
	var files []string
	for _, g := range proseSources {
		m, err := filepath.Glob(g)
		if err != nil || len(m) == 0 {
			t.Fatalf("%s: no file (%v)", g, err)
		}
		files = append(files, m...)
	}
	for _, file := range files {
		name := window(file)
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		var skipCalls []string
		if strings.Contains(name, "/") {
			skipCalls = terminalCalls
		}
		for _, p := range proseLiterals(t, file, skipCalls) {
			t.Errorf("English prose outside the translation files: %s", p)
		}
	}
}

// widgetCalls are the calls, in the window's files, whose string
// arguments a widget shows as they are: a label's, a button's, a form
// row's text, a placeholder, a status line.
var widgetCalls = []string{"NewLabel", "NewLabelWithStyle", "NewButton", "NewButtonWithIcon", "NewCheck", "NewFormItem",
	"NewMenuItem", "NewMenu", "NewAccordionItem", "NewTabItem", "NewTabItemWithIcon", "SetText", "SetPlaceHolder",
	"SetPlan", "NewRadioGroup", "NewHyperlink", "ShowInformation", "NewInformation", "NewConfirm", "wrapped", "caption"}

// widgetWord is a word a person would read in a language; names of
// formats and knobs that both languages write alike (PNG…, Top-k) are
// in widgetNames.
var widgetWord = regexp.MustCompile(`[A-Za-z]{3,}`)

var widgetNames = map[string]bool{"PNG…": true, "SVG…": true, "CSV…": true, "Top-k": true, "Top-p": true, "Min-p": true,
	"auto": true, "Loupe — ": true}

// widgetLiterals lists the literals of file handed straight to a widget
// (widgetCalls), fmt.Sprintf formats and concatenations included, that
// hold a word: the short labels ("Open", "Starting…") the two-word rule
// of proseLiterals lets through. A translation's key (tr("views.x",
// nil)) is a call of its own and is not looked into.
func widgetLiterals(t *testing.T, file string) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !slices.Contains(widgetCalls, lastName(call.Fun)) {
			return true
		}
		for _, arg := range call.Args {
			ast.Inspect(arg, func(m ast.Node) bool {
				if c, ok := m.(*ast.CallExpr); ok && lastName(c.Fun) != "Sprintf" {
					return false // tr(key, …), a formatter: its own strings
				}
				lit, ok := m.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && widgetWord.MatchString(s) && !widgetNames[s] {
					out = append(out, fset.Position(lit.Pos()).String()+": "+strconv.Quote(s))
				}
				return true
			})
		}
		return true
	})
	return out
}

// lastName is the function's own name of a call: "SetText" of
// p.Title.SetText.
func lastName(fun ast.Expr) string {
	switch f := fun.(type) {
	case *ast.SelectorExpr:
		return f.Sel.Name
	case *ast.Ident:
		return f.Name
	}
	return ""
}

// No word reaches a widget of the window as a literal: a button, a
// label, a status line or a placeholder says a translation's sentence.
func TestNoWordHandedToAWidget(t *testing.T) {
	for _, g := range []string{"../app/*.go", "../views/*.go"} {
		files, err := filepath.Glob(g)
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no file (%v)", g, err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			for _, p := range widgetLiterals(t, file) {
				t.Errorf("a word handed to a widget, not a translation: %s", p)
			}
		}
	}
}
