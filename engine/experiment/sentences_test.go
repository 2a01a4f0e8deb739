package experiment

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"loupe/format"
	"loupe/i18n"
)

// The two-texts figure draws each run's timing: tokens over seconds. Its
// sentence quotes those speeds, not the median step speed the point also
// measured (405 and 173 tokens/s in the sentence against 396 and 150 in
// the figure, before).
func TestTextsSentenceQuotesTheFiguresSpeeds(t *testing.T) {
	a := Point{Label: "your prompt", PrefillTokens: 17, PrefillSeconds: 0.05, DecodeTokens: 16, DecodeSeconds: 16.0 / 396,
		DecodeTokS: 405, PrefillTokS: 300, BytesPerToken: 33e6}
	b := Point{Label: "The Gold-Bug", PrefillTokens: 3139, PrefillSeconds: 2.1, DecodeTokens: 16, DecodeSeconds: 16.0 / 150,
		DecodeTokS: 173, PrefillTokS: 1500, BytesPerToken: 60e6}
	s := Reading(Result{What: Texts, Points: []Point{a, b}})
	for _, want := range []string{"396", "150"} {
		if !strings.Contains(s, want+" ") && !strings.Contains(s, want+" tokens/s") {
			t.Errorf("sentence %q lacks the figure's %s tokens/s", s, want)
		}
	}
	for _, not := range []string{"405", "173"} {
		if strings.Contains(s, not) {
			t.Errorf("sentence %q quotes the median step speed %s, which the figure does not draw", s, not)
		}
	}
	// The figure's share of reading is the sentence's too.
	if share := format.Percent(a.PrefillSeconds / (a.PrefillSeconds + a.DecodeSeconds)); !strings.Contains(s, share) {
		t.Errorf("sentence %q lacks the reading share %s", s, share)
	}
}

// A measured two-texts point carries the speeds its figure draws.
func TestTwoTextsPointsAreTheFiguresSpeeds(t *testing.T) {
	m, _ := load(t, "tiny")
	r, err := Run(context.Background(), m, Options{What: Texts, Prompt: prompt, Second: GoldBug, SecondLabel: "The Gold-Bug", DecodeTokens: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Points {
		pre, dec := float64(p.PrefillTokens)/p.PrefillSeconds, float64(p.DecodeTokens)/p.DecodeSeconds
		if format.Sig2(p.PrefillTokS) != format.Sig2(pre) || format.Sig2(p.DecodeTokS) != format.Sig2(dec) {
			t.Errorf("%s: point %v / %v tokens/s, its timing %v / %v", p.Label, p.PrefillTokS, p.DecodeTokS, pre, dec)
		}
	}
}

// threadsPoint is a threads sweep's point with its prediction.
func threadsPoint(n int, pre, dec, pred, bytes float64) Point {
	return Point{Value: n, Label: format.Thousands(n), PrefillTokS: pre, DecodeTokS: dec, PredictedDecodeTokS: pred, BytesPerToken: bytes}
}

// The threads sentence says writing waits for the memory only where it
// runs near what the memory allows (stats.MemoryBound); a tiny model far from
// it is said to be too small; a speed-up above the thread ratio is noise.
func TestThreadsSentenceFollowsTheMeasuredBandwidth(t *testing.T) {
	const waits = "waits for the memory"
	for _, c := range []struct {
		name      string
		a, b      Point
		want, not []string
	}{
		{"tiny model, far from the memory's limit",
			threadsPoint(1, 2500, 150, 1081, 33e6), threadsPoint(2, 4600, 171, 1081, 33e6),
			[]string{"171", "1,081", "15.8 %", "too small", "33 MB"}, []string{waits}},
		{"large model at 87 % of what the memory allows",
			threadsPoint(1, 100, 10, 16, 3.1e9), threadsPoint(12, 1000, 14, 16, 3.1e9),
			[]string{waits, "87.5 %", "14 of 16"}, []string{"small", "noise"}},
		{"large model far from the memory",
			threadsPoint(1, 100, 3, 16, 3.1e9), threadsPoint(12, 1000, 5, 16, 3.1e9),
			[]string{"far from the memory's limit", "31.2 %"}, []string{waits, "small"}},
		{"reading 7.3 × faster on 2 threads",
			threadsPoint(1, 2000, 150, 1081, 33e6), threadsPoint(2, 14600, 171, 1081, 33e6),
			[]string{"7.3 ×", "noise", "2.0 ×"}, []string{waits, "small"}},
		{"writing faster than the thread ratio",
			threadsPoint(2, 2000, 50, 1081, 33e6), threadsPoint(4, 3000, 150, 1081, 33e6),
			[]string{"writing gained more", "noise"}, []string{waits}},
		{"weights from the caches: faster than the memory allows",
			threadsPoint(1, 16470, 1980, 440, 10.5e6), threadsPoint(2, 30000, 2100, 950, 10.5e6),
			[]string{"faster than the 950 the memory allows (221 %)", "caches", "11 MB"}, []string{waits, "small"}},
		{"busy machine",
			threadsPoint(1, 2000, 150, 1081, 33e6), threadsPoint(2, 1500, 140, 1081, 33e6),
			[]string{"another program"}, []string{waits}},
		{"no bandwidth measured",
			threadsPoint(1, 100, 10, 0, 3.1e9), threadsPoint(12, 1000, 14, 0, 3.1e9),
			[]string{"sped up 10.0 ×, writing 1.4 ×."}, []string{waits, "memory"}},
	} {
		s := Reading(Result{What: Threads, Points: []Point{c.a, c.b}})
		fr := ReadingIn(Result{What: Threads, Points: []Point{c.a, c.b}}, i18n.French)
		for _, w := range c.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: %q lacks %q", c.name, s, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(s, n) {
				t.Errorf("%s: %q says %q", c.name, s, n)
			}
		}
		if fr == s || strings.Contains(fr, "experiment.") || strings.Contains(fr, "<no value>") {
			t.Errorf("%s: French %q", c.name, fr)
		}
	}
}

// A cancelled sweep says it removed copies only where it wrote some: the
// two-texts experiment writes none.
func TestCancelledSaysOnlyWhatItRemoved(t *testing.T) {
	texts := Cancelled(Result{What: Texts, Cancelled: true, Points: []Point{{}}})
	if texts != "Cancelled after 1 point." {
		t.Errorf("two texts: %q", texts)
	}
	quant := Cancelled(Result{What: Quant, Cancelled: true, Points: []Point{{}, {}}, Removed: 2})
	if quant != "Cancelled after 2 points. The 2 copies it had written are removed." {
		t.Errorf("quant: %q", quant)
	}
	if fr := CancelledIn(Result{What: Quant, Cancelled: true, Removed: 1}, i18n.French); fr != "Annulée après 0 point. La copie qu'elle avait écrite est supprimée." {
		t.Errorf("French: %q", fr)
	}
}

// The quant plan gives the size of the copies from the same source as
// the confirmation before the sweep (QuantCopies): 33 MB in all was
// "about 16 MB" in the plan, before. With the copies in the cache, it says
// it reuses them.
func TestQuantPlanSizeIsTheCopiesSize(t *testing.T) {
	m, _ := load(t, "tiny-llama")
	cache := t.TempDir()
	bytes, dir, err := QuantCopies(m, cache)
	if err != nil || bytes <= 0 {
		t.Fatalf("copies: %d bytes, %v", bytes, err)
	}
	s := Plan(Quant, m.Info(), Options{CacheDir: cache}, Speeds{PrefillTokS: 900, DecodeTokS: 14}, 2)
	if want := format.Bytes(float64(bytes)) + " in all"; !strings.Contains(s, want) {
		t.Errorf("plan %q, want %q (the confirmation's size)", s, want)
	}
	fr := Plan(Quant, m.Info(), Options{CacheDir: cache, Lang: i18n.French}, Speeds{PrefillTokS: 900, DecodeTokS: 14}, 2)
	if !strings.Contains(fr, "en tout") || !strings.Contains(fr, "environ") {
		t.Errorf("French plan %q", fr)
	}
	for _, typ := range QuantTypes {
		if err := os.WriteFile(filepath.Join(dir, "model-"+strings.ToUpper(typ)+".gguf"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if s := Plan(Quant, m.Info(), Options{CacheDir: cache}, Speeds{PrefillTokS: 900, DecodeTokS: 14}, 2); !strings.Contains(s, "already in Loupe's cache") {
		t.Errorf("plan with the copies cached: %q", s)
	}
	info := m.Info()
	info.Path = filepath.Join(t.TempDir(), "model.gguf")
	os.WriteFile(info.Path, []byte("GGUF"), 0o644)
	if s := Plan(Quant, info, Options{CacheDir: cache}, Speeds{PrefillTokS: 900, DecodeTokS: 14}, 2); !strings.Contains(s, "safetensors") {
		t.Errorf("plan for a GGUF file: %q", s)
	}
}

// threadRatio is b's threads over a's: 0 when either count is unknown (a
// label that is not a number), so that the sentence does not claim a
// speed-up "on ? threads".
func TestThreadRatio(t *testing.T) {
	one, four, unknown := Point{Value: 1}, Point{Label: "4"}, Point{Label: "all"}
	for _, c := range []struct {
		a, b Point
		want float64
	}{{one, four, 4}, {four, one, 0.25}, {unknown, four, 0}, {four, unknown, 0}} {
		if got := threadRatio(c.a, c.b); got != c.want {
			t.Errorf("threadRatio(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestExactNoteFollowsTheMeasure: the note on the exact and avx512bf16
// points calls bf16 products faster only where they read faster in this
// run (AMD's cores), and says they were no faster, with both rates,
// where they were not (Intel's, whose VDPBF16PS issues half as often).
func TestExactNoteFollowsTheMeasure(t *testing.T) {
	points := func(bf float64) []Point {
		return []Point{{Value: Exact, PrefillTokS: 100}, {Value: "avx512bf16", PrefillTokS: bf}}
	}
	faster := exactNote(Options{}, points(140))
	if !strings.Contains(faster, "faster, less exact") || strings.Contains(faster, "no faster") {
		t.Errorf("bf16 read faster: %q", faster)
	}
	slower := exactNote(Options{}, points(71.5))
	if !strings.Contains(slower, "no faster (71.5 against 100 tokens/s read)") {
		t.Errorf("bf16 read slower: %q", slower)
	}
	if fr := exactNote(Options{Lang: i18n.French}, points(71.5)); !strings.Contains(fr, "71,5 contre 100") {
		t.Errorf("French: %q", fr)
	}
	if one := exactNote(Options{}, points(71.5)[:1]); one != "" {
		t.Errorf("one point alone: %q", one)
	}
}
