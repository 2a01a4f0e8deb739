// Package docs holds the repository's documentation (docs/spec/, the
// performance tables) and the checks a newcomer would run on the whole tree:
// every cited spec section exists, the README stays short, and the files
// speak of the project, not of how it was made.
package docs

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository's top folder, seen from this package.
const root = ".."

// readmeMaxLines is the README's length limit: it is for users.
const readmeMaxLines = 200

// processWords are phrases about how the project was made (who did what, in
// which round of work, under which acceptance rule) rather than about the
// project. Each is written so that ordinary uses (t.Helper, a saved
// session, a token that leads at a layer) do not match.
var processWords = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bsessions? \d+\b`),
	regexp.MustCompile(`(?i)\bthe[ ]lead\b`),
	regexp.MustCompile(`(?i)\blanding (bar|rule)s?\b`),
	regexp.MustCompile(`(?i)\bissues? #?\d+`),
	regexp.MustCompile(`(?i)\bthe issue('s| spells| asks| says)\b`),
	regexp.MustCompile(`(?i)\bhelpers? demo\d|\bby (a |the )?helpers?\b|\ba helper's\b|\bhelpers? (found|wrote|measured|reported|did|said)\b`),
	regexp.MustCompile(`(?i)\bthrowaway (instrumentation|build|code)\b`),
	regexp.MustCompile(`(?i)\brounds? (\d+ )?of work\b|\bnumbered round\b`),
	regexp.MustCompile(`(?i)\bdata scout\b`),
}

// specCitation finds a path under docs/spec/ anywhere, and a bare spec
// file name followed by a section (§3.2, B.8, part A): a spec citation.
// Group 1 or 2 is the file's name without its extension.
var specCitation = regexp.MustCompile(`(?:docs/spec/([A-Za-z0-9_-]+)\.md)|(?:\b([A-Za-z0-9_-]+)\.md(?:'s)?\s+(?:§|[AB]\.\d|part [AB]\b|section \d))`)

// sectionRef finds the sections named right after a citation: §3.2, B.8,
// part B.
var sectionRef = regexp.MustCompile(`§\s*(\d+(?:\.\d+)?)|\b([AB]\.\d+)\b|\bpart ([AB])\b`)

// headingID reads a spec heading's number: "## 3. Forward pass" → "3",
// "### 3.2 RMSNorm" → "3.2", "### B.8 Checklist" → "B.8", "## Part A" →
// "part A".
var headingID = regexp.MustCompile(`^#+\s+(?:(\d+(?:\.\d+)?)\.?\s|([AB]\.\d+)\s|Part ([AB])\b)`)

// trackedFiles lists the repository's files: git's list when the tree is a
// git checkout, else every file under root but build outputs.
func trackedFiles(t *testing.T) []string {
	t.Helper()
	if out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output(); err == nil && len(out) > 0 {
		var files []string
		for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			files = append(files, filepath.FromSlash(f))
		}
		return files
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "build" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking the tree: %v", err)
	}
	return files
}

// textFiles reads every tracked text file (no NUL byte, under 4 MB), keyed
// by its path with forward slashes. docs/spec/ (copied from outside) and
// *.jsonl (test data) are left out, as is this file, which spells the words
// it looks for.
func textFiles(t *testing.T) map[string][]byte {
	t.Helper()
	texts := map[string][]byte{}
	for _, f := range trackedFiles(t) {
		rel := filepath.ToSlash(f)
		if strings.HasPrefix(rel, "docs/spec/") || strings.HasSuffix(rel, ".jsonl") || rel == "docs/tree_test.go" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree, not yet in git
			}
			t.Fatalf("%s: %v", rel, err)
		}
		if len(b) > 4<<20 || bytes.IndexByte(b, 0) >= 0 {
			continue
		}
		texts[rel] = b
	}
	if len(texts) < 50 {
		t.Fatalf("found %d text files under %s: is the repository there?", len(texts), root)
	}
	return texts
}

// TestNoProcessWords: no file speaks of how the project was made. The
// public-domain texts under testdata/texts are other people's words
// (a sailor heaving his sounding line, say), not the project's.
func TestNoProcessWords(t *testing.T) {
	for path, b := range textFiles(t) {
		if strings.HasPrefix(filepath.ToSlash(path), "testdata/texts/") {
			continue
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, re := range processWords {
				if m := re.FindString(line); m != "" {
					t.Errorf("%s:%d: %q is about how the project was made, not about the project", path, i+1, m)
				}
			}
		}
	}
}

// specSections reads the section numbers of every file in docs/spec/,
// keyed by its name without ".md".
func specSections(t *testing.T) map[string]map[string]bool {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(root, "docs", "spec", "*.md"))
	if err != nil || len(paths) < 8 {
		t.Fatalf("docs/spec/ holds %d files (%v): the specs the code cites are missing", len(paths), err)
	}
	sections := map[string]map[string]bool{}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".md")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("spec file: %v", err)
		}
		ids := map[string]bool{}
		for _, line := range strings.Split(string(b), "\n") {
			if m := headingID.FindStringSubmatch(line); m != nil {
				ids[m[1]+m[2]+strings.TrimSpace(m[3])] = true
				if m[3] != "" {
					ids["part "+m[3]] = true
				}
			}
		}
		sections[name] = ids
	}
	return sections
}

// TestSpecCitations: every spec a file cites is in docs/spec/, and every
// section it names after the file's name is a heading of that file.
func TestSpecCitations(t *testing.T) {
	sections := specSections(t)
	cited := 0
	for path, b := range textFiles(t) {
		for i, line := range strings.Split(string(b), "\n") {
			locs := specCitation.FindAllStringSubmatchIndex(line, -1)
			for k, loc := range locs {
				name := group(line, loc, 1) + group(line, loc, 2)
				ids, ok := sections[name]
				if !ok {
					t.Errorf("%s:%d: cites %s, which is not in docs/spec/", path, i+1, name+".md")
					continue
				}
				cited++
				// The sections named run from the file's name to the
				// next citation or the closing parenthesis.
				end := len(line)
				if k+1 < len(locs) {
					end = locs[k+1][0]
				}
				start := loc[0] + strings.Index(line[loc[0]:], ".md") + len(".md")
				tail := line[start:end]
				if p := strings.IndexByte(tail, ')'); p >= 0 {
					tail = tail[:p]
				}
				for _, s := range sectionRef.FindAllStringSubmatch(tail, -1) {
					id := s[1] + s[2]
					if s[3] != "" {
						id = "part " + s[3]
					}
					if !ids[id] {
						t.Errorf("%s:%d: %s has no section %s", path, i+1, name+".md", id)
					}
				}
			}
		}
	}
	if cited < 100 {
		t.Errorf("found %d spec citations; the code cites the specs far more often: is the pattern broken?", cited)
	}
}

// group is submatch n of a FindAllStringSubmatchIndex result, "" when unset.
func group(s string, loc []int, n int) string {
	if loc[2*n] < 0 {
		return ""
	}
	return s[loc[2*n]:loc[2*n+1]]
}

// TestReadmeLength: the README is for users and stays short.
func TestReadmeLength(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: measurements go to docs/performance.md", n, readmeMaxLines)
	}
}
