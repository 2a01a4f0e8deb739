package deltanet

import (
	"math"

	"loupe/kernels"
)

// Seq is one value head's inputs and outputs over T tokens, as strided
// views into the caller's buffers: row t of Q is Q[t·LdQK:][:d_k].
type Seq struct {
	T       int
	Q, K    []float32 // [T, d_k] at stride LdQK: L2-normalised, Q also scaled by 1/√d_k
	LdQK    int
	V       []float32 // [T, d_v] at stride LdV
	LdV     int
	O       []float32 // [T, d_v] at stride LdO: the head's outputs, written
	LdO     int
	G, Beta []float32 // [T] at stride LdG: log decay g (α = e^g) and β
	LdG     int
}

// Recurrent runs Step for every token of s in order: the decode form, and
// the reference for Chunked. S is the head's state [d_k, d_v].
func Recurrent(s Seq, S []float32, dk, dv int, r []float32) {
	for t := range s.T {
		Step(s.O[t*s.LdO:][:dv], S, s.Q[t*s.LdQK:][:dk], s.K[t*s.LdQK:][:dk], s.V[t*s.LdV:][:dv],
			s.G[t*s.LdG], s.Beta[t*s.LdG], r)
	}
}

// ChunkSize is the tokens of one chunk of Chunked, as in the reference
// (torch_chunk_gated_delta_rule) and flash-linear-attention.
const ChunkSize = 64

// Workspace is the scratch of Chunked for one worker.
type Workspace struct {
	qc, kc []float32 // [C, d_k] the chunk's queries and keys, gathered
	kd     []float32 // [d_k, C] decayed keys, transposed
	kk     []float32 // [C, C] K·Kᵀ, then the masked, decayed Q·Kᵀ
	tm     []float32 // [C, C] T = (I − A)⁻¹
	w, u   []float32 // [C, d_v] corrected values W, then U = T·W
	qs     []float32 // [C, d_v] Sᵀq of the chunk's queries
	ds     []float32 // [d_k, d_v] the chunk's write to S
	gc     []float64 // [C] G_t = Σ_{s≤t} g_s within the chunk
}

// NewWorkspace sizes a workspace for heads of d_k × d_v.
func NewWorkspace(dk, dv int) *Workspace {
	C := ChunkSize
	return &Workspace{
		qc: make([]float32, C*dk), kc: make([]float32, C*dk), kd: make([]float32, dk*C),
		kk: make([]float32, C*C), tm: make([]float32, C*C),
		w: make([]float32, C*dv), u: make([]float32, C*dv), qs: make([]float32, C*dv),
		ds: make([]float32, dk*dv), gc: make([]float64, C),
	}
}

// Chunked computes exactly what Recurrent computes (up to rounding), a
// chunk of C tokens at a time with matrix products. Within a chunk that
// starts from state S₀, with γ_t = e^{G_t} the decay since the chunk began,
// the writes u_t = δ_t solve a unit lower-triangular system
//
//	u_t = β_t·(v_t − γ_t·S₀ᵀk_t) − Σ_{s<t} β_t·e^{G_t−G_s}·(k_t·k_s)·u_s
//
// i.e. U = T·W with A[t][s] = −β_t·e^{G_t−G_s}·(k_t·k_s) (s < t),
// T = (I − A)⁻¹ and W = diag(β)·(V − diag(γ)·K·S₀); then
//
//	O   = diag(γ)·Q·S₀ + ((Q·Kᵀ) ⊙ D)·U      D[t][s] = e^{G_t−G_s}, s ≤ t
//	S_C = γ_C·S₀ + (diag(e^{G_C−G_s})·K)ᵀ·U
//
// Everything but the n×n triangular inverse is a kernels product; the
// inverse is n³/6 multiply-adds per chunk against ≈ 5·n·d_k·d_v for the rest.
func Chunked(ws *Workspace, s Seq, S []float32, dk, dv int) {
	for t0 := 0; t0 < s.T; t0 += ChunkSize {
		chunk(ws, s, t0, min(s.T, t0+ChunkSize)-t0, S, dk, dv)
	}
}

// chunk runs tokens t0…t0+n−1 of s.
func chunk(ws *Workspace, s Seq, t0, n int, S []float32, dk, dv int) {
	qc, kc, gc := ws.qc[:n*dk], ws.kc[:n*dk], ws.gc[:n]
	var G float64
	for t := range n {
		copy(qc[t*dk:(t+1)*dk], s.Q[(t0+t)*s.LdQK:][:dk])
		copy(kc[t*dk:(t+1)*dk], s.K[(t0+t)*s.LdQK:][:dk])
		G += float64(s.G[(t0+t)*s.LdG])
		gc[t] = G
	}
	beta := func(t int) float32 { return s.Beta[(t0+t)*s.LdG] }
	decay := func(t, u int) float32 { return float32(math.Exp(gc[t] - gc[u])) } // e^{G_t−G_u}

	kernels.MatMulF32(ws.kk, n, kc, kc, n, dk) // kk[t][s] = k_t·k_s  [n, n]
	invertUnitLower(ws.tm, ws.kk, n, func(t, u int) float32 { return -beta(t) * decay(t, u) })

	w := ws.w[:n*dv]
	kernels.MatMulNN(w, dv, kc, dk, S, dv, n, dk, dv) // w[t] = S₀ᵀk_t  [n, d_v]
	for t := range n {
		b, gamma := beta(t), float32(math.Exp(gc[t]))
		v := s.V[(t0+t)*s.LdV:][:dv]
		row := w[t*dv : (t+1)*dv]
		for c := range row {
			row[c] = b * (v[c] - gamma*row[c]) // W = β·(V − γ·K·S₀)
		}
	}
	u := ws.u[:n*dv]
	kernels.MatMulNN(u, dv, ws.tm, n, w, dv, n, n, dv) // U = T·W  [n, d_v]

	chunkOutput(ws, s, t0, n, S, dk, dv, decay)
	chunkState(ws, n, S, dk, dv, decay)
}

// chunkOutput writes O = diag(γ)·Q·S₀ + ((Q·Kᵀ) ⊙ D)·U for the chunk.
func chunkOutput(ws *Workspace, s Seq, t0, n int, S []float32, dk, dv int, decay func(t, u int) float32) {
	qc, kc, kk, qs := ws.qc[:n*dk], ws.kc[:n*dk], ws.kk[:n*n], ws.qs[:n*dv]
	kernels.MatMulF32(kk, n, kc, qc, n, dk) // kk[t][u] = q_t·k_u  [n, n]
	for t := range n {
		for u := range n {
			if u <= t {
				kk[t*n+u] *= decay(t, u)
			} else {
				kk[t*n+u] = 0
			}
		}
	}
	o := s.O[t0*s.LdO:]
	kernels.MatMulNN(o, s.LdO, kk, n, ws.u, dv, n, n, dv) // ((Q·Kᵀ) ⊙ D)·U
	kernels.MatMulNN(qs, dv, qc, dk, S, dv, n, dk, dv)    // qs[t] = S₀ᵀq_t
	for t := range n {
		gamma := float32(math.Exp(ws.gc[t]))
		kernels.Axpy(o[t*s.LdO:][:dv], gamma, qs[t*dv:(t+1)*dv])
	}
}

// chunkState moves S to the end of the chunk: γ_n·S₀ + (diag(e^{G_n−G_s})·K)ᵀ·U.
func chunkState(ws *Workspace, n int, S []float32, dk, dv int, decay func(t, u int) float32) {
	kc, kd, ds := ws.kc[:n*dk], ws.kd[:dk*n], ws.ds[:dk*dv]
	for u := range n {
		f := decay(n-1, u)
		for i := range dk {
			kd[i*n+u] = f * kc[u*dk+i]
		}
	}
	kernels.MatMulNN(ds, dv, kd, n, ws.u, dv, dk, n, dv) // [d_k, d_v]
	gamma := float32(math.Exp(ws.gc[n-1]))
	for i, x := range ds {
		S[i] = gamma*S[i] + x
	}
}

// invertUnitLower sets tm [n, n] to T = (I − A)⁻¹ where A is strictly lower
// triangular with A[t][u] = coef(t, u)·kk[t][u] (u < t), by forward
// substitution on rows: T = I + A·T, so row t of T is Σ_{u<t} A[t][u]·T[u]
// plus the unit diagonal (T[u] is zero right of its diagonal).
func invertUnitLower(tm, kk []float32, n int, coef func(t, u int) float32) {
	for t := range n {
		row := tm[t*n : (t+1)*n]
		clear(row)
		for u := range t {
			if a := coef(t, u) * kk[t*n+u]; a != 0 {
				kernels.Axpy(row[:u+1], a, tm[u*n:u*n+u+1])
			}
		}
		row[t] = 1
	}
}

// Slice is tokens t0…t1−1 of s.
func (s Seq) Slice(t0, t1 int) Seq {
	s.Q, s.K = s.Q[t0*s.LdQK:], s.K[t0*s.LdQK:]
	s.V, s.O = s.V[t0*s.LdV:], s.O[t0*s.LdO:]
	s.G, s.Beta = s.G[t0*s.LdG:], s.Beta[t0*s.LdG:]
	s.T = t1 - t0
	return s
}
