package genmodel_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"loupe/engine"
	"loupe/engine/genmodel"
	"loupe/trace"
)

// The 2B shape's text decoder has docs/spec/qwen35.md §6's 1,881,825,088 parameters
// (plus the two small stand-ins for the skipped vision tower and MTP head).
func TestQwen35ShapeParameterCount(t *testing.T) {
	s, ok := genmodel.Lookup("qwen3.5-2b")
	if !ok {
		t.Fatal("no shape qwen3.5-2b")
	}
	total, standIns := 0, 0
	for _, sp := range s.Tensors() {
		n := 1
		for _, d := range sp.Shape {
			n *= d
		}
		if strings.HasPrefix(sp.Name, "model.visual.") || strings.HasPrefix(sp.Name, "mtp.") {
			standIns += n
			continue
		}
		total += n
	}
	if total != 1_881_825_088 || standIns == 0 {
		t.Errorf("%d decoder parameters (want 1,881,825,088), %d in stand-ins", total, standIns)
	}
}

// tiny-qwen35 opens with the engine: hybrid layers, the KV cache of the
// attention layers only, the skipped parts named, Qwen3.5's special ids,
// and a greedy generation that records α and β of the DeltaNet layers.
func TestTinyQwen35Opens(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	if err := genmodel.Write(dir, "tiny-qwen35", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	m, err := engine.Load(dir, engine.LoadOptions{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	info := m.Info()
	want := []string{"linear_attention", "full_attention", "linear_attention", "full_attention"}
	if !slices.Equal(info.LayerTypes, want) || info.Vocab != 248320 {
		t.Fatalf("layer types %v vocab %d", info.LayerTypes, info.Vocab)
	}
	if info.KVBytesPerToken != 2*2*2*32*4 { // 2 attention layers × K,V × 2 kv heads × 32 dims × fp32
		t.Errorf("KV %d B per token", info.KVBytesPerToken)
	}
	if !slices.Equal(info.NotUsed, []string{"vision tower", "MTP head"}) {
		t.Errorf("not used: %v", info.NotUsed)
	}
	if info.StateBytes != 2*(4*16*16+3*(2*2*16+4*16))*4 {
		t.Errorf("state %d B", info.StateBytes)
	}
	ids := m.Encode("<|im_start|>user\nhi<|im_end|><think></think><|endoftext|>")
	if ids[0] != 248045 || !slices.Contains(ids, 248046) || !slices.Contains(ids, 248068) ||
		!slices.Contains(ids, 248069) || ids[len(ids)-1] != 248044 {
		t.Errorf("special ids %v", ids)
	}
	if eos := m.EOS(); !slices.Equal(eos, []int{248046, 248044}) {
		t.Errorf("EOS %v", eos)
	}
	opt := engine.DefaultGenerateOptions()
	opt.Settings = trace.Settings{MaxTokens: 5}
	opt.EOS = []int{-1}
	run, err := m.Generate(context.Background(), "The quick brown fox", opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Steps) != 5 || len(run.DeltaNet) != 2 {
		t.Fatalf("%d steps, %d DeltaNet captures", len(run.Steps), len(run.DeltaNet))
	}
	n := len(run.Tokens) - 1 // the last token is sampled, never run
	if d := run.DeltaNet[0]; len(d.Alpha) != n || len(d.Beta[0]) != 4 || len(d.StatePos) != 1+4 {
		t.Errorf("DeltaNet capture: %d α rows for %d positions, %d state norms", len(d.Alpha), n, len(d.StatePos))
	}
	if a := run.Attention[0]; a.Weights[0] != nil || len(a.Weights[1]) != 4 {
		t.Errorf("attention capture of a DeltaNet layer is not empty, or of an attention layer missing")
	}
}
