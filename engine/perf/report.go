package perf

import (
	"fmt"
	"io"

	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
)

// Report is the outcome of a benchmark: medians over the timed runs, set
// against the machine's measured bandwidth and compute peak. The JSON names
// are those of `loupe bench --json`.
type Report struct {
	Model   string `json:"model"`
	Kernels string `json:"kernels"`
	// Arithmetic is the products prefill computed: "fp32", or "bf16"
	// (activations rounded to bf16, kernels.Arithmetic).
	Arithmetic string `json:"arithmetic"`
	// QuantArithmetic: a quantised file's formats and how decode
	// multiplies each (engine.Model.QuantArithmetic); empty otherwise.
	QuantArithmetic string  `json:"quant_arithmetic,omitempty"`
	Threads         int     `json:"threads"`
	ModelBytes      int64   `json:"model_bytes"`
	MembwGBs        float64 `json:"membw_gb_per_s"` // best streaming read, same thread count
	MembwCached     bool    `json:"membw_cached"`
	// MembwBeside: MembwGBs is the median of probes run beside each timed
	// run, and each run's decode is set against its own probe.
	MembwBeside bool `json:"membw_beside"`
	// PeakGFLOPs is the multiply-add loop of the prefill's products on the
	// same threads (MeasureComputeFor), PeakLoop names it.
	PeakGFLOPs float64 `json:"peak_gflops"`
	PeakLoop   string  `json:"peak_loop,omitempty"`
	PeakRSS    int64   `json:"peak_rss_bytes"`
	// HugePageShare is the share of the mapped weights on 2 MiB pages
	// (HugePageShare()); decode reads a few percent faster on them.
	HugePageShare float64 `json:"weights_on_huge_pages"`
	Repeat        int     `json:"repeat"`
	Probes        bool    `json:"probes"`
	// Contend is the number of CPU-bound busy processes that ran beside
	// the timed runs (bench --contend); 0 on an otherwise idle machine.
	Contend      int     `json:"contend"`
	TTFTSeconds  float64 `json:"time_to_first_token_seconds"`
	TotalSeconds float64 `json:"total_seconds"` // median prefill + median decode
	// CoresBusy is the process's CPU time over wall time during the runs
	// (median): well below Threads means the workers waited for a CPU (a
	// busy machine), so the speeds understate the engine. 0: unknown.
	CoresBusy float64  `json:"cores_busy"`
	Prefill   Prefill  `json:"prefill"`
	Decode    Decode   `json:"decode"`
	Workers   *Workers `json:"workers,omitempty"` // decode's barriers, medians over the runs
	Runs      []Sample `json:"runs"`
}

// Workers sums up how decode's parallel loops went (pool.Stats per
// decode token, medians over the runs): Loupe's decode is a few hundred
// For calls a token, each a barrier where the caller waits for the slowest
// worker, with serial work (norms, RoPE, sampling) between them.
type Workers struct {
	BarriersPerToken  float64 `json:"barriers_per_token"`
	ForMsPerToken     float64 `json:"for_ms_per_token"`       // wall time inside the For calls
	SerialMsPerToken  float64 `json:"serial_ms_per_token"`    // decode time outside them: one thread works
	WaitMsPerToken    float64 `json:"wait_ms_per_token"`      // the caller waiting for a worker still busy
	TakenPerToken     float64 `json:"taken_per_token"`        // chunks the caller ran beyond an even share (late or slow workers)
	WorkerParksPerTok float64 `json:"worker_parks_per_token"` // a worker spun out and parked
}

// Prefill is the reading phase: the prompt as one batch.
type Prefill struct {
	Tokens          int     `json:"tokens"`
	Seconds         float64 `json:"seconds"`
	TokensPerSecond float64 `json:"tokens_per_second"`
	GFLOPs          float64 `json:"gflops"`        // GFLOP/s reached
	ShareOfPeak     float64 `json:"share_of_peak"` // GFLOPs / PeakGFLOPs, 0 when the peak is unknown
	FLOPs           float64 `json:"flops"`         // operations of one prefill (PrefillFLOPs)
}

// Decode is the writing phase: one token per forward pass.
type Decode struct {
	Tokens           int     `json:"tokens"`
	Seconds          float64 `json:"seconds"`
	TokensPerSecond  float64 `json:"tokens_per_second"`  // tokens written / Seconds
	PassesPerSecond  float64 `json:"passes_per_second"`  // forward passes (Tokens − 1) / Seconds, as llama-bench's tg counts
	GBs              float64 `json:"gb_per_s"`           // bytes read per second
	ShareOfBandwidth float64 `json:"share_of_bandwidth"` // GBs / MembwGBs, 0 when unknown
	BytesPerToken    float64 `json:"bytes_per_token"`    // weights + mean KV cache read by one pass
}

// PrefillFLOPs counts the operations of a prefill of T tokens, as llama.cpp
// does: 2 per weight per token for the layer matrices (q, k, v, o, gate, up,
// down), the output head for the last position only (the only logits
// computed), and causal attention, whose T(T+1)/2 query-key pairs per layer
// each cost 2·D for Q·Kᵀ and 2·D for the weighted sum of V, D = heads ×
// head_dim (≈ 4·T²·D/2 per layer). Norms, RoPE, softmax and biases are
// O(T·D) and left out.
func PrefillFLOPs(m trace.ModelInfo, T int) float64 {
	if len(m.LayerTypes) > 0 {
		return hybridPrefillFLOPs(m, T)
	}
	h, I := float64(m.Hidden), float64(m.Intermediate)
	qDim, kvDim := float64(m.Heads*m.HeadDim), float64(m.KVHeads*m.HeadDim)
	perLayer := h*qDim + 2*h*kvDim + qDim*h + 3*h*I // matrix weights of one layer
	t, L := float64(T), float64(m.Layers)
	matrices := 2 * L * perLayer * t
	head := 2 * float64(m.Vocab) * h
	attention := L * 4 * qDim * t * (t + 1) / 2
	return matrices + head + attention
}

// hybridPrefillFLOPs counts a hybrid model (Qwen3.5): 2 per weight per
// token for every layer's parameters (the gated attention's q_proj twice
// as wide, DeltaNet's projections and conv taps, the MLP: norms and gates
// are a few thousand of 1.4 billion), the output head for the last
// position, causal attention in the full-attention layers only, and the
// chunked delta rule of the DeltaNet layers: per token and value head,
// with chunks of C = 64, 2·(C·(2·d_k + 2·d_v) + 3·d_k·d_v) for the five
// products of its chunk (K·Kᵀ, Q·Kᵀ, T·W, masked P·U; K·S, Q·S, Kᵀ·U),
// plus the C³/3 of the triangular inverse spread over its C tokens.
func hybridPrefillFLOPs(m trace.ModelInfo, T int) float64 {
	t, h := float64(T), float64(m.Hidden)
	full := 0
	for _, typ := range m.LayerTypes {
		if typ == "full_attention" {
			full++
		}
	}
	matrices := 2 * float64(m.ParamsAttention+m.ParamsDeltaNet+m.ParamsMLP) * t
	head := 2 * float64(m.Vocab) * h
	attention := float64(full) * 4 * float64(m.Heads*m.HeadDim) * t * (t + 1) / 2
	const C = 64.0
	dk, dv := float64(m.DeltaNetKeyDim), float64(m.DeltaNetValDim)
	perHead := 2*(C*(2*dk+2*dv)+3*dk*dv) + C*C/3
	delta := float64(len(m.LayerTypes)-full) * float64(m.DeltaNetHeads) * perHead * t
	return matrices + head + attention + delta
}

// decodeBytesPerToken is what one decode pass reads: the engine's figure
// (weights + mean KV cache over the run), else the weights and the KV cache
// at the middle of the run.
func decodeBytesPerToken(m trace.ModelInfo, t trace.Timing) float64 {
	if t.BytesPerToken > 0 {
		return t.BytesPerToken
	}
	meanPos := float64(t.PrefillTokens) + float64(t.DecodeTokens)/2
	return float64(m.WeightBytesPerTok) + float64(m.KVBytesPerToken)*meanPos
}

// Summarize takes the medians of the runs and sets them against the
// bandwidth (GB/s) and compute peak (GFLOP/s); either may be 0 (unknown).
//
// Decode GB/s counts the passes actually run: the last token written is
// sampled but never fed back, so n tokens cost n−1 passes.
func Summarize(m trace.ModelInfo, runs []Sample, membwGBs, peakGFLOPs float64) Report {
	r := Report{Model: m.Name, ModelBytes: m.FileBytes, MembwGBs: membwGBs, PeakGFLOPs: peakGFLOPs, Repeat: len(runs), Runs: runs}
	if len(runs) == 0 {
		return r
	}
	var pSec, pRate, pGF, dSec, dRate, dPass, dGBs, dShare, bw, ttft, cpuUse []float64
	for _, s := range runs {
		t := s.Timing
		flops := PrefillFLOPs(m, t.PrefillTokens)
		bytes := decodeBytesPerToken(m, t)
		pSec, dSec = append(pSec, t.PrefillSeconds), append(dSec, t.DecodeSeconds)
		pRate = append(pRate, stats.OrZero(stats.Ratio(float64(t.PrefillTokens), t.PrefillSeconds)))
		pGF = append(pGF, stats.OrZero(stats.Ratio(flops, t.PrefillSeconds))/1e9)
		dRate = append(dRate, stats.OrZero(stats.Ratio(float64(t.DecodeTokens), t.DecodeSeconds)))
		passes := float64(trace.DecodePasses(t.DecodeTokens))
		dPass = append(dPass, stats.OrZero(stats.Ratio(passes, t.DecodeSeconds)))
		dGBs = append(dGBs, stats.OrZero(stats.Ratio(bytes*passes, t.DecodeSeconds))/1e9)
		if s.MembwGBs > 0 {
			bw, dShare = append(bw, s.MembwGBs), append(dShare, stats.OrZero(stats.Ratio(dGBs[len(dGBs)-1], s.MembwGBs)))
		}
		r.PeakRSS = max(r.PeakRSS, s.PeakRSS)
		ttft = append(ttft, s.TTFTSeconds)
		cpuUse = append(cpuUse, stats.OrZero(stats.Ratio(s.CPUSeconds, s.WallSeconds)))
	}
	t0 := runs[0].Timing
	r.Workers = summarizeWorkers(runs)
	r.TTFTSeconds = stats.Median(ttft)
	r.Prefill = Prefill{Tokens: t0.PrefillTokens, Seconds: stats.Median(pSec), TokensPerSecond: stats.Median(pRate),
		GFLOPs: stats.Median(pGF), ShareOfPeak: stats.OrZero(stats.Ratio(stats.Median(pGF), peakGFLOPs)), FLOPs: PrefillFLOPs(m, t0.PrefillTokens)}
	r.Decode = Decode{Tokens: t0.DecodeTokens, Seconds: stats.Median(dSec), TokensPerSecond: stats.Median(dRate),
		PassesPerSecond: stats.Median(dPass), GBs: stats.Median(dGBs), ShareOfBandwidth: stats.OrZero(stats.Ratio(stats.Median(dGBs), membwGBs)), BytesPerToken: decodeBytesPerToken(m, t0)}
	if len(bw) == len(runs) { // every run has its own probe
		r.MembwGBs, r.MembwBeside = stats.Median(bw), true
		r.Decode.ShareOfBandwidth = stats.Median(dShare)
	}
	r.TotalSeconds = r.Prefill.Seconds + r.Decode.Seconds
	r.CoresBusy = stats.Median(cpuUse)
	return r
}

// arithmeticOr is a report's arithmetic, "fp32" for reports written
// before it was recorded.
func arithmeticOr(a string) string {
	if a == "" {
		return "fp32"
	}
	return a
}

// WriteText prints the report: the figures, then the table of the article
// “The two times of an answer”: reading (prefill) and writing (decode) time
// and their shares of the wait.
func WriteText(w io.Writer, r Report) {
	probes := "off"
	if r.Probes {
		probes = "on"
	}
	fmt.Fprintf(w, "model       %s (%.2f GB), kernels %s (%s arithmetic), %d threads, probes %s, median of %d runs\n",
		r.Model, float64(r.ModelBytes)/1e9, r.Kernels, arithmeticOr(r.Arithmetic), r.Threads, probes, r.Repeat)
	fmt.Fprintf(w, "arithmetic  %s\n", format.Arithmetic(arithmeticOr(r.Arithmetic)))
	if r.QuantArithmetic != "" {
		fmt.Fprintf(w, "quantised   %s\n", r.QuantArithmetic)
	}
	if r.Contend > 0 {
		fmt.Fprintf(w, "contention  %d CPU-bound busy processes ran beside the timed runs (--contend %d)\n", r.Contend, r.Contend)
	}
	p, d := r.Prefill, r.Decode
	fmt.Fprintf(w, "prefill     %d tokens in %.3f s: %.1f tok/s, %.1f GFLOP/s%s\n",
		p.Tokens, p.Seconds, p.TokensPerSecond, p.GFLOPs, share(p.ShareOfPeak, r.PeakGFLOPs, peakWhat(r.PeakLoop)))
	bwWhat := "GB/s read bandwidth"
	if r.MembwBeside {
		bwWhat = "GB/s read beside each run (median)"
	}
	fmt.Fprintf(w, "decode      %d tokens in %.3f s: %.2f tok/s (%.2f forward passes/s, the first token came from prefill), %.1f GB/s%s, %.2f GB per pass\n",
		d.Tokens, d.Seconds, d.TokensPerSecond, d.PassesPerSecond, d.GBs, share(d.ShareOfBandwidth, r.MembwGBs, bwWhat), d.BytesPerToken/1e9)
	fmt.Fprintf(w, "first token %.3f s, peak RSS %.2f GB%s\n", r.TTFTSeconds, float64(r.PeakRSS)/1e9, hugeNote(r.HugePageShare))
	if wk := r.Workers; wk != nil && wk.BarriersPerToken > 0 {
		fmt.Fprintf(w, "workers     decode: %.0f barriers a token; %.2f ms in them, %.2f ms serial between them; the caller waited %.2f ms a token for a worker (%s), ran %.1f chunks a token beyond its share; %.1f worker parks a token\n",
			wk.BarriersPerToken, wk.ForMsPerToken, wk.SerialMsPerToken, wk.WaitMsPerToken,
			format.PercentWhole(stats.OrZero(stats.Ratio(wk.WaitMsPerToken, wk.ForMsPerToken+wk.SerialMsPerToken))), wk.TakenPerToken, wk.WorkerParksPerTok)
	}
	if r.CoresBusy > 0 {
		fmt.Fprintf(w, "cpu         %.2f of %d threads busy%s\n", r.CoresBusy, r.Threads, busyNote(r.CoresBusy, r.Threads))
	}
	fmt.Fprintln(w)
	total := r.TotalSeconds
	fmt.Fprintf(w, "%-16s %8s %10s %8s\n", "", "tokens", "time", "share")
	fmt.Fprintf(w, "%-16s %8d %8.3f s %9s\n", "read (prefill)", p.Tokens, p.Seconds, format.Percent(stats.Ratio(p.Seconds, total)))
	fmt.Fprintf(w, "%-16s %8d %8.3f s %9s\n", "write (decode)", d.Tokens, d.Seconds, format.Percent(stats.Ratio(d.Seconds, total)))
	fmt.Fprintf(w, "%-16s %8d %8.3f s %9s\n", "total", p.Tokens+d.Tokens, total, format.Percent(1))
}

// summarizeWorkers is Workers over runs that report their pool, or nil.
func summarizeWorkers(runs []Sample) *Workers {
	var bar, inFor, serial, wait, taken, parks []float64
	for _, s := range runs {
		n := float64(trace.DecodePasses(s.Timing.DecodeTokens))
		if s.Pool == nil || n < 1 {
			return nil
		}
		p := s.Pool
		bar = append(bar, float64(p.Calls)/n)
		inFor = append(inFor, p.InFor.Seconds()*1e3/n)
		serial = append(serial, (s.Timing.DecodeSeconds-p.InFor.Seconds())*1e3/n)
		wait = append(wait, p.CallerWait.Seconds()*1e3/n)
		taken = append(taken, float64(p.Taken)/n)
		parks = append(parks, float64(p.WorkerParks)/n)
	}
	return &Workers{BarriersPerToken: stats.Median(bar), ForMsPerToken: stats.Median(inFor), SerialMsPerToken: stats.Median(serial),
		WaitMsPerToken: stats.Median(wait), TakenPerToken: stats.Median(taken), WorkerParksPerTok: stats.Median(parks)}
}

// peakWhat names the compute peak: "GFLOP/s peak (fp32 FMA loop)".
func peakWhat(loop string) string {
	if loop == "" {
		return "GFLOP/s peak"
	}
	return "GFLOP/s peak (" + loop + " loop)"
}

// share formats " = 41 % of the 208.0 GFLOP/s peak", or "" when unknown.
func share(s, of float64, what string) string {
	if of <= 0 {
		return ""
	}
	return fmt.Sprintf(" = %s of the %.1f %s", format.PercentWhole(s), of, what)
}

// busyNote warns when the workers got much less CPU than they asked for.
func busyNote(busy float64, threads int) string {
	if threads > 0 && busy < 0.8*float64(threads) {
		return " (the machine is busy: figures understate the engine)"
	}
	return ""
}

// hugeNote formats ", weights on 2 MiB pages 97 %", or "" when unknown.
func hugeNote(share float64) string {
	if share <= 0 {
		return ""
	}
	return ", weights on 2 MiB pages " + format.PercentWhole(share)
}
