package views

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestGetModelButton: the button opens what is on disk, refuses what the
// engine cannot run, downloads anything else, and Cancel works only while busy.
func TestGetModelButton(t *testing.T) {
	test.NewTempApp(t)
	var got string
	cancelled := false
	g := NewGetModel([]ModelOffer{
		{ID: "a/local", CanRun: true, Local: true},
		{ID: "a/remote", CanRun: true},
		{ID: "a/unsupported", Why: "no"},
	}, "/cache")
	g.OnGet = func(id string) { got = id }
	g.OnCancel = func() { cancelled = true }
	for _, tc := range []struct {
		id, label string
		enabled   bool
	}{{"a/local", "Open", true}, {"a/remote", "Download and open", true}, {"a/unsupported", "Not supported yet", false},
		{"other/repo", "Download and open", true}, {"", "Download and open", false}} {
		g.Select(tc.id)
		if tc.id == "" {
			g.Repo.SetText("")
		}
		if g.Get.Text != tc.label || g.Get.Disabled() == tc.enabled {
			t.Errorf("%q: button %q enabled %v, want %q %v", tc.id, g.Get.Text, !g.Get.Disabled(), tc.label, tc.enabled)
		}
	}
	g.Select("a/remote")
	test.Tap(g.Get)
	if got != "a/remote" {
		t.Errorf("OnGet(%q), want a/remote", got)
	}
	test.Tap(g.Cancel)
	if cancelled {
		t.Error("Cancel worked while idle")
	}
	g.SetBusy(true)
	test.Tap(g.Cancel)
	if !cancelled || !g.Get.Disabled() || !g.Repo.Disabled() {
		t.Errorf("busy: cancelled %v, get disabled %v, field disabled %v", cancelled, g.Get.Disabled(), g.Repo.Disabled())
	}
}
