package format

import (
	"math"
	"testing"
)

// French figures as the French article writes them: decimal comma, a
// narrow no-break space (U+202F) between thousands and before % and
// units. The expected strings are written by hand, "\u202f" spelled out.
func TestFrenchNotation(t *testing.T) {
	const n = "\u202f"
	for _, c := range []struct{ got, want string }{
		{French.Percent(0.675), "67,5" + n + "%"},
		{French.Percent(0.925), "92,5" + n + "%"},
		{French.Percent(1), "100" + n + "%"},
		{French.Percent(0.000000000058), "<" + n + "0,001" + n + "%"},
		{French.Percent(math.NaN()), "–"},
		{French.Thousands(1536), "1" + n + "536"},
		{French.Thousands(-1234567), "-1" + n + "234" + n + "567"},
		{French.Thousands(999), "999"},
		{French.Count(151936), "151" + n + "936"},
		{French.Count(233_000_000), "233" + n + "M"},
		{French.Count(1_543_714_304), "1,5" + n + "Md"},
		{French.Bytes(3.09e9), "3,1" + n + "Go"},
		{French.Bytes(28672), "29" + n + "ko"},
		{French.Bytes(117_440_512), "117" + n + "Mo"},
		{French.Bytes(512), "512" + n + "o"},
		{French.GBs(46), "46,0" + n + "Go/s"},
		{French.Duration(7.2), "7,2" + n + "s"},
		{French.Duration(0.08), "80" + n + "ms"},
		{French.Duration(321), "5" + n + "min" + n + "21" + n + "s"},
		{French.Sig2(1495.4), "1" + n + "495"},
		{French.Sig2(0.0812), "0,081"},
		{French.Trim(1.50, 2), "1,5"},
		{French.Fixed(46, 1), "46,0"},
		{French.Signed(1.25, 1), "+1,2"},
		{French.Signed(-0.5, 1), "-0,5"},
		{French.G2(0.0812), "0,081"},
		{French.Times(5.9), "5,9" + n + "×"},
		{French.UnknownPercent(), "?" + n + "%"},
		{French.UnknownTimes(), "?" + n + "×"},
		{English.UnknownPercent(), "? %"},
		{English.UnknownTimes(), "? ×"},
		{French.PercentTrim(0.25, 2), "25" + n + "%"},
		{French.PercentTrim(0.125, 2), "12,5" + n + "%"},
		{French.PercentTrim(0.001, 2), "0,1" + n + "%"},
		{French.FirstNumbers([]float32{0.0171, -0.0044, 1}, 2), "0,017" + n + "; -0,004" + n + "; …"},
		{French.Unit("s"), "s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// English through a Lang is the formatters' own notation, unchanged; so
// is the zero Lang.
func TestEnglishNotationUnchanged(t *testing.T) {
	for _, l := range []Lang{English, {}} {
		for _, c := range []struct{ got, want string }{
			{l.Percent(0.675), "67.5 %"},
			{l.Thousands(1536), "1,536"},
			{l.Count(1_543_714_304), "1.5 B"},
			{l.Bytes(3.09e9), "3.1 GB"},
			{l.GBs(46), "46.0 GB/s"},
			{l.Duration(7.2), "7.2 s"},
			{l.Signed(1.25, 1), "+1.2"},
			{l.G2(3.31), "3.3"},
			{l.Times(5.9), "5.9 ×"},
			{l.FirstNumbers([]float32{0.0171, -0.0044, 1}, 2), "0.017, -0.004, …"},
		} {
			if c.got != c.want {
				t.Errorf("%q: got %q, want %q", l.Code, c.got, c.want)
			}
		}
	}
}

// Number touches separators between digits only: a sentence's comma or
// a trailing period stays.
func TestNumberLeavesPunctuation(t *testing.T) {
	if got, want := French.Number("1,536."), "1\u202f536."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := French.Number("a, b"), "a,\u202fb"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
