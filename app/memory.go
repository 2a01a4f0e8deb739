package app

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"loupe/engine"
	"loupe/trace"
	"loupe/trace/stats"
)

// The window's memory is bounded by design: what a run records for the
// panels has budgets (backend.go), the runs kept for Compare are slimmed
// when the next one starts, and Go's heap gets a soft limit sized from
// what the window and the run need, so that garbage does not pile up to
// half the live heap again (GOGC 50) before a collection.
//
// Measured on narrow-1.5b (28 × 12, 2,000 tokens under Xvfb): the process
// peaked at 456 MB, of which Go's 215 MB for 125 MB live. Beside it stay
// ~150 MB that no setting of Go's reaches: Mesa's libLLVM 56 MB, the C
// heap 35-44 MB (text textures among it), the binary 34 MB, swrast 7 MB.

// heapSlack is how far the heap may grow beyond the live bytes between
// two collections: a frame's text images, a step's records, a font
// parsed for a new text style.
const heapSlack = 24 << 20

// memoryLimit is the soft limit on Go's memory (debug.SetMemoryLimit);
// 0 when none was set (the user's GOMEMLIMIT stands).
type memoryLimit struct {
	limit   int64
	pending int64 // the limit of the run under way, set once it decodes
}

// userMemoryLimit reports a GOMEMLIMIT of the user's, which wins.
func userMemoryLimit() bool {
	_, set := os.LookupEnv("GOMEMLIMIT")
	return set
}

// forRun works out the limit for a run of nPrompt + maxTokens positions
// recorded with opt, once the last run's records were let go (begin,
// slimHistory): what the window holds now, measured by one collection
// (tens of milliseconds, once a run), plus what the run will record
// (runHeap) and heapSlack. It applies from the first decode step
// (decoding): prefill's scratch (a 512-token chunk through the MLP: tens
// of MB on a 1.5B model) is not in runHeap, and under the limit a
// 3,139-token prefill spent a tenth of its CPU collecting.
func (m *memoryLimit) forRun(info trace.ModelInfo, nPrompt, maxTokens int, opt engine.GenerateOptions) {
	if userMemoryLimit() {
		return
	}
	runtime.GC()
	live := liveHeap()
	m.set(math.MaxInt64)
	m.pending = live + runHeap(info, nPrompt, maxTokens, opt) + slack(live)
}

// decoding sets the run's limit once its first tokens came, never under
// the live heap and its slack.
func (m *memoryLimit) decoding() {
	if m.pending == 0 {
		return
	}
	live := liveHeap()
	m.set(max(m.pending, live+slack(live)))
	m.pending = 0
}

// slack is heapSlack, or a quarter of the live heap when that is more:
// a collection marks the whole live heap, so a heap much larger than the
// window's (hundreds of MB of F16 weights widened) gets room in
// proportion, as GOGC would give it.
func slack(live int64) int64 { return max(heapSlack, live/4) }

// keepHeadroom raises the limit when the live heap comes within half the
// slack of it (a font loaded for a new script, a heap larger than
// foreseen): a limit under the live heap would make Go collect without
// end, on the engine's cores.
func (m *memoryLimit) keepHeadroom() {
	if m.limit == 0 || m.limit == math.MaxInt64 {
		return
	}
	if live := liveHeap(); live+slack(live)/2 > m.limit {
		m.set(live + slack(live))
	}
}

func (m *memoryLimit) set(n int64) {
	m.limit = n
	debug.SetMemoryLimit(n)
}

// liveHeap is the heap that was live at the end of the last collection.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// runHeap is the most a run of nPrompt + maxTokens positions holds in
// Go's heap: its KV cache; the attention captures of the prompt that opt
// asks for; those of generated tokens the run keeps (opt.Attn.KeepBytes),
// those on their way to the window and held by it (liveAttnBudget each),
// and the newest, which all three share (layers × heads × positions
// floats); the MLP captures.
func runHeap(info trace.ModelInfo, nPrompt, maxTokens int, opt engine.GenerateOptions) int64 {
	n := int64(nPrompt + maxTokens)
	perKey := int64(info.Layers*info.Heads) * 4
	var prompt int64
	switch {
	case opt.Attn.AllPrompt:
		prompt = int64(nPrompt) * int64(nPrompt+1) / 2
	case opt.Attn.LastPrompt:
		prompt = int64(nPrompt)
	}
	generated := opt.Attn.KeepBytes + 2*liveAttnBudget + n*perKey
	mlp := int64(len(opt.MLP)) * int64(info.Intermediate) * 4
	return info.KVBytesPerToken*n + prompt*perKey + generated + mlp
}

// slimHistory drops what the runs kept for Compare hold beyond what it
// reads, when a new run starts: their MLP values (the MLP tab shows the
// run on screen only) and their attention captures of generated tokens
// beyond liveAttnBudget each; the prompt's captures stay (the comparisons
// look from the last prompt token). Twelve runs of long answers held up
// to 24 MB each.
func (fc *host) slimHistory() {
	u := fc.ui
	for _, r := range u.st.Runs {
		n := stats.PromptLen(r)
		r.MLP = nil
		r.Attention = trace.TrimAttention(r.Attention, liveAttnBudget, func(pos int) bool { return pos < n })
	}
}
