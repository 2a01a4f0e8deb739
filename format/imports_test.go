package format

import (
	"go/build"
	"strings"
	"testing"
)

// The formatters stay headless and free of our other packages, so that the
// engine, the command line, the figures and the window can all call them.
func TestImportsOnlyStdlib(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range append(p.Imports, p.TestImports...) {
		if strings.Contains(im, ".") || strings.HasPrefix(im, "loupe") {
			t.Errorf("format imports %s: the standard library only", im)
		}
	}
}
