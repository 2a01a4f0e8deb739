package viz

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps viz headless: no Fyne, no engine; of our packages only
// the plain-data trace, the numbers derived from it (trace/stats), the
// formatters (format), the translations (i18n), and viz itself in the external examples.
func TestImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			allowed := map[string]bool{"loupe/trace": true, "loupe/trace/stats": true, "loupe/format": true, "loupe/i18n": true, "loupe/viz": true}
			ours := strings.HasPrefix(path, "loupe/") && !allowed[path]
			if strings.HasPrefix(path, "fyne.io/") || ours {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
