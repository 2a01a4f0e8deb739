package app

import (
	"os"
	"testing"
)

// TestRasterizeOnUIThread: unset, LP_NUM_THREADS becomes 0 (Mesa's
// software rasterizer draws on the UI thread); a user's own value is kept.
func TestRasterizeOnUIThread(t *testing.T) {
	t.Setenv("LP_NUM_THREADS", "")
	os.Unsetenv("LP_NUM_THREADS")
	rasterizeOnUIThread()
	if v, ok := os.LookupEnv("LP_NUM_THREADS"); !ok || v != "0" {
		t.Errorf("unset: LP_NUM_THREADS %q %v, want \"0\"", v, ok)
	}
	t.Setenv("LP_NUM_THREADS", "3")
	rasterizeOnUIThread()
	if v := os.Getenv("LP_NUM_THREADS"); v != "3" {
		t.Errorf("set by the user to 3: now %q", v)
	}
}
