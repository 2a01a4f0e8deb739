package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestMembwJSON(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var out, errb bytes.Buffer
	code := Main([]string{"membw", "--mib", "16", "--passes", "2", "--threads", "1", "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r membwResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	if r.Threads != 1 || r.Passes != 2 || r.BufferBytes != 16<<20 {
		t.Fatalf("settings not honoured: %+v", r)
	}
	if r.BestGBs <= 0 || r.MedianGBs > r.BestGBs || r.GFLOPs <= 0 || r.Kernels == "" {
		t.Fatalf("bad figures: %+v", r)
	}
}

func TestMembwText(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var out, errb bytes.Buffer
	if code := Main([]string{"membw", "--mib", "8", "--passes", "1", "--kernels", "generic"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"read", "GB/s", "GFLOP/s", "generic FMA loop"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestMembwBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--passes", "0"}, {"--mib", "0"}, {"--threads", "-1"}, {"--kernels", "sse9"}, {"--nope"}, {"extra"},
	} {
		var out, errb bytes.Buffer
		if code := Main(append([]string{"membw"}, args...), &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if errb.Len() == 0 {
			t.Errorf("%v: no diagnostic", args)
		}
	}
}
