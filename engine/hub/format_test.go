package hub

import (
	"strings"
	"testing"
	"time"
)

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.00 kB", 988_097_824: "988 MB",
		3_087_467_144: "3.09 GB", 15_500_000: "15.5 MB", 2_000_000_000_000_000: "2000 TB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{4 * time.Second: "4 s", 200 * time.Second: "3 min 20 s",
		3900 * time.Second: "1 h 05 min"} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestCatalog: every entry is a valid id with a licence and a text, the
// Qwen2.5 entries (which this engine runs) are supported, and an
// architecture the engine refuses comes back with the engine's reason.
func TestCatalog(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Catalog {
		if err := CheckRepoID(e.ID); err != nil || seen[e.ID] || e.Licence == "" || e.Shows == "" || e.Bytes <= 0 {
			t.Errorf("bad entry %+v (%v)", e, err)
		}
		seen[e.ID] = true
		ok, why := e.Supported()
		if strings.HasPrefix(e.ID, "Qwen/Qwen2.5-") && !ok {
			t.Errorf("%s: not supported: %s", e.ID, why)
		}
		if !ok && why == "" {
			t.Errorf("%s: refused without a reason", e.ID)
		}
	}
	refused := Entry{ID: "x/y", Config: `{"architectures":["MambaForCausalLM"],"model_type":"mamba"}`}
	if ok, why := refused.Supported(); ok || !strings.Contains(why, "mamba") {
		t.Errorf("mamba: %v %q", ok, why)
	}
}
