// Package deltanet holds the blocks of a Gated DeltaNet layer (docs/spec/qwen35.md §5),
// the recurrent "linear attention" of Qwen3.5: a causal depthwise
// convolution, L2-normalised queries and keys, a per-head decay α and write
// strength β, and the delta rule that updates a fixed-size state
//
//	S ← α·S;  δ = β·(v − Sᵀk);  S ← S + k·δᵀ;  o = Sᵀq      (S is d_k × d_v)
//
// for every token. Decode runs that recurrence (Step); prefill runs the same
// function chunk by chunk with matrix products (Chunked), the WY form of
// flash-linear-attention's chunk_gated_delta_rule. Each fast function has
// its readable reference beside it, and the tests check them against a
// float64 oracle and against each other.
//
// The package knows nothing of weights or threads: the engine calls it per
// value head, from its own workers.
package deltanet

import "math"

// Dims is the shape of one Gated DeltaNet layer (config.json names).
type Dims struct {
	NK   int // linear_num_key_heads: query/key heads
	NV   int // linear_num_value_heads: value heads (a multiple of NK)
	DK   int // linear_key_head_dim
	DV   int // linear_value_head_dim
	Conv int // linear_conv_kernel_dim K: taps of the causal convolution

	// Tiled: value heads are in llama.cpp's tiled order (its converter's
	// _reorder_v_heads, GGUF files): value head j reads key head j mod n_k.
	Tiled bool
}

// KeyDim is n_k·d_k, the width of q and of k.
func (d Dims) KeyDim() int { return d.NK * d.DK }

// ValueDim is n_v·d_v, the width of v, z and the head outputs.
func (d Dims) ValueDim() int { return d.NV * d.DV }

// ConvDim is the width of the convolved q‖k‖v vector: 2·n_k·d_k + n_v·d_v.
func (d Dims) ConvDim() int { return 2*d.KeyDim() + d.ValueDim() }

// KeyHead is the q/k head that value head j reads: in Hugging Face weights
// heads are grouped, value head j uses key head j / (n_v/n_k)
// (repeat_interleave in the reference); in GGUF files (Tiled) j mod n_k.
func (d Dims) KeyHead(j int) int {
	if d.Tiled {
		return j % d.NK
	}
	return j / (d.NV / d.NK)
}

// StateFloats is the size of one layer's state for one sequence: the
// recurrent S of every value head and the conv window of K−1 vectors.
func (d Dims) StateFloats() (recurrent, conv int) {
	return d.NV * d.DK * d.DV, (d.Conv - 1) * d.ConvDim()
}

// State is one layer's memory of one sequence. Its size does not depend on
// how many tokens have been read.
type State struct {
	S    []float32 // [n_v, d_k, d_v] S[j][i][v]: key index i, value index v
	Conv []float32 // [K−1, conv_dim] the last K−1 pre-conv vectors, oldest first
}

// NewState returns a zero state: the start of a sequence.
func NewState(d Dims) *State {
	r, c := d.StateFloats()
	return &State{S: make([]float32, r), Conv: make([]float32, c)}
}

// Reset clears the state for a new sequence.
func (s *State) Reset() {
	clear(s.S)
	clear(s.Conv)
}

// Head returns value head j's S [d_k, d_v].
func (s *State) Head(d Dims, j int) []float32 {
	n := d.DK * d.DV
	return s.S[j*n : (j+1)*n]
}

// Norm is the Frobenius norm of value head j's S: how much the head holds.
func (s *State) Norm(d Dims, j int) float32 {
	var sum float64
	for _, v := range s.Head(d, j) {
		sum += float64(v) * float64(v)
	}
	return float32(math.Sqrt(sum))
}
