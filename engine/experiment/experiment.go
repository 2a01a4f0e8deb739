// Package experiment runs the measurements that show the two times of a
// language model on the user's own machine: reading (prefill, bound by
// compute) and writing (decode, bound by memory). Each sweep varies one
// thing — the context, the kernel level, the thread count or the weight
// type — and sets every decode speed against the prediction bandwidth /
// bytes per token. `loupe sweep` prints a Result as JSON; the window's
// Experiments panel draws it.
package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"loupe/engine"
	"loupe/format"
	"loupe/i18n"
	"loupe/kernels"
	"loupe/trace"
)

// The sweeps.
const (
	Context = "context"
	Kernels = "kernels"
	Threads = "threads"
	Quant   = "quant"
)

// Whats lists the sweeps in the order the panel shows them.
var Whats = []string{Context, Kernels, Threads, Quant, Batch}

// Point is one measurement of a sweep. The JSON names are those of
// `loupe sweep --json`.
type Point struct {
	// Value is what was varied: the context length (int), the kernel
	// level (string), the thread count (int) or the weight type (string).
	Value               any     `json:"value"`
	PrefillTokS         float64 `json:"prefill_tok_s"`
	DecodeTokS          float64 `json:"decode_tok_s"`    // from the median decode step (robust to a pass that waited for a CPU)
	BytesPerToken       float64 `json:"bytes_per_token"` // weights + KV cache one decode step reads
	PredictedDecodeTokS float64 `json:"predicted_decode_tok_s"`

	// The batch sweep's figures (perf.Batch): the speed each of the B
	// conversations gets, the rates reached against the machine's, and
	// the roofline's two ceilings, whose lower one is PredictedTokS
	// (= PredictedDecodeTokS).
	PerSequenceTokS    float64 `json:"per_sequence_tok_s,omitempty"`
	GFLOPs             float64 `json:"gflops,omitempty"`
	ShareOfPeak        float64 `json:"share_of_peak,omitempty"`
	ShareOfBandwidth   float64 `json:"share_of_bandwidth,omitempty"`
	PredictedTokS      float64 `json:"predicted_tok_s,omitempty"`
	MemoryCeilingTokS  float64 `json:"memory_ceiling_tok_s,omitempty"`
	ComputeCeilingTokS float64 `json:"compute_ceiling_tok_s,omitempty"`

	// Details for the figures and the reading sentence.
	Label          string       `json:"-"` // Value as the axis writes it ("4k", "avx2", "q8_0")
	PrefillTokens  int          `json:"-"`
	PrefillSeconds float64      `json:"-"`
	DecodeTokens   int          `json:"-"`
	DecodeSeconds  float64      `json:"-"`
	WeightBytes    float64      `json:"-"` // the weights' share of BytesPerToken
	BandwidthGBs   float64      `json:"-"` // the bandwidth Predicted is set against
	FileBytes      int64        `json:"-"` // quant: the model file's size
	Ids            []int        `json:"-"` // quant: the tokens written
	Steps          []trace.Step `json:"-"`
	// Run is the last timed run of the point (the context sweep's: its
	// tokens and timing, no steps): the window's run history keeps it.
	Run *trace.Run `json:"-"`
}

// Result is a finished (or cancelled) sweep.
type Result struct {
	What         string  `json:"what"`
	Points       []Point `json:"points"`
	BandwidthGBs float64 `json:"bandwidth_gb_s"`
	// PeakGFLOPs is the compute peak the batch sweep sets its points
	// against, measured on PeakLoop ("fp32 FMA"); 0 for the other sweeps.
	PeakGFLOPs float64 `json:"peak_gflops,omitempty"`
	PeakLoop   string  `json:"peak_loop,omitempty"`
	// Stopped says why the context sweep ended before its last value
	// (the model's context, this machine's memory); empty otherwise.
	Stopped string `json:"stopped,omitempty"`
	// Notes say what the figures are and are not: stand-in keys and
	// values, fallbacks of the quantiser, where copies were written.
	Notes []string `json:"-"`
	// Cancelled: the user stopped the sweep; Points holds those done.
	Cancelled bool `json:"-"`
	// Removed counts the quantised copies a cancelled quant sweep had
	// written or begun, and removed.
	Removed int `json:"-"`
}

// Cancelled says what a cancelled sweep did and left: its points done,
// and the copies it removed (only the quant sweep writes any).
func Cancelled(r Result) string { return CancelledIn(r, i18n.English) }

// CancelledIn is Cancelled in l.
func CancelledIn(r Result, l i18n.Lang) string {
	s := l.N("experiment.cancelled", len(r.Points), i18n.Args{"N": l.Numbers().Thousands(int64(len(r.Points)))})
	if r.Removed > 0 {
		s += l.N("experiment.cancelled.removed", r.Removed, i18n.Args{"N": l.Numbers().Thousands(int64(r.Removed))})
	}
	return s
}

// Options set one sweep. Zero values take the defaults of Defaults.
type Options struct {
	What   string
	Values []string // what to vary; nil: the defaults of each sweep
	// Prompt is the text read at each point (kernels, threads, quant;
	// two texts: the first), or the text whose tokens fill the computed
	// positions (context).
	Prompt string
	// PromptTokens read per point (context: the positions computed just
	// below the context; others: the prompt is cut to this many tokens).
	PromptTokens int
	DecodeTokens int // tokens written (decode passes timed) per point
	Repeat       int // timed runs per point (after one warm-up); medians
	// ComputeFill computes every position of the context sweep instead of
	// filling the cache with stand-in values (minutes at 32k).
	ComputeFill bool
	// Bandwidth returns the best read bandwidth in GB/s of threads
	// workers (cached or measured); nil: predictions are 0.
	Bandwidth func(threads int) (float64, error)
	// Progress (may be nil) reports the share done and what runs now.
	Progress func(frac float64, what string)
	// Second is the other text of the two-texts experiment, SecondLabel
	// its name in the figure ("The Gold-Bug").
	Second, SecondLabel string
	// CacheDir holds the quantised copies ("": os.UserCacheDir()/loupe/quant).
	CacheDir string
	// Lang is the language of Plan's sentence, of the notes, stop
	// reason, progress lines and run names a sweep writes (the zero
	// Lang: English).
	Lang i18n.Lang
	// Kernels is the kernel choice of every run (the kernels sweep: of
	// the runs outside it, none); the zero Choice: the kernels in use
	// when Run starts.
	Kernels kernels.Choice
}

// Defaults of Options.
const (
	DefaultPromptTokens = 128
	DefaultDecodeTokens = 16
)

// DefaultContexts are the context sweep's lengths.
var DefaultContexts = []int{256, 1024, 4096, 16384, 32768}

// Run runs the sweep opt.What on m (the quant sweep loads its copies of
// m's files). Cancelling ctx stops it within one forward step; the Result
// then holds the points done and Cancelled. Threads are restored when it
// returns; every run names its kernel choice, so the kernels in use are
// left alone.
func Run(ctx context.Context, m *engine.Model, opt Options) (Result, error) {
	opt = withDefaults(opt)
	if opt.Progress == nil {
		opt.Progress = func(float64, string) {}
	}
	if strings.TrimSpace(opt.Prompt) == "" {
		return Result{}, errors.New("experiment: the prompt is empty")
	}
	r := Result{What: opt.What, Points: []Point{}}
	var err error
	switch opt.What {
	case Context:
		err = runContext(ctx, m, opt, &r)
	case Kernels:
		err = runKernels(ctx, m, opt, &r)
	case Threads:
		err = runThreads(ctx, m, opt, &r)
	case Quant:
		err = runQuant(ctx, m, opt, &r)
	case Texts:
		err = runTexts(ctx, m, opt, &r)
	case Batch:
		err = runBatch(ctx, m, opt, &r)
	default:
		return Result{}, fmt.Errorf("experiment: unknown sweep %q (want %s)", opt.What, strings.Join(Whats, ", "))
	}
	if ctx.Err() != nil && (err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		r.Cancelled, err = true, nil
	}
	if err != nil {
		return r, err
	}
	r.nameRuns(opt.Lang)
	if len(r.Points) > 0 && r.BandwidthGBs == 0 {
		r.BandwidthGBs = r.Points[len(r.Points)-1].BandwidthGBs
	}
	opt.Progress(1, opt.Lang.T("experiment.progress.done", nil))
	return r, nil
}

// bandwidth asks opt for the bandwidth of threads workers.
func bandwidth(opt Options, threads int) (float64, error) {
	if opt.Bandwidth == nil {
		return 0, nil
	}
	return opt.Bandwidth(threads)
}

// predict is the decode speed memory allows: bandwidth / bytes per token.
func predict(gbs, bytesPerToken float64) float64 {
	if bytesPerToken <= 0 {
		return 0
	}
	return gbs * 1e9 / bytesPerToken
}

// weightBytes is what one decode step reads besides the KV cache: the
// weights, and a hybrid's recurrent state.
func weightBytes(info trace.ModelInfo) float64 {
	return float64(info.WeightBytesPerTok + info.StateBytes)
}

// parseInts reads the --values of the context and threads sweeps: numbers,
// "1k" = 1024, ascending without duplicates.
func parseInts(values []string, what string) ([]int, error) {
	var out []int
	for _, v := range values {
		s := strings.ToLower(strings.TrimSpace(v))
		mul := 1
		if strings.HasSuffix(s, "k") {
			s, mul = strings.TrimSuffix(s, "k"), 1024
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("experiment: %s value %q: want a whole number ≥ 1 (1k = 1024)", what, v)
		}
		out = append(out, n*mul)
	}
	sort.Ints(out)
	return slices.Compact(out), nil
}

// label writes a context length as the article does: 256, 1k, 32k;
// other lengths with separators (32,752).
func label(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return strconv.Itoa(n/1024) + "k"
	}
	return format.Thousands(n)
}

// nameRuns writes each point's run's Origin: the point first, which the
// Compare tab's narrow run choosers must show, then the experiment
// ("q8_0 (quantisation experiment)", "2 threads (threads experiment)").
func (r *Result) nameRuns(l i18n.Lang) {
	for _, p := range r.Points {
		if p.Run == nil {
			continue
		}
		point := p.Label
		if n, ok := p.Value.(int); ok && r.What == Threads {
			point = threadsName(l, n)
		}
		p.Run.Origin = l.T("experiment.run.origin", i18n.Args{"Point": point, "Experiment": l.T("experiment.run."+r.What, nil)})
	}
}

// Runs are the runs of r the window's run history keeps, for the Compare
// tab: every point's, except the threads sweep's middle points (their text
// is the 1-thread run's; 1 to N runs would push the user's own out of the
// history).
func (r Result) Runs() []*trace.Run {
	var out []*trace.Run
	for i, p := range r.Points {
		if p.Run == nil || r.What == Threads && i > 0 && i < len(r.Points)-1 {
			continue
		}
		out = append(out, p.Run)
	}
	return out
}
