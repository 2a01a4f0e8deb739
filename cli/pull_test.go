package cli

import (
	"bytes"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"loupe/engine/hub"
	"loupe/engine/hub/fakehub"
)

// hubEnv points the Hub variables at a fresh cache and endpoint.
func hubEnv(t *testing.T, endpoint string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_HUB_CACHE", filepath.Join(home, "hub"))
	t.Setenv("HF_ENDPOINT", endpoint)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HF_HUB_OFFLINE", "")
	t.Setenv("HOME", home) // no LM Studio / llama.cpp folders of the machine
	t.Setenv("LLAMA_CACHE", filepath.Join(home, "llama.cpp"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	return filepath.Join(home, "hub")
}

func cmd(args ...string) (int, string, string) {
	var o, e bytes.Buffer
	code := Main(args, &o, &e)
	return code, o.String(), e.String()
}

// TestPullThenRun: `loupe pull` from a loopback Hub prints the snapshot
// folder, `loupe run` generates from it, `loupe models` lists it.
func TestPullThenRun(t *testing.T) {
	repo, err := fakehub.FromDir("loupe-test/tiny", "89abcdef0123456789abcdef0123456789abcdef", tinyDir(t))
	if err != nil {
		t.Fatal(err)
	}
	h := fakehub.New(repo)
	defer h.Close()
	cache := hubEnv(t, h.URL)
	code, out, errs := cmd("pull", "loupe-test/tiny", "--revision", "main")
	if code != 0 {
		t.Fatalf("pull: exit %d: %s", code, errs)
	}
	dir := strings.TrimSpace(out)
	if want := filepath.Join(cache, "models--loupe-test--tiny", "snapshots", repo.Commit); dir != want {
		t.Fatalf("pull printed %q, want %q", dir, want)
	}
	if !strings.Contains(errs, "done: ") || !strings.Contains(errs, "Loupe can open it") {
		t.Errorf("stderr lacks progress or the verdict:\n%s", errs)
	}
	if code, _, errs := cmd("run", "--model", dir, "--prompt", "Hello", "--max-tokens", "2"); code != 0 {
		t.Fatalf("run on the pulled model: exit %d: %s", code, errs)
	}
	code, out, errs = cmd("models", "--json")
	if code != 0 {
		t.Fatalf("models: exit %d: %s", code, errs)
	}
	var list []hub.Local
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].Path != dir || !list[0].CanOpen {
		t.Fatalf("models --json: %v\n%s", err, out)
	}
}

// TestPullErrors: one line, exit 1 (offline, unknown model); exit 2 for usage.
func TestPullErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	hubEnv(t, closed)
	code, _, errs := cmd("pull", "Qwen/Qwen2.5-0.5B")
	if code != 1 || !strings.Contains(errs, "cannot reach") {
		t.Errorf("offline: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := cmd("pull", "not-a-repo-id"); code != 1 || !strings.Contains(errs, "ORG/NAME") {
		t.Errorf("bad id: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := cmd("pull"); code != 2 {
		t.Errorf("no argument: exit %d, want 2", code)
	}
}
