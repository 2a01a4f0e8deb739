package app

import (
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"loupe/engine/genmodel"
	"loupe/trace"
	"loupe/trace/stats"
)

// recorded is what a run's records hold in bytes, counted from the run
// itself: the attention and MLP values it keeps, and the KV cache of its
// positions.
func recorded(r *trace.Run) (attn, mlp, kv int64) {
	for _, a := range r.Attention {
		attn += a.Bytes()
	}
	for _, m := range r.MLP {
		mlp += int64(len(m.Values)) * 4
	}
	return attn, mlp, r.Model.KVBytesPerToken * int64(len(r.Tokens))
}

// On the real engine: runHeap bounds what a run records; the soft limit
// on Go's heap stays above the live heap with room to collect; when the
// next run starts, the runs kept for Compare drop their MLP values and
// keep their prompt's attention and at most liveAttnBudget of the rest.
func TestMemoryLimitAndSlimHistory(t *testing.T) {
	if userMemoryLimit() {
		t.Skip("GOMEMLIMIT is set: the window leaves it alone")
	}
	t.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64) })
	dir := filepath.Join(t.TempDir(), "tiny")
	if err := genmodel.Write(dir, "tiny", 1, "bf16"); err != nil {
		t.Fatal(err)
	}
	h := engineHarness(t, dir)
	u := h.u
	const prompt, n = "My cat is purple. But my friends tell me", 120
	h.generate(prompt, n)
	first := u.st.LastRun
	nPrompt := stats.PromptLen(first)
	attn, mlp, kv := recorded(first)
	opt := generateOptions(first.Settings, u.st.Info, nPrompt)
	need := runHeap(u.st.Info, nPrompt, n, opt)
	if attn+mlp+kv > need {
		t.Errorf("the run records %d + %d + %d bytes (attention, MLP, KV cache), runHeap foresaw %d", attn, mlp, kv, need)
	}
	if mlp == 0 || attn == 0 {
		t.Fatalf("the run recorded no MLP (%d) or attention (%d): nothing to slim", mlp, attn)
	}
	runtime.GC()
	limit := debug.SetMemoryLimit(-1)
	if live := liveHeap(); limit < live+heapSlack/2 || limit > live+need+slack(live) {
		t.Errorf("memory limit %d MB for a live heap of %d MB", limit>>20, live>>20)
	}

	h.generate(prompt, 3)
	if first.MLP != nil {
		t.Error("the first run kept its MLP values once the next one started")
	}
	var gen, newest int64
	promptKept := 0
	for _, a := range first.Attention {
		if a.QueryPos < nPrompt {
			promptKept++
			continue
		}
		gen, newest = gen+a.Bytes(), a.Bytes()
	}
	if gen > liveAttnBudget+newest {
		t.Errorf("the first run keeps %d bytes of generated attention, budget %d", gen, liveAttnBudget)
	}
	if _, ok := stats.AttentionAt(first.Attention, nPrompt-1); !ok || promptKept == 0 {
		t.Error("the first run lost the attention of its last prompt token, which Compare reads")
	}
	if u.st.LastRun == first || u.st.LastRun.MLP == nil {
		t.Error("the run on screen lost its MLP values")
	}
}

// A limit under the live heap is raised: Go would otherwise collect
// without end on the engine's cores.
func TestKeepHeadroomRaisesALowLimit(t *testing.T) {
	if userMemoryLimit() {
		t.Skip("GOMEMLIMIT is set")
	}
	t.Cleanup(func() { debug.SetMemoryLimit(math.MaxInt64) })
	hold := make([]byte, 64<<20) // live for the test
	runtime.GC()
	var m memoryLimit
	m.set(1 << 20)
	m.keepHeadroom()
	if live := liveHeap(); m.limit < live+heapSlack/2 || debug.SetMemoryLimit(-1) != m.limit {
		t.Errorf("limit %d MB for a live heap of %d MB", m.limit>>20, live>>20)
	}
	runtime.KeepAlive(hold)
}
