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
// sentences, the figures and `loupe lesson`'s text.
var proseSources = []string{"../lesson/*.go", "../engine/experiment/*.go", "../viz/*.go", "../cli/lesson.go"}

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
	"lesson.go: usage: loupe lesson ": "lessonUsage, the head of loupe lesson --help: help may stay English",
	"lesson.go: loupe lesson: ":       "the prefix of an error on stderr: errors stay English",
	"chapters.go: KV cache":           "Show.Tab, the window's tab a chapter opens: an id for programs (JSON)",
	"timing.go: Next token":           "Show.Tab, the window's tab a chapter opens: an id for programs (JSON)",
	"numbering.go: counted from ":     "Numbering.String, the setting's Go name; Theme.CountedFrom says it in a language",
	"params.go: output head":          "trace/stats' name of a model part, compared, never shown (Theme.part translates it)",
	"words.go: Gated DeltaNet":        "trace/stats' names of model parts, the keys of their translations",
	"words.go: output head":           "trace/stats' name of a model part, the key of its translation",
}

// englishWords are two words in a row, the shape of a label ("no
// data") or a sentence; a single word is too short to tell from a name.
var englishWords = regexp.MustCompile(`[A-Za-z]{2,}[ ,:;]+[A-Za-z]{2,}`)

// proseLiterals lists the string literals of file that look like
// English prose, as "file: literal", outside the calls of notForPeople,
// struct tags and imports.
func proseLiterals(t *testing.T, file string) []string {
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
			if slices.Contains(notForPeople, callName(n.Fun)) {
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
		name := filepath.Base(file) + ": " + s
		if _, ok := allowed(name); !ok {
			out = append(out, fset.Position(lit.Pos()).String()+": "+strconv.Quote(s))
		}
		return true
	})
	return out
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
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		for _, p := range proseLiterals(t, file) {
			t.Errorf("English prose outside the translation files: %s", p)
		}
	}
}
