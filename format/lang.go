package format

import (
	"strconv"
	"strings"
	"unicode"
)

// Lang is how one language writes numbers: its decimal mark, the
// separator between thousands, the space before a unit or a percent
// sign, its unit names and the separator of a list of decimals. English
// and French are its values; the zero Lang writes as English does. The
// formatters above write English; a Lang's methods write the same
// figure, to the same digits, in its notation, so two languages never
// disagree on a number, only on how it is written.
//
// A language whose notation is English's or French's reuses that value;
// another one is one more value here.
type Lang struct {
	Code    string // "en", "fr": the language's ISO 639-1 code
	decimal string // "." or ","
	group   string // between thousands: "," or a narrow no-break space
	space   string // between a number and its unit or %
	listSep string // between the decimals of a list: ", " or " ; "
	units   map[string]string
}

// NNBSP is the narrow no-break space French puts between thousands and
// before a unit or % ("1 536", "67,5 %"), as the French article does.
const NNBSP = "\u202f"

var (
	// English writes "1,536", "67.5 %", "46.0 GB/s": the formatters'
	// own notation.
	English = Lang{Code: "en"}
	// French writes "1 536", "67,5 %", "46,0 Go/s", "7,2 s", with
	// narrow no-break spaces, and bytes in octets (ko, Mo, Go).
	French = Lang{Code: "fr", decimal: ",", group: NNBSP, space: NNBSP, listSep: NNBSP + "; ",
		units: map[string]string{"B": "o", "KB": "ko", "MB": "Mo", "GB": "Go", "TB": "To", "GB/s": "Go/s",
			"billion": "Md"}}
)

// english says whether l writes as the formatters do.
func (l Lang) english() bool { return l.decimal == "" }

// Number rewrites a number the formatters wrote in English notation
// ("1,536", "67.5 %", "< 0.001 %", "5 min 21 s") in l's: a '.' between
// digits becomes the decimal mark, a ',' between digits the thousands
// separator, every space l's space. It is meant for one figure, not a
// sentence (a sentence's commas are not separators).
func (l Lang) Number(s string) string {
	if l.english() {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		between := i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1])
		switch {
		case r == '.' && between:
			b.WriteString(l.decimal)
		case r == ',' && between:
			b.WriteString(l.group)
		case r == ' ':
			b.WriteString(l.space)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Unit is an English unit's name in l ("GB" → "Go" in French); a unit
// l does not rename is kept ("s", "ms", "%").
func (l Lang) Unit(u string) string {
	if v, ok := l.units[u]; ok {
		return v
	}
	return u
}

// Space is what l puts between a number and its unit.
func (l Lang) Space() string {
	if l.english() {
		return " "
	}
	return l.space
}

// Thousands is Thousands in l: "151,936", "151 936".
func (l Lang) Thousands(n int64) string { return l.Number(Thousands(n)) }

// Count is Count in l: "1.5 B" is "1,5 Md" in French (milliard).
func (l Lang) Count(n int64) string {
	s := Count(n)
	if v, ok := strings.CutSuffix(s, " B"); ok && !l.english() {
		return l.Number(v) + l.space + l.Unit("billion")
	}
	return l.Number(s)
}

// Bytes is Bytes in l: "3.1 GB" is "3,1 Go" in French.
func (l Lang) Bytes(b float64) string {
	v, u, _ := strings.Cut(Bytes(b), " ")
	return l.Number(v) + l.Space() + l.Unit(u)
}

// Percent is Percent in l: "67.5 %", "67,5 %".
func (l Lang) Percent(p float64) string { return l.Number(Percent(p)) }

// Duration is Duration in l: "7.2 s", "7,2 s".
func (l Lang) Duration(s float64) string { return l.Number(Duration(s)) }

// Sig2 is Sig2 in l: "0.081", "0,081".
func (l Lang) Sig2(x float64) string { return l.Number(Sig2(x)) }

// Trim is Trim in l: "1.5", "1,5".
func (l Lang) Trim(x float64, d int) string { return l.Number(Trim(x, d)) }

// Fixed writes x with d decimals: "46.0", "46,0".
func (l Lang) Fixed(x float64, d int) string {
	return l.Number(strconv.FormatFloat(x, 'f', d, 64))
}

// Signed is Fixed with its sign always written: "+1.2", "-0.5".
func (l Lang) Signed(x float64, d int) string {
	s := l.Fixed(x, d)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// G2 writes x with two significant digits as %.2g would, without
// exponent for the values a lesson shows: "0.08", "3.3", "0,08".
func (l Lang) G2(x float64) string {
	return l.Number(strconv.FormatFloat(x, 'g', 2, 64))
}

// GBs writes a rate in gigabytes per second with one decimal: "46.0
// GB/s", "46,0 Go/s".
func (l Lang) GBs(x float64) string { return l.Fixed(x, 1) + l.Space() + l.Unit("GB/s") }

// Times writes a ratio with one decimal: "5.9 ×", "5,9 ×".
func (l Lang) Times(x float64) string { return l.Fixed(x, 1) + l.Space() + "×" }

// UnknownTimes is a ratio a sentence names but could not measure: "? ×".
// (A figure writes an unknown number "–"; prose asks.)
func (l Lang) UnknownTimes() string { return "?" + l.Space() + "×" }

// UnknownPercent is a share or change a sentence names but could not
// measure: "? %", "? %" in French.
func (l Lang) UnknownPercent() string { return "?" + l.Space() + "%" }

// FirstNumbers is FirstNumbers in l: French separates decimals written
// with commas by semicolons ("0,017 ; -0,004 ; …"), as the French
// article writes its lists of scores.
func (l Lang) FirstNumbers(v []float32, k int) string {
	if l.english() {
		return FirstNumbers(v, k)
	}
	parts := strings.Split(FirstNumbers(v, k), ", ")
	for i, p := range parts {
		parts[i] = l.Number(p)
	}
	return strings.Join(parts, l.listSep)
}

// PercentWhole writes a share that is a whole percentage as such: "5 %"
// for 0.05, where Percent writes "5.0 %" (a threshold, not a measure).
func (l Lang) PercentWhole(p float64) string { return l.PercentTrim(p, 1) }

// PercentTrim writes a share with at most d decimals and no trailing
// zeros: "25 %" for 0.25 at d = 2, where Percent writes "25.0 %" (an
// axis tick, not a measure).
func (l Lang) PercentTrim(p float64, d int) string { return l.Number(Trim(p*100, d) + " %") }
