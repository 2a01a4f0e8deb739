package experiment

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"loupe/i18n"
	"loupe/kernels"
	"loupe/trace"
)

// Speeds are what a plan assumes of the machine: the last run's reading
// and writing speeds (tokens/s), or a guess from the bandwidth.
type Speeds struct{ PrefillTokS, DecodeTokS float64 }

// GuessSpeeds is used before any run: writing at 70 % of what the memory
// allows, reading ten times faster (the 1.5B model on a laptop: 14 and
// 150 tokens/s).
func GuessSpeeds(info trace.ModelInfo, gbs float64) Speeds {
	if gbs <= 0 {
		gbs = 20
	}
	// A small model is bound by the work between its layers, not by
	// memory: no guess above 40 tokens/s.
	d := min(40, 0.7*gbs*1e9/max(1, float64(info.WeightBytesPerTok)))
	return Speeds{PrefillTokS: 10 * d, DecodeTokS: d}
}

// Plan is the sentence that says what an experiment will run and about
// how long it takes at speeds s, in opt.Lang.
func Plan(what string, info trace.ModelInfo, opt Options, s Speeds, threads int) string {
	opt = withDefaults(opt)
	l, num := opt.Lang, opt.Lang.Numbers()
	secs := estimate(what, info, opt, s, threads)
	a := i18n.Args{"About": l.T("experiment.about", i18n.Args{"Time": num.Duration(secs)}),
		"Prompt": num.Thousands(int64(opt.PromptTokens)), "Decode": num.Thousands(int64(opt.DecodeTokens))}
	switch what {
	case Texts:
		a["Second"] = orDefault(opt.SecondLabel, l.T("experiment.secondtext", nil))
	case Context:
		a["Max"] = num.Thousands(int64(info.MaxPositions))
	case Kernels:
		a["Levels"] = strings.Join(levelNames(), ", ")
	case Threads:
		a["Threads"] = num.Thousands(int64(threads))
	case Batch:
	case Quant:
		return quantPlan(info, opt, a)
	default:
		return ""
	}
	return l.T("experiment.plan."+what, a)
}

// quantPlan is the quant sweep's plan: the size of the copies it will
// write, from QuantCopiesOf, as the confirmation before it says it.
func quantPlan(info trace.ModelInfo, opt Options, a i18n.Args) string {
	l := opt.Lang
	bytes, _, err := QuantCopiesOf(info, opt.CacheDir)
	switch {
	case err != nil:
		return l.T("experiment.plan.quant.none", nil)
	case bytes == 0:
		return l.T("experiment.plan.quant.cached", a)
	}
	a["Disk"] = l.Numbers().Bytes(float64(bytes))
	return l.T("experiment.plan.quant", a)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// withDefaults fills the zero values of opt as Run does.
func withDefaults(opt Options) Options {
	if opt.Kernels.IsZero() {
		opt.Kernels = kernels.Current()
	}
	if opt.What == Batch && opt.PromptTokens <= 0 {
		opt.PromptTokens = BatchPromptTokens
	}
	if opt.PromptTokens <= 0 {
		opt.PromptTokens = DefaultPromptTokens
	}
	if opt.DecodeTokens <= 0 {
		opt.DecodeTokens = DefaultDecodeTokens
	}
	opt.Repeat = max(opt.Repeat, 1)
	return opt
}

// levelNames are the kernel levels this CPU supports.
func levelNames() []string {
	var out []string
	for _, l := range kernels.Levels() {
		if kernels.Supported(l) {
			out = append(out, l.String())
		}
	}
	return out
}

// estimate is a rough duration in seconds: each point's warm-up, reading
// and writing at speeds s, scaled by what the point changes.
func estimate(what string, info trace.ModelInfo, opt Options, s Speeds, threads int) float64 {
	pre, dec := max(s.PrefillTokS, 1e-3), max(s.DecodeTokS, 1e-3)
	point := func(readSlower, writeSlower float64) float64 {
		warm := float64(warmUpTokens)/pre + 2/dec
		return warm + float64(opt.Repeat)*(float64(opt.PromptTokens)/pre*readSlower+float64(opt.DecodeTokens)/dec*writeSlower)
	}
	var t float64
	switch what {
	case Texts:
		t = point(1, 1) + point(float64(len(GoldBug))/4/float64(opt.PromptTokens), 1)
	case Context:
		w := max(1, float64(info.WeightBytesPerTok))
		for _, n := range DefaultContexts {
			if n > info.MaxPositions {
				break
			}
			kv := float64(info.KVBytesPerToken) * float64(n)
			t += float64(opt.Repeat) * (kv/2e9 + float64(opt.PromptTokens)/pre*(1+float64(n)/8192) + float64(opt.DecodeTokens)/dec*(w+kv)/w)
		}
	case Kernels:
		// Measured on Zen 5 (0.5B, reading / writing): generic 180 × and
		// 17 × slower than avx512bf16 (it reads an eighth of the tokens),
		// avx2 5 × and 1.9 ×, avx512 2.2 × and 1.2 ×.
		read := map[string]float64{"generic": 180.0 / 8, "avx2": 5, "avx512": 2.2, "avx512bf16": 1}
		write := map[string]float64{"generic": 17.0 / 4, "avx2": 1.9, "avx512": 1.2, "avx512bf16": 1}
		for _, l := range levelNames() {
			t += point(read[l], write[l])
		}
	case Threads:
		for n := 1; n <= threads; n++ {
			t += point(float64(threads)/float64(n), 1)
		}
	case Batch:
		// Each pass reads the weights once for its B rows: about one
		// solo step, up to computation's limit (~16 rows on a laptop).
		for _, b := range DefaultBatches {
			t += float64(b*opt.PromptTokens)/pre + float64(opt.Repeat*opt.DecodeTokens)/dec*max(1, float64(b)/16)
		}
	case Quant:
		t = float64(info.FileBytes)/100e6 + point(1, 1) + point(1, 0.55) + point(1.3, 0.35)
	}
	return t
}

// WriteCSV writes a result's points, one a line, with the JSON's names.
func WriteCSV(w io.Writer, r Result) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"what", "value", "prefill_tok_s", "decode_tok_s", "bytes_per_token", "predicted_decode_tok_s", "bandwidth_gb_s"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, p := range r.Points {
		cw.Write([]string{r.What, fmt.Sprint(p.Value), f(p.PrefillTokS), f(p.DecodeTokS), f(p.BytesPerToken), f(p.PredictedDecodeTokS), f(p.BandwidthGBs)})
	}
	cw.Flush()
	return cw.Error()
}
