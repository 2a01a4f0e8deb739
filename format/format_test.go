package format

import (
	"image/color"
	"math"
	"testing"
)

func TestNumbers(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Thousands(151936), "151,936"},
		{Thousands(-1234567), "-1,234,567"},
		{Thousands(999), "999"},
		{Thousands(int64(1000)), "1,000"},
		{Count(151936), "151,936"},
		{Count(9_999_999), "9,999,999"},
		{Count(233_000_000), "233 M"},
		{Count(1_543_714_304), "1.5 B"},
		{Count(2_000_000_000), "2 B"},
		{Plural(1, "token"), "1 token"},
		{Plural(3139, "token"), "3,139 tokens"},
		{Plural(0, "step"), "0 steps"},
		{Bytes(512), "512 B"},
		{Bytes(28672), "29 KB"},
		{Bytes(117_440_512), "117 MB"},
		{Bytes(3.09e9), "3.1 GB"},
		{Bytes(1.2e12), "1.2 TB"},
		{Percent(0.925), "92.5 %"},
		{PercentWhole(0.925), "93 %"}, // 92.5 rounds half away from zero
		{PercentWhole(-0.031), "-3 %"},
		{PercentWhole(-0.001), "0 %"},
		{PercentWhole(math.NaN()), "–"},
		{Percent(0.43), "43.0 %"},
		{Percent(1), "100 %"},
		{Percent(0.99996), "100 %"},
		{Percent(0), "0 %"},
		{Percent(0.00016), "0.016 %"},
		{Percent(0.0000123), "0.0012 %"},
		{Percent(0.000000000058), "< 0.001 %"}, // not "0.0000000058 %"
		{Percent(-0.000000000058), "> -0.001 %"},
		{Percent(math.NaN()), "–"},
		{Sig2(0.0812), "0.081"},
		{Sig2(2.14), "2.1"},
		{Sig2(14.4), "14"},
		{Sig2(1495.4), "1,495"},
		{Sig2(math.Inf(1)), "–"},
		{Trim(1.50, 2), "1.5"},
		{Trim(25.00, 2), "25"},
		{FirstNumbers([]float32{0.0171, -0.0044, 1}, 2), "0.017, -0.004, …"},
		{FirstNumbers([]float32{0.5}, 3), "0.500"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// A wait below a second is said in milliseconds: "0.00 s" hid every
// millisecond-scale phase.
func TestDuration(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0, "0 s"},
		{0.0004, "0.4 ms"},
		{0.012, "12 ms"},
		{0.0123, "12 ms"},
		{0.42, "420 ms"},
		{0.9994, "999 ms"},
		{0.9996, "1 s"},
		{2.14, "2.1 s"},
		{8, "8 s"},
		{12.3, "12 s"},
		{59.6, "1 min 0 s"},
		{321, "5 min 21 s"},
		{3599.6, "1 h 0 min"},
		{3780, "1 h 3 min"},
		{math.NaN(), "–"},
	} {
		if got := Duration(c.s); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}

func TestVisible(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "(empty)"},
		{" the", "·the"},
		{"a\nb\tc\rd", `a¶b→c\rd`},
		{"\x00\x7f", `\x00\x7f`},
		{"日本", "日本"},
	} {
		if got := Visible(c.in); got != c.want {
			t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	ascii := func(r rune) bool { return r < 0x100 }
	if got := VisibleIn("é日", ascii); got != "éU+65E5" {
		t.Errorf("VisibleIn = %q", got)
	}
}

func TestStops(t *testing.T) {
	s := Stops{0x000000, 0xff0080}
	for _, c := range []struct {
		t    float64
		want color.NRGBA
	}{
		{0, color.NRGBA{0, 0, 0, 255}},
		{1, color.NRGBA{255, 0, 128, 255}},
		{0.5, color.NRGBA{128, 0, 64, 255}}, // 127.5 and 64 rounded
		{-3, color.NRGBA{0, 0, 0, 255}},
		{7, color.NRGBA{255, 0, 128, 255}},
		{math.NaN(), color.NRGBA{0, 0, 0, 255}},
	} {
		if got := s.At(c.t); got != c.want {
			t.Errorf("At(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	// Viridis: the ends and the middle are matplotlib's published stops.
	if Viridis.At(0) != (color.NRGBA{0x44, 0x01, 0x54, 255}) || Viridis.At(0.5) != (color.NRGBA{0x21, 0x91, 0x8c, 255}) ||
		Viridis.At(1) != (color.NRGBA{0xfd, 0xe7, 0x25, 255}) {
		t.Errorf("Viridis ends/middle = %v %v %v", Viridis.At(0), Viridis.At(0.5), Viridis.At(1))
	}
	if Diverging(0) != (color.NRGBA{200, 200, 200, 255}) || Diverging(1) != (color.NRGBA{178, 24, 43, 255}) ||
		Diverging(-4) != (color.NRGBA{33, 102, 172, 255}) {
		t.Errorf("Diverging = %v %v %v", Diverging(0), Diverging(1), Diverging(-4))
	}
	// sqrt(0.25) = 0.5 of the way from grey to red.
	if got := Diverging(0.25); got != (color.NRGBA{189, 112, 122, 255}) {
		t.Errorf("Diverging(0.25) = %v", got)
	}
}

// WCAG 2's worked values: black on white 21 : 1, equal colours 1 : 1,
// #767676 on white 4.54 : 1 (the lightest grey that passes AA), #777777
// 4.48 : 1 (fails).
func TestContrast(t *testing.T) {
	black, white := color.NRGBA{0, 0, 0, 255}, color.NRGBA{255, 255, 255, 255}
	for _, c := range []struct {
		a, b color.Color
		want float64
	}{
		{black, white, 21}, {white, black, 21}, {white, white, 1},
		{color.NRGBA{0x76, 0x76, 0x76, 255}, white, 4.54},
		{color.NRGBA{0x77, 0x77, 0x77, 255}, white, 4.48},
	} {
		if got := Contrast(c.a, c.b); math.Abs(got-c.want) > 0.01 {
			t.Errorf("contrast %v on %v: %.3f, want %.2f", c.a, c.b, got, c.want)
		}
	}
	if got := Over(color.NRGBA{255, 0, 0, 0x80}, white); got != (color.NRGBA{255, 127, 127, 255}) {
		t.Errorf("half red over white: %v", got)
	}
}

func TestOneLineAndGlyphs(t *testing.T) {
	if got := OneLine("KING RICHARD III:\nNow is\tthe winter\r\n"); got != "KING RICHARD III: ¶ Now is the winter ¶ " {
		t.Errorf("OneLine: %q", got)
	}
	latin := func(r rune) bool { return r < 0x2000 }
	if got := Glyphs("MLP of «你» (position 1284) · 🙂", latin); got != "MLP of «<U+4F60>» (position 1284) · <U+1F642>" {
		t.Errorf("Glyphs: %q", got)
	}
	if got := Glyphs("你", nil); got != "你" {
		t.Errorf("Glyphs with no font check: %q", got)
	}
}

func TestArithmetic(t *testing.T) {
	for _, c := range []struct{ a, want string }{
		{"fp32", "every product in fp32"},
		{"bf16:experts", "prefill rounds activations to bf16 in experts, fp32 elsewhere (probabilities within 3e-3 on the test models)"},
		{"int8+prefill", "decode rounds activations to 8 bits for the quantised matrices, prefill too for the formats with integer tiles"},
		{"bf16:gate,up,down+int8", "prefill rounds activations to bf16 in gate, up, down, fp32 elsewhere; decode rounds them to 8 bits for the quantised matrices"},
	} {
		if got := Arithmetic(c.a); got != c.want {
			t.Errorf("Arithmetic(%q) = %q, want %q", c.a, got, c.want)
		}
	}
}
