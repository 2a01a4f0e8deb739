package deltanet

import (
	"math"

	"loupe/kernels"
)

// Gates computes one token's per-head gates from the projections b and a
// (length n_v each, docs/spec/qwen35.md §5.1 step 4), in fp32:
//
//	β_j = sigmoid(b_j)                                  write strength
//	g_j = −exp(A_log_j) · softplus(a_j + dt_bias_j)     log of the decay
//	α_j = exp(g_j) ∈ (0, 1]                             decay
//
// g (not α) is what the chunked form needs: decays multiply, so logs add.
func Gates(g, beta, a, b, aLog, dtBias []float32) {
	for j := range g {
		beta[j] = sigmoid(b[j])
		g[j] = -float32(math.Exp(float64(aLog[j]))) * softplus(a[j]+dtBias[j])
	}
}

func sigmoid(x float32) float32 { return float32(1 / (1 + math.Exp(-float64(x)))) }

// softplus is ln(1 + eˣ), returning x itself above 20 as PyTorch does.
func softplus(x float32) float32 {
	if x > 20 {
		return x
	}
	return float32(math.Log1p(math.Exp(float64(x))))
}

// SiLU is x·sigmoid(x).
func SiLU(x float32) float32 { return x * sigmoid(x) }

// L2Norm scales x to unit length in place: x / sqrt(Σx² + 1e-6), times
// scale (1/√d_k for queries, 1 for keys). The sum is kept in float64.
func L2Norm(x []float32, scale float32) {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	f := float32(1/math.Sqrt(ss+1e-6)) * scale
	for i := range x {
		x[i] *= f
	}
}

// GatedRMSNorm is Qwen3_5RMSNormGated on one value head (length d_v):
// out = w ⊙ (x / sqrt(mean(x²) + eps)) ⊙ silu(z). The weight is used as
// stored (initialised to ones, not 1 + w). out may be x, not z.
func GatedRMSNorm(out, x, z, w []float32, eps float32) {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	inv := float32(1 / math.Sqrt(ss/float64(len(x))+float64(eps)))
	for i, v := range x {
		out[i] = w[i] * (v * inv)
	}
	kernels.SiLUMul(out[:len(x)], z[:len(x)], out[:len(x)]) // silu(z) ⊙ out, vector exp
}
