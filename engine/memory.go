package engine

import (
	"bufio"
	"fmt"
	"loupe/format"
	"loupe/kernels"
	"os"
	"strconv"
	"strings"
)

// loadContext is the context the load-time memory check assumes for the
// KV cache: the cache itself is sized per generation (prompt + max tokens,
// see reserveContext), never to the model's maximum.
const loadContext = 4096

// memAvailable reports the memory the system can give this process now
// without swapping (Linux: MemAvailable, which counts reclaimable page
// cache, so a model file already cached counts as available; Windows:
// ullAvailPhys), 0 when unknown. A variable so that tests can pretend to be
// a small machine.
var memAvailable = readMemAvailable

// kvBytes is the fp32 KV cache for n positions: K and V of every layer and
// kv head, d floats each.
func kvBytes(cfg Config, n int) int64 {
	return 2 * int64(cfg.NumHiddenLayers) * int64(cfg.NumKeyValueHeads*cfg.HeadDim) * 4 * int64(n)
}

// checkMemory refuses a model whose weights and a KV cache of loadContext
// positions cannot fit in the memory available now, before any page of the
// weights is read. The files are memory-mapped: they cost page cache, not
// copies, but F16 matrices are widened to f32 copies, which need RAM of
// their own, where the CPU has no f16 kernel (kernels.F16Native).
func checkMemory(set tensorSet, cfg Config) error {
	avail := memAvailable()
	if avail <= 0 {
		return nil
	}
	weights := set.FileBytes()
	for _, name := range set.Names() {
		if t, _ := set.Tensor(name); t.DType == "F16" && !kernels.F16Native() {
			weights += int64(len(t.Data)) * 2
		}
	}
	n := min(loadContext, cfg.MaxPositionEmbeddings)
	kv := kvBytes(cfg, n)
	if weights+kv > avail {
		return fmt.Errorf("%w: the weights need %s and the KV cache for %d tokens %s, %s in all; "+
			"this machine has %s available now — close other programs, or open a smaller model or a quantised file (GGUF Q8_0 or Q4_K_M)",
			ErrTooLarge, format.Bytes(float64(weights)), n, format.Bytes(float64(kv)), format.Bytes(float64(weights+kv)), format.Bytes(float64(avail)))
	}
	return nil
}

// checkRunMemory refuses a generation of n positions (prompt + max tokens)
// whose memory cannot come from what is available now: the weights (file
// pages the system counts as available, but which must stay), the KV
// cache of n positions (the cache already held counts as available: it is
// reallocated) and captures bytes of what the run records for the panels.
func (m *Model) checkRunMemory(n int, captures int64) error {
	avail := memAvailable()
	if avail <= 0 {
		return nil
	}
	weights, kv := m.info.FileBytes, kvBytes(m.cfg, n)
	have := avail + int64(len(m.kCache)+len(m.vCache))*4
	if need := weights + kv + captures; need > have {
		return fmt.Errorf("%w: the weights need %s, the KV cache for %d tokens (prompt + max tokens) %s and what the panels record %s, %s in all; "+
			"this machine has %s available now — lower max tokens or shorten the prompt",
			ErrTooLarge, format.Bytes(float64(weights)), n, format.Bytes(float64(kv)), format.Bytes(float64(captures)), format.Bytes(float64(need)), format.Bytes(float64(have)))
	}
	return nil
}

// readMemAvailable parses MemAvailable from /proc/meminfo (Linux).
func readMemAvailable() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return memAvailableOS()
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
