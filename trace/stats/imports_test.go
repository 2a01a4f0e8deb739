package stats

import (
	"go/build"
	"slices"
	"strings"
	"testing"
)

// The derived numbers stay headless: of our packages only the plain data
// of a run (trace), besides the standard library.
func TestImportsTraceAndStdlib(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range slices.Concat(p.Imports, p.TestImports) {
		if im != "loupe/trace" && (strings.Contains(im, ".") || strings.HasPrefix(im, "loupe")) {
			t.Errorf("stats imports %s: only loupe/trace and the standard library", im)
		}
	}
}
