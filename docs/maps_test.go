package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// backticked finds the `names` of a table cell.
var backticked = regexp.MustCompile("`([^`]+)`")

// section is the text of README's "## name" section, up to the next "## ".
func section(t *testing.T, doc, name string) string {
	t.Helper()
	_, after, ok := strings.Cut(doc, "\n## "+name+"\n")
	if !ok {
		t.Fatalf("no section %q", name)
	}
	before, _, _ := strings.Cut(after, "\n## ")
	return before
}

// tableRows are the cells of the markdown table rows of text, header and
// rule left out.
func tableRows(text string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	return rows[min(1, len(rows)):]
}

// ourImports is every package of the module with the packages of the
// module it imports (tests left out), as `go list` reports them, named
// from the repository's top ("engine/chat"; the main package is "main.go").
func ourImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", "./...")
	cmd.Dir = root
	// With cgo, as the window is built: main.go then imports app too.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	name := func(p string) string {
		if p == "loupe" {
			return "main.go"
		}
		return strings.TrimPrefix(p, "loupe/")
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, imports, _ := strings.Cut(line, ":")
		var ours []string
		for _, im := range strings.Fields(imports) {
			if im == "loupe" || strings.HasPrefix(im, "loupe/") {
				ours = append(ours, name(im))
			}
		}
		slices.Sort(ours)
		pkgs[name(path)] = ours
	}
	return pkgs
}

// TestReadmeLayout: README's Layout names every package of the module, and
// for each the packages of ours it imports, exactly as go list has them;
// every other path it names exists.
func TestReadmeLayout(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := ourImports(t)
	listed := map[string]bool{}
	for _, row := range tableRows(section(t, string(b), "Layout")) {
		if len(row) < 3 {
			t.Errorf("layout row %q: want path | what | imports", row)
			continue
		}
		m := backticked.FindStringSubmatch(row[0])
		if m == nil {
			t.Errorf("layout row %q names no path", row[0])
			continue
		}
		path := strings.TrimSuffix(m[1], "/")
		want, isPkg := pkgs[path]
		if !isPkg {
			if _, err := os.Stat(filepath.Join(root, path)); err != nil {
				t.Errorf("layout names %s, which is neither a package nor a path of the repository", path)
			}
			continue
		}
		listed[path] = true
		var got []string
		for _, m := range backticked.FindAllStringSubmatch(row[2], -1) {
			got = append(got, strings.TrimSuffix(m[1], "/"))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("layout: %s imports %v, go list says %v", path, got, want)
		}
	}
	for p := range pkgs {
		if !listed[p] {
			t.Errorf("README's layout lacks package %s (imports %v)", p, pkgs[p])
		}
	}
}

// TestArchMap: engine/ARCH.md's table names every Go file of the engine
// package, and only files that exist.
func TestArchMap(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "engine", "ARCH.md"))
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, row := range tableRows(string(b)) {
		for _, m := range backticked.FindAllStringSubmatch(row[0], -1) {
			named[m[1]] = true
			if _, err := os.Stat(filepath.Join(root, "engine", m[1])); err != nil {
				t.Errorf("engine/ARCH.md names %s, which does not exist", m[1])
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, "engine", "*.go"))
	for _, f := range files {
		if base := filepath.Base(f); !strings.HasSuffix(base, "_test.go") && !named[base] {
			t.Errorf("engine/ARCH.md's table lacks %s: add a row saying what it holds", base)
		}
	}
	if len(named) < 10 {
		t.Errorf("engine/ARCH.md's table names %d files: is the pattern broken?", len(named))
	}
}

// TestSpecsStandAlone: the specifications open with their subject, not
// with a folder outside the repository.
func TestSpecsStandAlone(t *testing.T) {
	specs, _ := filepath.Glob(filepath.Join(root, "docs", "spec", "*.md"))
	outside := regexp.MustCompile(`\bshared/|\.\./|/work/|~/`)
	for _, f := range specs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head := strings.Join(strings.SplitN(string(b), "\n", 6)[:min(5, strings.Count(string(b), "\n"))], "\n")
		if outside.MatchString(head) {
			t.Errorf("%s opens by naming a folder outside the repository: %q", filepath.Base(f), head)
		}
	}
}
