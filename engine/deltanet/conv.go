package deltanet

import "loupe/kernels"

// CausalConv is the depthwise causal convolution of T pre-conv vectors m
// [T, C] followed by SiLU, docs/spec/qwen35.md §5.1 step 2, per channel c:
//
//	out[t][c] = silu( Σ_{j<K} w[c][j] · m[t−(K−1)+j][c] )
//
// where rows before the first come from state.Conv (the K−1 vectors of the
// previous call, oldest first; zeros at the start of a sequence). The last
// tap w[c][K−1] multiplies the current token. On return state.Conv holds
// the last K−1 vectors of [old window; m]. wT is conv1d.weight transposed
// to [K, C] (see TransposeConv), so the inner loop runs along channels.
// Only channels [c0, c1) are computed and shifted, so workers can split C.
func CausalConv(out, m []float32, T int, st *State, wT []float32, K, C, c0, c1 int) {
	win := st.Conv // [K−1, C]
	for t := range T {
		o := out[t*C+c0 : t*C+c1]
		clear(o)
		for j := range K {
			src := t - (K - 1) + j
			var row []float32
			if src < 0 {
				row = win[(K-1+src)*C+c0 : (K-1+src)*C+c1]
			} else {
				row = m[src*C+c0 : src*C+c1]
			}
			tap := wT[j*C+c0 : j*C+c1]
			for i, x := range row {
				o[i] += tap[i] * x
			}
		}
		siluInPlace(o)
	}
	shiftWindow(win, m, T, K, C, c0, c1)
}

// ones is the "up" operand that turns kernels.SiLUMul into SiLU.
var ones = func() (v [256]float32) {
	for i := range v {
		v[i] = 1
	}
	return v
}()

// siluInPlace is x = silu(x) with the kernels' vector exp (one scalar exp
// per channel was 4 % of a 256-token prefill of the 2B).
func siluInPlace(x []float32) {
	for len(x) > 0 {
		n := min(len(x), len(ones))
		kernels.SiLUMul(x[:n], x[:n], ones[:n])
		x = x[n:]
	}
}

// shiftWindow keeps the last K−1 rows of [win; m[:T]] in win, channels
// [c0, c1) only.
func shiftWindow(win, m []float32, T, K, C, c0, c1 int) {
	n := K - 1
	for r := range n { // new row r is old row r+T of the concatenation
		src := r + T
		if src < n {
			copy(win[r*C+c0:r*C+c1], win[src*C+c0:src*C+c1])
		} else {
			copy(win[r*C+c0:r*C+c1], m[(src-n)*C+c0:(src-n)*C+c1])
		}
	}
}

// TransposeConv turns conv1d.weight [C, 1, K] (flat [C·K]) into [K, C].
func TransposeConv(w []float32, K, C int) []float32 {
	wT := make([]float32, K*C)
	for c := range C {
		for j := range K {
			wT[j*C+c] = w[c*K+j]
		}
	}
	return wT
}
