package perf

import (
	"loupe/engine"
	"loupe/trace"
	"loupe/trace/stats"
)

// DecodeFLOPs counts the operations of writing the token at position pos:
// one more row of PrefillFLOPs (the layer matrices for one token and its
// attention over pos+1 keys) plus the output head, which a decode step
// runs for its one row.
func DecodeFLOPs(m trace.ModelInfo, pos int) float64 {
	head := 2 * float64(m.Vocab) * float64(m.Hidden)
	return PrefillFLOPs(m, pos+1) - PrefillFLOPs(m, pos) + head
}

// BatchFigures set a batched decode against the machine's two ceilings,
// the roofline: memory allows bandwidth / bytes per written token, which
// grows with the batch as the weights are shared; computation allows
// peak / operations per written token, which the batch does not change.
type BatchFigures struct {
	Rows             float64 // sequences per pass (mean)
	DecodeTokS       float64 // tokens written per second, all sequences
	PerSequenceTokS  float64 // tokens per second each sequence gets
	BytesPerToken    float64 // read per written token: weights / B + the sequence's state and KV
	FLOPsPerToken    float64 // operations per written token (DecodeFLOPs at the mean position)
	GBs              float64 // read rate reached: DecodeTokS × BytesPerToken
	GFLOPs           float64 // operations rate reached: DecodeTokS × FLOPsPerToken
	ShareOfBandwidth float64 // GBs / bandwidth, 0 when unknown
	ShareOfPeak      float64 // GFLOPs / peak, 0 when unknown
	MemoryCeiling    float64 // tokens/s memory allows: bandwidth / BytesPerToken
	ComputeCeiling   float64 // tokens/s computation allows: peak / FLOPsPerToken
	Predicted        float64 // the lower ceiling (the one known when only one is)
}

// Batch computes the figures of a batched decode that wrote decodeTokS
// tokens a second (all sequences) with the timing t, against bandwidth
// gbs (GB/s) and the compute peak (GFLOP/s); either may be 0 (unknown).
func Batch(m trace.ModelInfo, t engine.BatchTiming, decodeTokS, gbs, peakGFLOPs float64) BatchFigures {
	f := BatchFigures{Rows: t.MeanRows(), DecodeTokS: decodeTokS, BytesPerToken: t.BytesPerToken()}
	f.PerSequenceTokS = stats.OrZero(stats.Ratio(decodeTokS, f.Rows))
	f.FLOPsPerToken = DecodeFLOPs(m, meanPosition(m, t))
	f.GBs, f.GFLOPs = decodeTokS*f.BytesPerToken/1e9, decodeTokS*f.FLOPsPerToken/1e9
	f.ShareOfBandwidth, f.ShareOfPeak = stats.OrZero(stats.Ratio(f.GBs, gbs)), stats.OrZero(stats.Ratio(f.GFLOPs, peakGFLOPs))
	f.MemoryCeiling = stats.OrZero(stats.Ratio(gbs*1e9, f.BytesPerToken))
	f.ComputeCeiling = stats.OrZero(stats.Ratio(peakGFLOPs*1e9, f.FLOPsPerToken))
	f.Predicted = lower(f.MemoryCeiling, f.ComputeCeiling)
	return f
}

// meanPosition is the mean position a pass's rows wrote at, from the KV
// bytes they read (KVBytesPerToken × (pos+1) each).
func meanPosition(m trace.ModelInfo, t engine.BatchTiming) int {
	rows := t.MeanRows() * float64(len(t.PassRows))
	if rows <= 0 || m.KVBytesPerToken <= 0 {
		return 0
	}
	return max(0, int(t.KVBytes/rows/float64(m.KVBytesPerToken)+0.5)-1)
}

// lower is the smaller of two ceilings, ignoring an unknown (0) one.
func lower(a, b float64) float64 {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}

// Crossover is the batch size from which computation, not memory, bounds
// writing: the B where bandwidth / (weights / B + perSeq) reaches the
// compute ceiling (tokens/s), weights and perSeq in bytes per written
// token (perSeq: a sequence's state and KV). 0 when memory bounds every
// batch (the KV alone outweighs what the compute ceiling allows) or a
// figure is unknown.
func Crossover(gbs, weights, perSeq, computeCeiling float64) float64 {
	if gbs <= 0 || computeCeiling <= 0 {
		return 0
	}
	room := gbs*1e9/computeCeiling - perSeq // bytes a token may read at the compute ceiling, less its own
	if room <= 0 {
		return 0
	}
	return weights / room
}
