// Package format is the one home of Loupe's formatters: counts, bytes,
// percentages, durations, token text made visible, and the colour
// palettes. The window (views), the exported figures (viz), the exports
// and the command line all call it, so that a number reads the same
// everywhere. It is headless and imports only the standard library.
package format

import (
	"math"
	"strconv"
	"strings"
)

// Thousands writes n with comma separators: 151936 → "151,936".
func Thousands[T ~int | ~int64](n T) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Count writes a large count the way the article does: exact with
// separators below ten million ("151,936": a vocabulary size reads as
// the model's config gives it), then "233 M" and "1.5 B".
func Count(n int64) string {
	switch a := math.Abs(float64(n)); {
	case a >= 1e9:
		return Trim(float64(n)/1e9, 1) + " B"
	case a >= 1e7:
		return Trim(float64(n)/1e6, 0) + " M"
	default:
		return Thousands(n)
	}
}

// Plural is "1 token", "3,139 tokens": n with word, an s added unless n
// is one.
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return Thousands(n) + " " + word + "s"
}

// Bytes writes a byte count in decimal units (KB = 1,000 bytes, as the
// article counts) with two significant digits: "29 KB", "3.1 GB",
// "117 MB".
func Bytes(b float64) string {
	for _, u := range []struct {
		s string
		v float64
	}{{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}} {
		if math.Abs(b) >= u.v {
			return Sig2(b/u.v) + " " + u.s
		}
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}

// Percent writes a share 0..1 as "92.5 %": one decimal, whole numbers at
// 0 and 100 %, two significant digits below 0.1 % ("0.016 %", not a
// misleading "0.0 %"), and below 0.001 % only that it is ("< 0.001 %":
// a figure once labelled a bar "0.0000000058 %"); NaN as "–".
func Percent(p float64) string {
	if math.IsNaN(p) {
		return "–"
	}
	switch x := p * 100; {
	case x > 0 && x < PercentFloor:
		return "< " + strconv.FormatFloat(PercentFloor, 'f', -1, 64) + " %"
	case x < 0 && x > -PercentFloor:
		return "> -" + strconv.FormatFloat(PercentFloor, 'f', -1, 64) + " %"
	case math.Abs(x) >= 99.95 || x == 0:
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64) + " %"
	case math.Abs(x) < 0.095:
		return Sig2(x) + " %"
	}
	return strconv.FormatFloat(p*100, 'f', 1, 64) + " %"
}

// PercentWhole writes a share 0..1 rounded to a whole percentage, "92 %"
// or "-3 %", for a figure where a decimal would be noise (a progress
// bar, a share of bandwidth); NaN or ±Inf as "–".
func PercentWhole(p float64) string {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return "–"
	}
	x := math.Round(p * 100)
	if x == 0 {
		x = 0 // no "-0 %"
	}
	return strconv.FormatFloat(x, 'f', 0, 64) + " %"
}

// PercentFloor is the smallest percentage Percent writes in digits.
const PercentFloor = 0.001

// Duration writes seconds the way a wait is said: "12 ms" below a second
// ("0.4 ms" below one), "2.1 s" and "12 s" below a minute, then
// "5 min 21 s" and "1 h 3 min"; NaN or ±Inf as "–".
func Duration(s float64) string {
	switch a := math.Abs(s); {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return "–"
	case a == 0:
		return "0 s"
	case a < 0.9995:
		return Sig2(s*1000) + " ms"
	case a < 59.5:
		return Sig2(s) + " s"
	case a < 3599.5:
		n := int(math.Round(a))
		return sign(s) + strconv.Itoa(n/60) + " min " + strconv.Itoa(n%60) + " s"
	}
	n := int(math.Round(math.Abs(s) / 60))
	return sign(s) + strconv.Itoa(n/60) + " h " + strconv.Itoa(n%60) + " min"
}

func sign(x float64) string {
	if x < 0 {
		return "-"
	}
	return ""
}

// Sig2 writes x with two significant digits (0.08, 2.1, 14), whole
// numbers from 100 up with separators (1,495), never in exponent form;
// NaN or ±Inf as "–".
func Sig2(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "–"
	case math.Abs(x) >= 99.5:
		return Thousands(int64(math.Round(x)))
	case x == 0:
		return "0"
	}
	return strconv.FormatFloat(Round2(x), 'f', -1, 64)
}

// Round2 rounds x to two significant digits.
func Round2(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	d := 1 - int(math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*math.Pow10(d)) / math.Pow10(d)
}

// Trim writes x with at most d decimals and no trailing zeros: "1.5",
// "233", "25".
func Trim(x float64, d int) string {
	s := strconv.FormatFloat(x, 'f', d, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Arithmetic says what a run's arithmetic ("fp32", "bf16", "int8",
// "int8+prefill", "bf16+int8", "bf16:experts" and "bf16:experts+int8" where auto rounds
// the activations of some parts only, "selective" for auto's arithmetic
// before a model says which parts: the engine's names) means, for the
// Timing lines and the Model panel, in English; i18n's Lang.Arithmetic
// says it in a language.
func Arithmetic(a string) string {
	key, parts := ArithmeticKey(a)
	return strings.NewReplacer("{{.Parts}}", parts, "{{.Name}}", a).Replace(arithmeticEnglish[key])
}

// ArithmeticKey is the translation key of Arithmetic's sentence for a
// and the parts of a model it names ("experts, attention"), for the
// sentence's {{.Parts}} field ({{.Name}} is a itself).
func ArithmeticKey(a string) (key, parts string) {
	if parts, ok := strings.CutPrefix(a, "bf16:"); ok {
		parts, i8 := strings.CutSuffix(parts, "+int8")
		if i8 {
			// A quantised matrix rounds its prefill activations to bf16
			// because its decode rounds them more coarsely, to 8 bits.
			return "arith.parts.int8", strings.ReplaceAll(parts, ",", ", ")
		}
		return "arith.parts", strings.ReplaceAll(parts, ",", ", ")
	}
	switch a {
	case "bf16", "selective", "int8":
		return "arith." + a, ""
	case "bf16+int8":
		return "arith.bf16int8", ""
	case "int8+prefill":
		return "arith.int8prefill", ""
	case "fp32", "":
		return "arith.fp32", ""
	}
	return "arith.other", ""
}

// arithmeticEnglish is each ArithmeticKey's sentence in English, as the
// English translation file has it (i18n's tests hold the two equal).
var arithmeticEnglish = map[string]string{
	"arith.parts":       "prefill rounds activations to bf16 in {{.Parts}}, fp32 elsewhere (probabilities within 3e-3 on the test models)",
	"arith.parts.int8":  "prefill rounds activations to bf16 in {{.Parts}}, fp32 elsewhere; decode rounds them to 8 bits for the quantised matrices",
	"arith.bf16":        "prefill rounds activations to bf16 (faster where the CPU's bf16 products outrun its FMAs; probabilities move by up to 2e-2 on the test models)",
	"arith.selective":   "prefill rounds activations to bf16 in the parts of a model that stay within 3e-3 on the test models, fp32 elsewhere",
	"arith.int8":        "decode rounds activations to 8 bits for the quantised matrices",
	"arith.bf16int8":    "prefill rounds activations to bf16, decode to 8 bits for the quantised matrices",
	"arith.int8prefill": "decode rounds activations to 8 bits for the quantised matrices, prefill too for the formats with integer tiles",
	"arith.fp32":        "every product in fp32",
	"arith.other":       "{{.Name}} products",
}

// FirstNumbers writes the first k values with three decimals as the
// article does: "0.017, -0.004, -0.008, …" (the ellipsis when there are
// more).
func FirstNumbers(v []float32, k int) string {
	var b strings.Builder
	for i, x := range v[:max(0, min(k, len(v)))] {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'f', 3, 32))
	}
	if len(v) > k {
		b.WriteString(", …")
	}
	return b.String()
}
