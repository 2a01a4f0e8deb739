package engine

// Which products "auto" computes with bf16 activations. At a level that
// rounds activations (kernels.AVX512BF16: VDPBF16PS, bf16 × bf16 summed
// in fp32), `--kernels avx512bf16` rounds the input of every bf16 matrix
// in prefill; "auto" (kernels.Selective) rounds only the parts named in
// bf16Parts and keeps fp32 activations in the others, so that the top-10
// probabilities stay within 3e-3 of a float64 forward on the test models
// of every architecture (bf16parts_test.go measures each part alone and
// the policy as a whole). Decode (one token: matrix × vector) is fp32 at
// every level.

import (
	"fmt"
	"strings"

	"loupe/kernels"
)

// part is the role of a weight matrix in the model, the unit of the
// arithmetic policy.
type part uint8

const (
	partNone     part = iota // not tagged: follows the level
	partQ                    // self_attn.q_proj (Qwen3.5: query ‖ gate)
	partK                    // self_attn.k_proj
	partV                    // self_attn.v_proj
	partO                    // self_attn.o_proj
	partGate                 // mlp.gate_proj
	partUp                   // mlp.up_proj
	partDown                 // mlp.down_proj
	partDeltaQKV             // linear_attn.in_proj_qkv (Qwen3.5 DeltaNet)
	partDeltaZ               // linear_attn.in_proj_z
	partDeltaBA              // linear_attn.in_proj_b and in_proj_a
	partDeltaOut             // linear_attn.out_proj
	partRouter               // mlp.gate (MoE router)
	partExperts              // the routed and shared experts, the shared expert's gate
	partOutput               // lm_head, or the tied embedding
	numParts
)

var partNames = [numParts]string{"other", "q", "k", "v", "o", "gate", "up", "down",
	"in_proj_qkv", "in_proj_z", "in_proj_b/a", "out_proj", "router", "experts", "output"}

func (p part) String() string { return partNames[p] }

// partSet is a set of parts, one bit each.
type partSet uint32

func partsOf(ps ...part) partSet {
	var s partSet
	for _, p := range ps {
		s |= 1 << p
	}
	return s
}

func (s partSet) has(p part) bool { return s&(1<<p) != 0 }

// String lists the parts: "gate,up,down".
func (s partSet) String() string {
	var names []string
	for p := range numParts {
		if s.has(p) {
			names = append(names, p.String())
		}
	}
	return strings.Join(names, ",")
}

// mlpParts are the dense SwiGLU's three matrices: 88 % of a Qwen2.5-1.5B
// layer's prefill FLOPs.
var mlpParts = partsOf(partGate, partUp, partDown)

// bf16Parts is auto's policy: the parts whose prefill products take bf16
// activations under kernels.Selective, the others fp32. Alone, each dense
// part moves the top-10 beyond the bound on some architecture's test model
// (the largest shift: q 9.5e-3, k 1.1e-2, v 1.6e-2, o 9.3e-3, gate
// 6.8e-3, up 8.5e-3, down 4.5e-3, Qwen3.5's in_proj_z 1.1e-2 and out_proj
// 7.2e-3; the MLP's three together 1.5e-2); the MoE experts move it by
// 4.8e-4 at most, so they take bf16. So does nothing else: in_proj_b/a
// (2.0e-3) is too small to pay for its rounding. The trained demo model
// does not escape the bound either: bf16 in every product moves its
// top-10 by 3.3e-3 over every position of three sentences.
// LOUPE_PARTS_TABLE=1 go
// test ./engine -run BF16Parts -v prints the table.
var bf16Parts = partsOf(partExperts)

// roundsInput reports whether w's prefill product rounds its activations
// to bf16 at the active kernels (the kernels may still not round them: a
// level without bf16 products, or kernels.Exact).
//
// A quantised matrix whose decode multiplies in integers (w.integer: its
// activations rounded to 8 bits, under every arithmetic but exact)
// rounds its prefill activations too: to 8 bits as decode does where the
// level has integer tiles for its format (tiledAt), else to bf16, a finer
// rounding than decode's, where the level multiplies bf16
// (kernels.MatMulQBF16).
func (w *mat) roundsInput() bool { return w.roundsInputAt(kernels.Current()) }

// roundsInputAt is roundsInput under the kernel choice c.
func (w *mat) roundsInputAt(c kernels.Choice) bool {
	if w.q != nil {
		return w.integerAt(c) && !w.exactIn
	}
	return w.bf != nil && !w.exactIn && (!c.Selective() || bf16Parts.has(w.part))
}

// tagParts names the role of every matrix of w, for bf16Parts.
func tagParts(w *weights) {
	w.output.part = partOutput
	for i := range w.layers {
		lw := &w.layers[i]
		for _, x := range []struct {
			w *mat
			p part
		}{{&lw.wq, partQ}, {&lw.wk, partK}, {&lw.wv, partV}, {&lw.wo, partO},
			{&lw.wGate, partGate}, {&lw.wUp, partUp}, {&lw.wDown, partDown}} {
			x.w.part = x.p
		}
		if d := lw.linear; d != nil {
			d.wQKV.part, d.wZ.part, d.wB.part, d.wA.part, d.wOut.part = partDeltaQKV, partDeltaZ, partDeltaBA, partDeltaBA, partDeltaOut
		}
		if mw := lw.moe; mw != nil {
			mw.router.part, mw.sharedGate.part = partRouter, partExperts
			for e := range mw.experts {
				ew := &mw.experts[e]
				ew.gate.part, ew.up.part, ew.down.part = partExperts, partExperts, partExperts
			}
			if sh := mw.shared; sh != nil {
				sh.gate.part, sh.up.part, sh.down.part = partExperts, partExperts, partExperts
			}
		}
	}
}

// Arithmetic is ArithmeticOf the kernels in use.
func (m *Model) Arithmetic() string { return m.ArithmeticOf(kernels.Current()) }

// ArithmeticOf names the products a run of m computes under the kernel
// choice c: "bf16" when prefill rounds the activations of every bf16
// matrix to bf16 (kernels.Choice.Arithmetic), "bf16:" and the parts when
// it rounds those of some parts only (auto's policy: "bf16:experts"),
// "int8" when decode rounds activations to 8 bits for quantised matrices
// (kernels.Choice.IntegerQuant), "int8+prefill" when prefill rounds them
// too for the formats with integer tiles (mat.tiledAt: the K-quants on
// x86, Q8_0 where the CPU has VPDPBUSD), either bf16 one with "+int8" for both, else "fp32". It reads c,
// not the kernels in use: the window asks while a run goes on.
func (m *Model) ArithmeticOf(c kernels.Choice) string {
	var i8, i8p bool
	var rounds partSet
	for _, w := range m.allMatrices() {
		i8, i8p = i8 || w.integerAt(c), i8p || w.tiledAt(c)
		if w.roundsInputAt(c) {
			rounds |= partsOf(w.part)
		}
	}
	var bf string
	switch c.Arithmetic() {
	case "bf16":
		bf = "bf16"
	case "selective":
		bf = "bf16:" + rounds.String()
	}
	switch {
	case rounds == 0 || bf == "":
		bf = ""
	case i8:
		return bf + "+int8"
	default:
		return bf
	}
	switch {
	case i8p:
		return "int8+prefill"
	case i8:
		return "int8"
	}
	return "fp32"
}

// allMatrices lists every weight matrix of every layer, the routed
// experts included.
func (m *Model) allMatrices() []*mat {
	var out []*mat
	for l := range m.w.layers {
		lw := &m.w.layers[l]
		out = append(out, lw.matrices()...)
		if mw := lw.moe; mw != nil {
			for e := range mw.experts {
				ew := &mw.experts[e]
				out = append(out, &ew.gate, &ew.up, &ew.down)
			}
		}
	}
	return out
}

// useKernels switches the kernels to c for one run and returns what
// switches them back to the ones in use before (the zero Choice keeps
// them): a run computes with its own choice, and a later run that names
// none gets the process's, not the last run's.
func useKernels(c kernels.Choice) (restore func(), err error) {
	was := kernels.Current()
	if c.IsZero() || c == was {
		return func() {}, nil
	}
	if err := kernels.Use(c); err != nil {
		return nil, fmt.Errorf("%w: kernels %s: %w", ErrSettings, c, err)
	}
	return func() { kernels.Use(was) }, nil
}
