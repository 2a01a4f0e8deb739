package trace

// DeltaNet is what one Gated DeltaNet layer (Qwen3.5's recurrent "linear
// attention") did over a run. Such a layer has no attention map: each token
// is folded into a fixed-size state S (d_k × d_v per value head) by
// S ← α·S + k·(β·(v − Sᵀk))ᵀ, so what there is to see is, per head and
// token, how much of the old state survives (α, the decay) and how hard the
// token writes (β), and how large the state is over the sequence.
type DeltaNet struct {
	Layer int         `json:"layer"`
	Alpha [][]float32 `json:"alpha"` // [pos][n_v] decay α ∈ (0, 1) of every token
	Beta  [][]float32 `json:"beta"`  // [pos][n_v] write strength β ∈ (0, 1)
	// StateNorm[i][j] is the Frobenius norm of value head j's state after
	// position StatePos[i]: every decoded token, and the end of each 64-token
	// chunk of the prompt (prefill computes the state a chunk at a time).
	StatePos  []int       `json:"state_pos"`
	StateNorm [][]float32 `json:"state_norm"`
}
