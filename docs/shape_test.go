package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxMethods is the most methods one type of the window layer may have:
// past it a type stops being one idea (the window's UI once had 194).
const maxMethods = 100

// methodCounts counts, per receiver type, the methods declared in the
// non-test Go files of dir.
func methodCounts(t *testing.T, dir string) map[string]int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) == 1 {
				counts[receiverName(fn.Recv.List[0].Type)]++
			}
		}
	}
	return counts
}

// receiverName is T for a receiver of type T or *T (generic or not).
func receiverName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverName(x.X)
	case *ast.IndexExpr:
		return receiverName(x.X)
	case *ast.IndexListExpr:
		return receiverName(x.X)
	case *ast.Ident:
		return x.Name
	}
	return "?"
}

// TestNoTypeOverMaxMethods: no type of the window's packages has more
// than maxMethods methods.
func TestNoTypeOverMaxMethods(t *testing.T) {
	for _, pkg := range []string{"app", "views", "session", "viz"} {
		dir := filepath.Join("..", pkg)
		if _, err := os.Stat(dir); err != nil {
			t.Fatal(err)
		}
		counts := methodCounts(t, dir)
		if len(counts) == 0 {
			t.Fatalf("%s: no methods found", pkg)
		}
		for typ, n := range counts {
			if n > maxMethods {
				t.Errorf("%s.%s has %d methods, more than %d: split it by what its methods are about", pkg, typ, n, maxMethods)
			}
		}
	}
}
