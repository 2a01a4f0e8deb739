package deltanet

import (
	"math"

	"loupe/kernels"
)

// Step is one token of the gated delta rule for one value head, in place on
// its state S [d_k, d_v] (docs/spec/qwen35.md §5.1 step 7). q and k (length d_k) are
// already L2-normalised, q also scaled by 1/√d_k; v and o have length d_v;
// g is the log decay (α = e^g) and beta the write strength:
//
//	S ← α·S;  r = Sᵀk;  δ = β·(v − r);  S ← S + k·δᵀ;  o = Sᵀq
//
// It is computed in two passes over S instead of four: with S the old state,
// r = α·Sᵀk and o = α·Sᵀq + (k·q)·δ, so one pass reads Sᵀk and Sᵀq, and one
// writes α·S + k·δᵀ. r and scratch are d_v floats of scratch each.
func Step(o, S, q, k, v []float32, g, beta float32, r []float32) {
	dv := len(v)
	alpha := float32(math.Exp(float64(g)))
	clear(r[:dv])
	clear(o[:dv])
	for i, ki := range k { // r = Sᵀk, o = Sᵀq (old state)
		row := S[i*dv : (i+1)*dv]
		kernels.Axpy(r[:dv], ki, row)
		kernels.Axpy(o[:dv], q[i], row)
	}
	kq := kernels.Dot(k, q)
	for c := range dv { // δ = β·(v − α·r) into r; o = α·o + (k·q)·δ
		r[c] = beta * (v[c] - alpha*r[c])
		o[c] = alpha*o[c] + kq*r[c]
	}
	for i, ki := range k { // S = α·S + k·δᵀ
		row := S[i*dv : (i+1)*dv]
		for c := range row {
			row[c] *= alpha
		}
		kernels.Axpy(row, ki, r[:dv])
	}
}

// stepReference is Step exactly as the spec writes it: decay, read, delta,
// write, read with the query, four passes over S.
func stepReference(o, S, q, k, v []float32, g, beta float32) {
	dk, dv := len(k), len(v)
	alpha := float32(math.Exp(float64(g)))
	for i := range S[:dk*dv] {
		S[i] *= alpha
	}
	delta := make([]float32, dv)
	for c := range dv {
		var r float32
		for i := range dk {
			r += S[i*dv+c] * k[i]
		}
		delta[c] = beta * (v[c] - r)
	}
	for i := range dk {
		for c := range dv {
			S[i*dv+c] += k[i] * delta[c]
		}
	}
	for c := range dv {
		var s float32
		for i := range dk {
			s += S[i*dv+c] * q[i]
		}
		o[c] = s
	}
}
