package perf

import (
	"math"
	"testing"
	"unsafe"
)

// TestProbeBytes: four times the last-level cache, in whole 2 MiB pages,
// between 64 MiB and the 208 MiB the probe may allocate.
func TestProbeBytes(t *testing.T) {
	for _, c := range []struct{ l3, want int64 }{
		{-1, 64 << 20}, {0, 64 << 20}, {8 << 20, 64 << 20}, {32 << 20, 128 << 20},
		{36 << 20, 144 << 20}, {105e6, 208 << 20}, {480 << 20, 208 << 20}, {(20 << 20) + 12345, 80 << 20},
	} {
		if got := probeBytes(c.l3); got != c.want {
			t.Errorf("L3 %d: %d bytes, want %d", c.l3, got, c.want)
		}
	}
	if b := ProbeBytes(); b < 64<<20 || b > DefaultBufferBytes || b > 256e6 {
		t.Errorf("ProbeBytes %d", b)
	}
}

// TestWordsOfRegions: each region is viewed from its first aligned word,
// in whole blocks, without a copy; too short a region is left out.
func TestWordsOfRegions(t *testing.T) {
	backing := make([]uint64, 4*readWords+8)
	for i := range backing {
		backing[i] = uint64(i)
	}
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&backing[0])), len(backing)*8)
	words := wordsOf([][]byte{raw[3:], raw[:readBlock-1], raw[8 : 8+2*readBlock+5]})
	if len(words) != 2 {
		t.Fatalf("%d regions, want 2", len(words))
	}
	// raw[3:]: the first aligned word is backing[1]; 4 blocks fit after it.
	if len(words[0]) != 4*readWords || words[0][0] != 1 || &words[0][0] != &backing[1] {
		t.Errorf("region 0: %d words from %d", len(words[0]), words[0][0])
	}
	if len(words[1]) != 2*readWords || words[1][0] != 1 {
		t.Errorf("region 1: %d words from %d", len(words[1]), words[1][0])
	}
}

// TestMeasureBandwidthOver reads the caller's memory: the figure
// describes the bytes read (whole blocks of every region) and bad
// arguments are refused.
func TestMeasureBandwidthOver(t *testing.T) {
	a, b := make([]byte, 4<<20), make([]byte, (1<<20)+100)
	r, err := MeasureBandwidthOver(2, 2, [][]byte{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := int64(4<<20 + 1<<20) // b: its 100 extra bytes are less than a block
	if r.Bytes != want || r.Passes != minWindows/2 || r.Source != "model weights" || r.BestGBs <= 0 || r.MedianGBs > r.BestGBs {
		t.Fatalf("bad description %+v (want %d bytes)", r, want)
	}
	if _, err := MeasureBandwidthOver(1, 0, [][]byte{a}); err == nil {
		t.Error("0 passes accepted")
	}
	if _, err := MeasureBandwidthOver(1, 1, [][]byte{a[:minWindowBytes-1]}); err == nil {
		t.Error("no region of a window accepted")
	}
}

// TestWindows: regions are cut into windows of 32 MiB in whole blocks, in
// order and without a gap; a tail under 1 MiB joins the window before it;
// a region under 1 MiB is left out.
func TestWindows(t *testing.T) {
	big := make([]uint64, (2*windowBytes+minWindowBytes+100)/8)
	small := make([]uint64, minWindowBytes/8-1)
	wins, words := windows([][]uint64{small, big})
	if len(wins) != 3 || len(wins[0]) != windowBytes/8 || len(wins[2]) != minWindowBytes/8 {
		t.Fatalf("%d windows", len(wins))
	}
	tail, _ := windows([][]uint64{big[:(windowBytes+minWindowBytes/2)/8]})
	if len(tail) != 1 || len(tail[0]) != (windowBytes+minWindowBytes/2)/8 {
		t.Errorf("a 32.5 MiB region: %d windows", len(tail))
	}
	if &wins[1][0] != &big[windowBytes/8] || &wins[2][0] != &big[2*windowBytes/8] {
		t.Error("windows do not follow each other through the region")
	}
	if words != len(wins[0])+len(wins[1])+len(wins[2]) {
		t.Errorf("%d words counted", words)
	}
}

type pages [][]byte

func (p pages) WeightPages() [][]byte { return p }

// TestMeasureBeside: beside weights of 64 MiB or more the probe reads
// them; beside less, a buffer of ProbeBytes.
func TestMeasureBeside(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 64 MiB 128 times")
	}
	w := make([]byte, minBufferBytes)
	if ReadsWeights(nil) || ReadsWeights(pages{w[:minBufferBytes-1]}) || !ReadsWeights(pages{w[:minBufferBytes/2], w[minBufferBytes/2:]}) {
		t.Error("ReadsWeights: want true from 64 MiB of weights in all, false below or with no model")
	}
	b, err := MeasureBeside(pages{w}, 2, 1)
	if err != nil || b.Source != "model weights" || b.Bytes != minBufferBytes {
		t.Errorf("beside 64 MiB of weights: %+v, %v", b, err)
	}
	b, err = MeasureBeside(pages{w[:minBufferBytes-readBlock]}, 2, 1)
	if err != nil || b.Source != "buffer" || b.Bytes != ProbeBytes() {
		t.Errorf("beside less: %+v, %v", b, err)
	}
}

// TestPassFigures: windows of 1 and 3 GB read in (1 s, 2 s) and then
// (2 s, 1.5 s). Every window at its fastest: 4 GB in 1 + 1.5 s, 1.6 GB/s;
// the fastest window alone 3 GB in 1.5 s, 2 GB/s; the passes 4 GB in 3 s
// and in 3.5 s.
func TestPassFigures(t *testing.T) {
	f := passFigures([]float64{1e9, 3e9}, [][]float64{{1, 2}, {2, 1.5}})
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(f.best, 1.6) || !near(f.bestWindow, 2) {
		t.Errorf("best %v, best window %v; want 1.6, 2", f.best, f.bestWindow)
	}
	if len(f.passes) != 2 || !near(f.passes[0], 4.0/3) || !near(f.passes[1], 4/3.5) {
		t.Errorf("passes %v, want [1.333 1.143]", f.passes)
	}
	if z := passFigures(nil, nil); z.best != 0 || z.bestWindow != 0 || len(z.passes) != 0 {
		t.Errorf("no window: %+v", z)
	}
}
