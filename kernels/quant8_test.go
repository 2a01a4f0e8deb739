package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The integer decode path is checked twice against float64: against the
// oracle's weights times the rounded activations x̂ = dx·qx (only fp32
// summation error is allowed; Σ|terms| counts Q4_K's d·sc·q and dmin·m
// apart), and against the weights times x itself, within the rounding's
// bound Σ_c |W_c|·|x_c − x̂_c| ≤ Σ_c |W_c|·dx/2.

// quantXOracle rounds x as QuantizedX documents, in float64 where it can:
// m/127 and 127/m are correctly rounded quotients either way.
func quantXOracle(x []float32) (q []int8, d []float64) {
	q, d = make([]int8, len(x)), make([]float64, len(x)/32)
	for b := range d {
		m := float32(0x1p-100)
		for _, v := range x[b*32 : (b+1)*32] {
			m = max(m, float32(math.Abs(float64(v))))
		}
		d[b] = float64(float32(float64(m) / 127))
		id := float32(127 / float64(m))
		for j := b * 32; j < (b+1)*32; j++ {
			q[j] = int8(math.RoundToEven(float64(x[j] * id)))
		}
	}
	return q, d
}

// actRow draws x with the blocks a model's activations have and some they
// rarely have: all zeros, one outlier, tiny values.
func actRow(r *rand.Rand, cols, off int) []float32 {
	x := randF32(r, cols, off)
	for b := 0; b < cols/32; b++ {
		switch r.IntN(8) {
		case 0:
			clear(x[b*32 : (b+1)*32])
		case 1:
			x[b*32+r.IntN(32)] = 40
		case 2:
			for j := b * 32; j < (b+1)*32; j++ {
				x[j] *= 1e-30
			}
		}
	}
	return x
}

func TestQuantizeX(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(21, 22))
		var a QuantizedX
		for _, cols := range []int{32, 64, 96, 256, 1536, 8960} {
			for _, off := range offsets {
				x := actRow(r, cols, off)
				a.Quantize(x)
				q, d := quantXOracle(x)
				for c := range cols {
					b := c / 32
					if a.q[c] != q[c] {
						t.Fatalf("cols %d: q[%d] = %d, want %d (x %v, d %v)", cols, c, a.q[c], q[c], x[c], d[b])
					}
					if e := math.Abs(float64(x[c]) - d[b]*float64(q[c])); e > d[b]*0.5*(1+1e-5) {
						t.Fatalf("cols %d: |x − d·q| = %g above d/2 = %g at %d", cols, e, d[b]/2, c)
					}
					if float64(a.de[c/4]) != d[b] {
						t.Fatalf("cols %d: de[%d] = %v, want %v", cols, c/4, a.de[c/4], d[b])
					}
				}
				for g := range cols / 4 {
					want := -(int32(q[4*g]) + int32(q[4*g+1]) + int32(q[4*g+2]) + int32(q[4*g+3]))
					if a.n128[g] != 128*want || a.n32[g] != 32*want {
						t.Fatalf("cols %d: n128[%d], n32[%d] = %d, %d, want %d, %d", cols, g, g, a.n128[g], a.n32[g], 128*want, 32*want)
					}
				}
				for b := range cols / 32 {
					var sum int32
					for _, v := range q[b*32 : (b+1)*32] {
						sum += int32(v)
					}
					if float64(a.dc[b]) != d[b] || a.s[b] != float32(d[b])*float32(sum) {
						t.Fatalf("cols %d: dc[%d], s[%d] = %v, %v, want %v, %v", cols, b, b, a.dc[b], a.s[b], d[b], float32(d[b])*float32(sum))
					}
				}
			}
		}
	})
}

func TestMatVecQ8(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(23, 24))
		var a QuantizedX
		for _, q := range []Quant{Q8_0, Q4K, Q5K, Q6K} {
			for _, cols := range quantCols[q] {
				for _, rows := range []int{1, 3, 5, 9, 14} {
					for _, off := range offsets {
						w := randBlocks(r, q, rows, cols)
						x := actRow(r, cols, off)
						a.Quantize(x)
						out, check := guarded(t, rows, off)
						MatVecQ8(q, out, w, &a)
						check()
						checkQ8(t, fmt.Sprintf("%v %dx%d+%d", q, rows, cols, off), out, q, w, x)
					}
				}
			}
		}
	})
}

// checkQ8 compares out[r] with the oracle twice: on x̂ (the kernels'
// arithmetic, fp32 summation error only) and on x (the rounding's bound).
func checkQ8(t *testing.T, what string, out []float32, q Quant, w []byte, x []float32) {
	t.Helper()
	cols := len(x)
	rb := q.RowBytes(cols)
	qx, d := quantXOracle(x)
	for r := range out {
		wr, mag := oracleRow(q, w[r*rb:], cols)
		var onXhat, onX, abs, bound float64
		for c := range cols {
			xv, xh := float64(x[c]), d[c/32]*float64(qx[c])
			onXhat += wr[c] * xh
			onX += wr[c] * xv
			abs += mag[c] * math.Abs(xh)
			bound += math.Abs(wr[c]) * d[c/32] * 0.5 * (1 + 1e-5)
		}
		within(t, what+fmt.Sprintf(" out[%d] on x̂", r), out[r], onXhat, abs, sumTol(cols))
		if e := math.Abs(float64(out[r]) - onX); e > bound+sumTol(cols)*abs {
			t.Fatalf("%s out[%d] = %v, want %v within the rounding's bound %.3g (error %.3g)", what, r, out[r], onX, bound, e)
		}
	}
}

// TestQ8ToleranceCatchesWrongScale: the x̂ check fails a product whose
// first scale is changed, so it can tell a wrong kernel.
func TestQ8ToleranceCatchesWrongScale(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, q := range []Quant{Q4K, Q5K, Q6K, Q8_0} {
		cols := 1536
		w := randBlocks(r, q, 1, cols)
		x := randF32(r, cols, 0)
		var a QuantizedX
		a.Quantize(x)
		bad := append([]byte(nil), w...)
		switch q {
		case Q4K, Q5K:
			bad[4] ^= 0x20
		case Q6K:
			bad[192] ^= 0x20
		case Q8_0:
			bad[1] ^= 0x04
		}
		out := make([]float32, 1)
		MatVecQ8(q, out, bad, &a)
		qx, d := quantXOracle(x)
		wr, mag := oracleRow(q, w, cols)
		var want, abs float64
		for c := range cols {
			xh := d[c/32] * float64(qx[c])
			want += wr[c] * xh
			abs += mag[c] * math.Abs(xh)
		}
		if e := math.Abs(float64(out[0]) - want); e <= sumTol(cols)*abs {
			t.Errorf("%v: a changed scale is within tolerance (%g ≤ %g)", q, e, sumTol(cols)*abs)
		}
	}
}

// TestMatVecQ8BandsAgree: splitting rows between calls (workers) gives
// the same bits.
func TestMatVecQ8BandsAgree(t *testing.T) {
	forEachLevel(t, func(t *testing.T, l Level) {
		r := rand.New(rand.NewPCG(27, 28))
		for _, q := range []Quant{Q8_0, Q4K, Q5K, Q6K} {
			rows, cols := 37, 512
			w := randBlocks(r, q, rows, cols)
			var a QuantizedX
			a.Quantize(randF32(r, cols, 0))
			all, parts := make([]float32, rows), make([]float32, rows)
			MatVecQ8(q, all, w, &a)
			rb := q.RowBytes(cols)
			for lo := 0; lo < rows; lo += 5 {
				hi := min(rows, lo+5)
				MatVecQ8(q, parts[lo:hi], w[lo*rb:hi*rb], &a)
			}
			for i := range all {
				if math.Float32bits(all[i]) != math.Float32bits(parts[i]) {
					t.Fatalf("%v row %d: %v in one call, %v in bands", q, i, all[i], parts[i])
				}
			}
		}
	})
}

// TestIntegerQuantFollowsExact: Exact turns the integer path off for
// every format.
func TestIntegerQuantFollowsExact(t *testing.T) {
	prev := Exact()
	defer SetExact(prev)
	SetExact(true)
	for _, q := range Quants() {
		if IntegerQuant(q) {
			t.Errorf("%v: integer path under Exact", q)
		}
	}
	SetExact(false)
	if IntegerQuant(Q4_0) {
		t.Error("Q4_0 has no integer kernel")
	}
	if !IntegerQuant(Q8_0) || !IntegerQuant(Q4K) || !IntegerQuant(Q5K) || !IntegerQuant(Q6K) {
		t.Errorf("at %v without Exact, Q8_0/Q4_K/Q5_K/Q6_K should run integer", Active())
	}
}
