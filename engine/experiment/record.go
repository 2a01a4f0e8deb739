package experiment

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"loupe/i18n"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
)

// RecordFormat names the file of a saved experiment.
const RecordFormat = "loupe-experiment-1"

// Record is a finished experiment with what reruns it: the model (path
// and Fingerprint), the options, the kernel level and the threads.
// Experiments are greedy: no seed is drawn.
type Record struct {
	Format      string      `json:"format"`
	When        time.Time   `json:"when"`
	ModelPath   string      `json:"model_path"`
	Fingerprint string      `json:"model_fingerprint"`
	Kernels     string      `json:"kernels"`
	Threads     int         `json:"threads"`
	Options     RecordOpts  `json:"options"`
	What        string      `json:"what"`
	Bandwidth   float64     `json:"bandwidth_gb_s"`
	Stopped     string      `json:"stopped,omitempty"`
	Notes       []string    `json:"notes,omitempty"`
	Reading     string      `json:"reading"`
	Points      []RecordPnt `json:"points"`
}

// RecordOpts are the Options that reproduce a run (not its callbacks).
type RecordOpts struct {
	Values       []string `json:"values,omitempty"`
	Prompt       string   `json:"prompt"`
	Second       string   `json:"second,omitempty"`
	SecondLabel  string   `json:"second_label,omitempty"`
	PromptTokens int      `json:"prompt_tokens"`
	DecodeTokens int      `json:"decode_tokens"`
	Repeat       int      `json:"repeat"`
	ComputeFill  bool     `json:"compute_fill,omitempty"`
}

// RecordPnt is a Point with its details.
type RecordPnt struct {
	Value          any     `json:"value"`
	Label          string  `json:"label"`
	PrefillTokS    float64 `json:"prefill_tok_s"`
	DecodeTokS     float64 `json:"decode_tok_s"`
	BytesPerToken  float64 `json:"bytes_per_token"`
	Predicted      float64 `json:"predicted_decode_tok_s"`
	PrefillTokens  int     `json:"prefill_tokens"`
	PrefillSeconds float64 `json:"prefill_seconds"`
	DecodeTokens   int     `json:"decode_tokens"`
	DecodeSeconds  float64 `json:"decode_seconds"`
	WeightBytes    float64 `json:"weight_bytes"`
	BandwidthGBs   float64 `json:"bandwidth_gb_s"`
	Ids            []int   `json:"ids,omitempty"`
	// The batch sweep's figures (Point's names).
	PerSequenceTokS    float64 `json:"per_sequence_tok_s,omitempty"`
	GFLOPs             float64 `json:"gflops,omitempty"`
	ShareOfPeak        float64 `json:"share_of_peak,omitempty"`
	ShareOfBandwidth   float64 `json:"share_of_bandwidth,omitempty"`
	MemoryCeilingTokS  float64 `json:"memory_ceiling_tok_s,omitempty"`
	ComputeCeilingTokS float64 `json:"compute_ceiling_tok_s,omitempty"`
	// Top is each written token's top candidates (ids and p).
	Top [][]trace.Candidate `json:"top,omitempty"`
}

// NewRecord describes r, run with opt on the model at path.
func NewRecord(r Result, opt Options, path, fingerprint, kernels string, threads int) Record {
	opt = withDefaults(opt)
	rec := Record{Format: RecordFormat, When: time.Now().UTC(), ModelPath: path, Fingerprint: fingerprint,
		Kernels: kernels, Threads: threads, What: r.What, Bandwidth: r.BandwidthGBs, Stopped: r.Stopped,
		Notes: r.Notes, Reading: Reading(r),
		Options: RecordOpts{Values: opt.Values, Prompt: opt.Prompt, Second: opt.Second, SecondLabel: opt.SecondLabel,
			PromptTokens: opt.PromptTokens, DecodeTokens: opt.DecodeTokens, Repeat: opt.Repeat, ComputeFill: opt.ComputeFill}}
	for _, p := range r.Points {
		rec.Points = append(rec.Points, RecordPnt{Value: p.Value, Label: p.Label, PrefillTokS: p.PrefillTokS,
			DecodeTokS: p.DecodeTokS, BytesPerToken: p.BytesPerToken, Predicted: p.PredictedDecodeTokS,
			PrefillTokens: p.PrefillTokens, PrefillSeconds: p.PrefillSeconds, DecodeTokens: p.DecodeTokens,
			DecodeSeconds: p.DecodeSeconds, WeightBytes: p.WeightBytes, BandwidthGBs: p.BandwidthGBs, Ids: p.Ids,
			PerSequenceTokS: p.PerSequenceTokS, GFLOPs: p.GFLOPs, ShareOfPeak: p.ShareOfPeak, ShareOfBandwidth: p.ShareOfBandwidth,
			MemoryCeilingTokS: p.MemoryCeilingTokS, ComputeCeilingTokS: p.ComputeCeilingTokS,
			Top: topsOf(p.Steps)})
	}
	return rec
}

// topsOf keeps each step's top candidates without their text.
func topsOf(steps []trace.Step) [][]trace.Candidate {
	var out [][]trace.Candidate
	for _, s := range steps {
		top := make([]trace.Candidate, len(s.Top))
		for i, c := range s.Top {
			top[i] = trace.Candidate{ID: c.ID, P: c.P}
		}
		out = append(out, top)
	}
	return out
}

// Result is the record as a Result again (to draw it).
func (rec Record) Result() Result {
	r := Result{What: rec.What, BandwidthGBs: rec.Bandwidth, Stopped: rec.Stopped, Notes: rec.Notes, Points: []Point{}}
	for _, p := range rec.Points {
		v := p.Value
		if f, ok := v.(float64); ok && f == math.Trunc(f) { // JSON numbers come back as float64
			v = int(f)
		}
		r.Points = append(r.Points, Point{Value: v, Label: p.Label, PrefillTokS: p.PrefillTokS, DecodeTokS: p.DecodeTokS,
			BytesPerToken: p.BytesPerToken, PredictedDecodeTokS: p.Predicted, PrefillTokens: p.PrefillTokens,
			PrefillSeconds: p.PrefillSeconds, DecodeTokens: p.DecodeTokens, DecodeSeconds: p.DecodeSeconds,
			WeightBytes: p.WeightBytes, BandwidthGBs: p.BandwidthGBs, Ids: p.Ids,
			PerSequenceTokS: p.PerSequenceTokS, GFLOPs: p.GFLOPs, ShareOfPeak: p.ShareOfPeak, ShareOfBandwidth: p.ShareOfBandwidth,
			MemoryCeilingTokS: p.MemoryCeilingTokS, ComputeCeilingTokS: p.ComputeCeilingTokS})
		last := &r.Points[len(r.Points)-1]
		if rec.What == Batch {
			last.PredictedTokS = p.Predicted
		}
		for _, top := range p.Top {
			last.Steps = append(last.Steps, trace.Step{Top: top})
		}
	}
	return r
}

// Options are the options that rerun the record (callbacks unset).
func (rec Record) Opts() Options {
	o := rec.Options
	c, _ := kernels.ChoiceOf(rec.Kernels) // unknown: the zero Choice, the kernels in use
	return Options{What: rec.What, Values: o.Values, Prompt: o.Prompt, Second: o.Second, SecondLabel: o.SecondLabel,
		PromptTokens: o.PromptTokens, DecodeTokens: o.DecodeTokens, Repeat: o.Repeat, ComputeFill: o.ComputeFill, Kernels: c}
}

// ReadRecord parses a saved experiment.
func ReadRecord(data []byte) (Record, error) {
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("not a saved Loupe experiment: %v", err)
	}
	if rec.Format != RecordFormat {
		return rec, fmt.Errorf("not a saved Loupe experiment (format %q, want %q)", rec.Format, RecordFormat)
	}
	return rec, nil
}

// Compare says how a rerun's figures stand against the record's: the
// median ratio of the decode and prefill speeds point by point, and
// whether the written tokens are the same (greedy: they should be, in
// the same arithmetic).
func Compare(rec Record, r Result) string { return CompareIn(rec, r, i18n.English) }

// CompareIn is Compare's sentence in l, its numbers in l's notation.
func CompareIn(rec Record, r Result, l i18n.Lang) string {
	var dec, pre []float64
	same, compared := 0, 0
	worst := 0.0 // largest |Δp| of a top candidate where the tokens agree
	for i, p := range r.Points {
		if i >= len(rec.Points) || fmt.Sprint(rec.Points[i].Value) != fmt.Sprint(p.Value) {
			break
		}
		q := rec.Points[i]
		if q.DecodeTokS > 0 && q.PrefillTokS > 0 {
			dec, pre = append(dec, p.DecodeTokS/q.DecodeTokS), append(pre, p.PrefillTokS/q.PrefillTokS)
		}
		if q.Ids != nil {
			compared++
			if FirstDivergence(q.Ids, p.Ids) < 0 && len(q.Ids) == len(p.Ids) {
				same++
				worst = max(worst, maxTopDelta(q.Top, p.Steps))
			}
		}
	}
	if len(dec) == 0 {
		return l.T("experiment.compare.none", nil)
	}
	return compareSentence(stats.Median(dec), stats.Median(pre), len(dec), same, compared, worst, l)
}

// compareSentence says the rerun's speed over the saved one (medians of
// n points) and whether same of compared points wrote the same tokens,
// their top-10 probabilities at most worst apart.
func compareSentence(dec, pre float64, n, same, compared int, worst float64, l i18n.Lang) string {
	num := l.Numbers()
	times := func(x float64) string { return num.Fixed(x, 2) + num.Space() + "×" }
	e := func(x float64, d int) string { return num.Number(strconv.FormatFloat(x, 'e', d, 64)) }
	s := l.T("experiment.compare.speed", i18n.Args{"Dec": times(dec), "Pre": times(pre), "N": n})
	if compared == 0 {
		return s
	}
	s += l.T("experiment.compare.same", i18n.Args{"Same": same, "N": compared})
	switch {
	case same == 0:
		s += "."
	case worst <= 1e-4:
		s += l.T("experiment.compare.within", i18n.Args{"Worst": e(max(worst, 1e-9), 0), "Check": num.Number("1e-4")})
	default:
		s += l.T("experiment.compare.apart", i18n.Args{"Worst": e(worst, 1), "Check": num.Number("1e-4")})
	}
	return s
}

// maxTopDelta is the largest |Δp| between a saved top list and a rerun's
// for the same candidate (a candidate missing from one list counts its
// whole p).
func maxTopDelta(saved [][]trace.Candidate, steps []trace.Step) float64 {
	worst := 0.0
	for i := range min(len(saved), len(steps)) {
		now := map[int]float64{}
		for _, c := range steps[i].Top {
			now[c.ID] = c.P
		}
		for _, c := range saved[i] {
			worst = max(worst, math.Abs(c.P-now[c.ID]))
		}
	}
	return worst
}
