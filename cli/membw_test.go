package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"loupe/kernels"
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
	if r.Threads != 1 || r.Passes != 128 || r.BufferBytes != 16<<20 { // one 32 MiB window a pass, 128 windows at least
		t.Fatalf("settings not honoured: %+v", r)
	}
	if r.BestGBs <= 0 || r.MedianGBs > r.BestGBs || r.GFLOPs <= 0 || r.Kernels == "" || r.ComputeLoop == "" {
		t.Fatalf("bad figures: %+v", r)
	}
}

func TestMembwText(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var out, errb bytes.Buffer
	if code := Main([]string{"membw", "--mib", "8", "--passes", "1", "--kernels", "generic"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"read", "GB/s", "GFLOP/s", "generic, fp32 FMA loop"} {
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

// TestSetKernelsNames: --kernels exact runs the fastest fp32 level with
// every product in fp32; no flag takes LOUPE_KERNELS (a wrong value is
// named as the variable), else auto.
func TestSetKernelsNames(t *testing.T) {
	defer kernels.Use(kernels.Current())
	if c, err := setKernels("exact"); err != nil || !kernels.Exact() || kernels.Active() != kernels.BestExact() || c != kernels.Current() {
		t.Fatalf("exact: %v, level %v, exact %v", err, kernels.Active(), kernels.Exact())
	}
	if c, err := setKernels("auto"); err != nil || kernels.Exact() || kernels.Active() != kernels.Best() || c.Name() != "auto" {
		t.Fatalf("auto: %v, level %v, exact %v", err, kernels.Active(), kernels.Exact())
	}
	t.Setenv("LOUPE_KERNELS", "exact")
	if _, err := setKernels(""); err != nil || !kernels.Exact() {
		t.Fatalf("LOUPE_KERNELS=exact: %v, exact %v", err, kernels.Exact())
	}
	t.Setenv("LOUPE_KERNELS", "")
	if _, err := setKernels(""); err != nil || kernels.Exact() || kernels.Active() != kernels.Best() {
		t.Fatalf("no flag, no variable: %v, level %v", err, kernels.Active())
	}
	t.Setenv("LOUPE_KERNELS", "sse9")
	if _, err := setKernels(""); err == nil || !strings.Contains(err.Error(), "LOUPE_KERNELS") {
		t.Fatalf("LOUPE_KERNELS=sse9: %v", err)
	}
	if _, err := setKernels("sse9"); err == nil || !strings.Contains(err.Error(), "--kernels") {
		t.Fatalf("--kernels sse9: %v", err)
	}
}

// TestMembwModelWeights: --model reads the model's weights in place: the
// figure says so and covers every matrix (tiny: the tied 151,936 × 64
// bf16 head is most of it); a missing model is an error, not a buffer.
func TestMembwModelWeights(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := tinyDir(t)
	var out, errb bytes.Buffer
	if code := Main([]string{"membw", "--model", dir, "--passes", "1", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r membwResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if head := int64(151936 * 64 * 2); r.Source != "model weights" || r.BufferBytes < head || r.BufferBytes > 2*head || r.BestGBs <= 0 {
		t.Errorf("read %d bytes of %q at %.1f GB/s", r.BufferBytes, r.Source, r.BestGBs)
	}
	errb.Reset()
	if code := Main([]string{"membw", "--model", dir + "/nothing"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "nothing") {
		t.Errorf("missing model: exit %d, %q", code, errb.String())
	}
}
