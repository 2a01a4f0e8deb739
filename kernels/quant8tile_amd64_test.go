//go:build amd64 && !purego

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTilesAVX2AndAVXVNNI runs both x86 tile sets, whichever the level
// tables chose on this CPU, against the oracle, and checks that they give
// the same bits: their int32 sums are the same exact integers.
func TestTilesAVX2AndAVXVNNI(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	prev := Active()
	defer SetLevel(prev)
	if err := SetLevel(AVX2); err != nil {
		t.Fatal(err)
	}
	sets := map[string]*q8Tiles{"avx2": tilesAVX2}
	if hasAVXVNNI {
		sets["avxvnni"] = tilesAVXVNNI
	}
	was := cur.q8Tiles
	defer func() { cur.q8Tiles = was }()
	for name, s := range sets {
		t.Run(name, func(t *testing.T) {
			cur.q8Tiles = s
			checkMatMulQ8Rows(t, func(q Quant, out []float32, ld int, w []byte, a *QuantizedRows) { MatMulQ8Rows(nil, q, out, ld, w, a) })
		})
	}
	if !hasAVXVNNI {
		return
	}
	r := rand.New(rand.NewPCG(73, 5))
	for _, q := range []Quant{Q4K, Q5K, Q6K, Q8_0} {
		const rows, n, cols = 40, 13, 512
		w := randBlocks(r, q, rows, cols)
		x := make([]float32, 0, n*cols)
		for range n {
			x = append(x, actRow(r, cols, 0)...)
		}
		var a QuantizedRows
		a.Prepare(n, cols)
		a.Quantize(x, 0, n)
		var outs [2][]float32
		for i, s := range []*q8Tiles{tilesAVX2, tilesAVXVNNI} {
			cur.q8Tiles = s
			outs[i] = make([]float32, n*rows)
			MatMulQ8Rows(nil, q, outs[i], rows, w, &a)
		}
		for i := range outs[0] {
			if math.Float32bits(outs[0][i]) != math.Float32bits(outs[1][i]) {
				t.Fatalf("%v out[%d]: AVX2 %v, AVX-VNNI %v", q, i, outs[0][i], outs[1][i])
			}
		}
	}
}

// TestPackQ8PanelAVX2: the AVX2 byte unpacking writes the panel the
// readable packQ4KRow and packQ6KRow write, byte for byte and scale for
// scale.
func TestPackQ8PanelAVX2(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(74, 6))
	for _, q := range []Quant{Q4K, Q5K, Q6K, Q8_0} {
		for _, cols := range []int{256, 1536} {
			w := randBlocks(r, q, 8, cols)
			wq, sm := make([]byte, 8*cols), make([]float32, cols/2)
			tilesAVX2.pack(q, wq, sm, w, 8, cols)
			wq0, sm0 := make([]byte, 8*cols), make([]float32, cols/2)
			packQ8Panel(q, wq0, sm0, w, 8, cols)
			for i := range wq {
				if wq[i] != wq0[i] {
					t.Fatalf("%v %d columns: byte %d (column group %d, row %d) = %d, readable %d", q, cols, i, i/32, i/4%8, wq[i], wq0[i])
				}
			}
			for i := range sm {
				if sm[i] != sm0[i] {
					t.Fatalf("%v %d columns: scale %d = %v, readable %v", q, cols, i, sm[i], sm0[i])
				}
			}
		}
	}
}
