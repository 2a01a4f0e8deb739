package app

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"loupe/engine/genmodel"
	"loupe/engine/hub"
	"loupe/engine/hub/fakehub"
)

// hubEnv points the Hugging Face variables at endpoint and a fresh cache.
func hubEnv(t *testing.T, endpoint string) string {
	t.Helper()
	home := t.TempDir()
	for k, v := range map[string]string{"HF_HOME": home, "HF_HUB_CACHE": filepath.Join(home, "hub"),
		"HF_ENDPOINT": endpoint, "HF_TOKEN": "", "HF_HUB_OFFLINE": "", "HOME": home,
		"LLAMA_CACHE": filepath.Join(home, "llama"), "XDG_CACHE_HOME": filepath.Join(home, ".cache")} {
		t.Setenv(k, v)
	}
	return filepath.Join(home, "hub")
}

// TestGetModelDownloadsAndOpens: the dialog pulls a repo typed in its
// field from a loopback Hub, shows progress, and opens the snapshot;
// then the model list finds it, openable.
func TestGetModelDownloadsAndOpens(t *testing.T) {
	src := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(src, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	repo, err := fakehub.FromDir("loupe-test/tiny", "fedcba9876543210fedcba9876543210fedcba98", src)
	if err != nil {
		t.Fatal(err)
	}
	fh := fakehub.New(repo)
	defer fh.Close()
	cache := hubEnv(t, fh.URL)
	h := newHarness(t, Options{})
	h.u.modelsMenu.showGetModel()
	g := h.u.modelsMenu.dialogs.get
	if g == nil {
		t.Fatal("no Get a model dialog")
	}
	if g.Repo.Text != hub.Catalog[0].ID || g.Get.Disabled() {
		t.Errorf("first entry not selected: field %q, button disabled %v", g.Repo.Text, g.Get.Disabled())
	}
	g.Repo.SetText("loupe-test/tiny")
	test.Tap(g.Get)
	h.wait() // the pulled model loaded
	want := filepath.Join(cache, "models--loupe-test--tiny", "snapshots", repo.Commit)
	if got := h.u.app.Preferences().StringList(prefRecentModels); len(got) == 0 || got[0] != want {
		t.Fatalf("recent models %v, want %s first", got, want)
	}
	if g.Bar.Value != 1 {
		t.Errorf("progress bar at %v after the download, want 1", g.Bar.Value)
	}

	found := hub.Scan(places())
	if len(found) != 1 || found[0].Path != want || !found[0].CanOpen {
		t.Fatalf("scan after the download: %+v", found)
	}
}

// TestGetModelShowsErrors: an unknown repo and an offline endpoint leave
// the dialog open with the reason under the bar, and the button usable.
func TestGetModelShowsErrors(t *testing.T) {
	fh := fakehub.New()
	defer fh.Close()
	hubEnv(t, fh.URL)
	h := newHarness(t, Options{})
	h.u.modelsMenu.showGetModel()
	g := h.u.modelsMenu.dialogs.get
	g.Repo.SetText("nobody/nothing")
	test.Tap(g.Get)
	deadline := time.Now().Add(10 * time.Second)
	for h.u.modelsMenu.dialogs.pulling || g.Status.Text == "" || strings.HasPrefix(g.Status.Text, "Asking") {
		if time.Now().After(deadline) {
			t.Fatal("the download never ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(g.Status.Text, "nobody/nothing") || g.Get.Disabled() {
		t.Errorf("status %q, button disabled %v", g.Status.Text, g.Get.Disabled())
	}
}

// The download's bar shows the share done, and 0 (not NaN, which the bar
// cannot draw) while the size is not yet known.
func TestProgressShare(t *testing.T) {
	for _, c := range []struct {
		p    hub.Progress
		want float64
	}{{hub.Progress{Done: 3, Total: 12}, 0.25}, {hub.Progress{Done: 3}, 0}, {hub.Progress{}, 0}} {
		if got := progressShare(c.p); got != c.want {
			t.Errorf("progressShare(%d of %d) = %v, want %v", c.p.Done, c.p.Total, got, c.want)
		}
	}
}
