package hub

import (
	"strings"
	"testing"
)

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
