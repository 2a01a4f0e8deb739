#!/usr/bin/env python3
"""Writes the arm64 NEON kernels of package kernels.

    python3 tools/neonasm/gen.py gemv  > kernels/gemv_arm64.s
    python3 tools/neonasm/gen.py quant > kernels/quant8_arm64.s
    python3 tools/neonasm/gen.py norm  > kernels/norm_arm64.s

Go's arm64 assembler lacks most floating point vector forms (FADD, FADDP,
FMUL, SCVTF, FCVTL) and the FEAT_DotProd SDOT; they are emitted as WORD
with the instruction in the comment, encoded by the functions below from
the Arm ARM's tables. The readable references are kernels/gemv_generic.go
and kernels/quant8.go.
"""

import re
import sys

out = []


# The general registers of each kernel get names (#define before its TEXT,
# #undef after it); ins() writes the names. Vector registers keep their
# numbers: the WORD encodings need them, and each kernel's comment maps
# them.
GPR = {
    "gemv4": "OUT W0 W1 W2 W3 XP N LDW",
    "widenF16": "DST SRC N",
    "gemm4x4": "OUT LDO W0 W1 W2 W3 X0 X1 X2 X3 N LDW LDX",
    "gemmNN": "OUT LDO X0 X1 X2 X3 BP LDB K LDX",
    "fmaPeak": "ITERS",
    "dot": "AP BP N",
    "axpy": "YP XP N",
    "add": "YP XP N",
    "gemvQ8_0": "OUT ROWS ROW RB XQ DX NB BLK XQP DXP LEFT DH",
    "gemmQ8MMLA": "OUT W0 W1 X0 X1 WS XS NB",
    "gemvQ": "OUT ROWS ROW RB XQ DX AUX BLK XQP DXP AUXP LEFT PTR SC0 SC1 SC2 SC3 SC4 - NSB",
    "gemvQ6K": "OUT ROWS ROW RB XQ DX AUX BLK XQP DXP AUXP LEFT PTR DH - - - - - NSB",
    "max": "XP - N",
    "expSubSum": "XP - N - - - - - - TMP",
    "scale": "XP - N",
    "siluMul": "OUT GATE N UP - - - - - TMP",
    "sumSquares": "XP - N",
    "rmsScale": "OUT XP N WP",
    "quantizeX": "XP QP DCP DEP N128P N32P SUMP LEFT - TMP",
    "dequant": "- YP - - - - - BLK - - - LEFT PTR SC0 SC1 SC2 SC3 SC4",
    "dequantQ8_0": "- YP - - - - - BLK - - - LEFT - DH",
    "dequantQ6K": "- YP - - - - - BLK - - - LEFT PTR DH",
}
alias = {}


def names_for(fn):
    for key in sorted(GPR, key=len, reverse=True):
        if fn.startswith(key):
            return {"R%d" % i: n for i, n in enumerate(GPR[key].split()) if n != "-"}
    return {}


def undef():
    for n in alias.values():
        out.append("#undef %s" % n)
    if alias:
        out.append("")
    alias.clear()


def e(s=""):
    m = re.match(r"TEXT ·(\w+)\(", s)
    if m:
        at = len(out)
        while at > 0 and out[at - 1].startswith("//"):
            at -= 1  # the defines go above the function's comment
        head, out[at:] = out[at:], []
        undef()
        alias.update(names_for(m.group(1)))
        for r, n in sorted(alias.items(), key=lambda kv: int(kv[0][1:])):
            out.append("#define %s %s" % (n, r))
        out.append("")
        out.extend(head)
    out.append(s)


def ins(op, *args, c=""):
    args = [re.sub(r"\bR\d+\b", lambda m: alias.get(m.group(0), m.group(0)), a) for a in args]
    line = "\t%-8s %s" % (op, ", ".join(args))
    if c:
        line = "%-44s // %s" % (line, c)
    e(line)


def word(enc, text):
    ins("WORD", "$0x%08x" % enc, c=text)


def _rrr(base, d, n, m):
    return base | m << 16 | n << 5 | d


def fadd4s(d, n, m):  # FADD Vd.4S, Vn.4S, Vm.4S
    word(_rrr(0x4E20D400, d, n, m), "FADD V%d.4S, V%d.4S, V%d.4S" % (d, n, m))


def faddp4s(d, n, m):  # FADDP Vd.4S, Vn.4S, Vm.4S: [n0+n1, n2+n3, m0+m1, m2+m3]
    word(_rrr(0x6E20D400, d, n, m), "FADDP V%d.4S, V%d.4S, V%d.4S" % (d, n, m))


def fmul4s(d, n, m):  # FMUL Vd.4S, Vn.4S, Vm.4S
    word(_rrr(0x6E20DC00, d, n, m), "FMUL V%d.4S, V%d.4S, V%d.4S" % (d, n, m))


def scvtf4s(d, n):  # SCVTF Vd.4S, Vn.4S
    word(_rrr(0x4E21D800, d, n, 0), "SCVTF V%d.4S, V%d.4S" % (d, n))


def fcvtl4s(d, n, upper=False):  # FCVTL{2} Vd.4S, Vn.{4H,8H}: f16 → f32, exact
    word(_rrr(0x4E217800 if upper else 0x0E217800, d, n, 0),
         "FCVTL%s V%d.4S, V%d.%s" % ("2" if upper else "", d, n, "8H" if upper else "4H"))


# EMU is None while generating the FEAT_DotProd kernels; for the NEON-only
# ones it is a free vector register, and sdot emits SMULL, SADALP, SMULL2,
# SADALP through it: the same Σ over the 16 products, spread over the four
# lanes differently (lane i gets products 2i, 2i+1, 8+2i, 9+2i instead of
# 4i … 4i+3), which no kernel sees: each sums all four lanes of an
# accumulator (Q6_K's n32 start values included).
EMU = None


def sdot(d, n, m):  # SDOT Vd.4S, Vn.16B, Vm.16B: d[i] += Σ_k n[4i+k]·m[4i+k]
    if EMU is None:
        word(_rrr(0x4E809400, d, n, m), "SDOT V%d.4S, V%d.16B, V%d.16B" % (d, n, m))
        return
    t = EMU
    word(_rrr(0x0E20C000, t, n, m), "SMULL V%d.8H, V%d.8B, V%d.8B" % (t, n, m))
    word(_rrr(0x4E606800, d, t, 0), "SADALP V%d.4S, V%d.8H" % (d, t))
    word(_rrr(0x4E20C000, t, n, m), "SMULL2 V%d.8H, V%d.16B, V%d.16B" % (t, n, m))
    word(_rrr(0x4E606800, d, t, 0), "SADALP V%d.4S, V%d.8H" % (d, t))


def suffix():
    return "SDOT" if EMU is None else "NEON"


def fsub4s(d, n, m):  # FSUB Vd.4S, Vn.4S, Vm.4S
    word(_rrr(0x4EA0D400, d, n, m), "FSUB V%d.4S, V%d.4S, V%d.4S" % (d, n, m))


def sxtl4s(d, n, upper=False):  # SSHLL{2} Vd.4S, Vn.{4H,8H}, #0: int16 → int32
    word(_rrr(0x4F10A400 if upper else 0x0F10A400, d, n, 0),
         "SSHLL%s V%d.4S, V%d.%s, #0" % ("2" if upper else "", d, n, "8H" if upper else "4H"))


def sxtl8h(d, n):  # SSHLL Vd.8H, Vn.8B, #0: int8 → int16
    word(_rrr(0x0F08A400, d, n, 0), "SSHLL V%d.8H, V%d.8B, #0" % (d, n))


def ucvtf4s(d, n):  # UCVTF Vd.4S, Vn.4S
    word(_rrr(0x6E21D800, d, n, 0), "UCVTF V%d.4S, V%d.4S" % (d, n))


def fneg4s(d, n):  # FNEG Vd.4S, Vn.4S
    word(_rrr(0x6EA0F800, d, n, 0), "FNEG V%d.4S, V%d.4S" % (d, n))


def sxtl8h2(d, n):  # SSHLL2 Vd.8H, Vn.16B, #0
    word(_rrr(0x4F08A400, d, n, 0), "SSHLL2 V%d.8H, V%d.16B, #0" % (d, n))


def fmax4s(d, n, m):  # FMAX Vd.4S, Vn.4S, Vm.4S (NaN wins)
    word(_rrr(0x4E20F400, d, n, m), "FMAX V%d.4S, V%d.4S, V%d.4S" % (d, n, m))


def fmin4s(d, n, m):  # FMIN Vd.4S, Vn.4S, Vm.4S (NaN wins)
    word(_rrr(0x4EA0F400, d, n, m), "FMIN V%d.4S, V%d.4S, V%d.4S" % (d, n, m))


def fdiv4s(d, n, m):  # FDIV Vd.4S, Vn.4S, Vm.4S
    word(_rrr(0x6E20FC00, d, n, m), "FDIV V%d.4S, V%d.4S, V%d.4S" % (d, n, m))


def fcvtl2d(d, n, upper=False):  # FCVTL{2} Vd.2D, Vn.{2S,4S}: f32 → f64, exact
    word(_rrr(0x4E617800 if upper else 0x0E617800, d, n, 0),
         "FCVTL%s V%d.2D, V%d.%s" % ("2" if upper else "", d, n, "4S" if upper else "2S"))


def fadd2d(d, n, m):  # FADD Vd.2D, Vn.2D, Vm.2D
    word(_rrr(0x4E60D400, d, n, m), "FADD V%d.2D, V%d.2D, V%d.2D" % (d, n, m))


def faddp2d(d, n, m):  # FADDP Vd.2D, Vn.2D, Vm.2D
    word(_rrr(0x6E60D400, d, n, m), "FADDP V%d.2D, V%d.2D, V%d.2D" % (d, n, m))


def hsum4(s, t0, t1):
    """V<t0> = [ΣV<s0>, ΣV<s1>, ΣV<s2>, ΣV<s3>] for the four 4-lane sums s."""
    faddp4s(t0, s[0], s[1])
    faddp4s(t1, s[2], s[3])
    faddp4s(t0, t0, t1)


def zip2d(d, n, m, hi=False):  # ZIP{1,2} Vd.2D, Vn.2D, Vm.2D: [n.lo, m.lo] / [n.hi, m.hi]
    word(_rrr(0x4EC07800 if hi else 0x4EC03800, d, n, m),
         "ZIP%d V%d.2D, V%d.2D, V%d.2D" % (2 if hi else 1, d, n, m))


def bfmmla(d, n, m):  # BFMMLA Vd.4S, Vn.8H, Vm.8H: d[2i+j] += Σ_k n[4i+k]·m[4j+k] (FEAT_BF16)
    word(_rrr(0x6E40EC00, d, n, m), "BFMMLA V%d.4S, V%d.8H, V%d.8H" % (d, n, m))


def smmla(d, n, m):  # SMMLA Vd.4S, Vn.16B, Vm.16B: d[2i+j] += Σ_k n[8i+k]·m[8j+k] (FEAT_I8MM)
    word(_rrr(0x4E80A400, d, n, m), "SMMLA V%d.4S, V%d.16B, V%d.16B" % (d, n, m))


def header():
    e("//go:build !purego")
    e()
    e("// Code generated by tools/neonasm/gen.py; DO NOT EDIT.")
    e()
    e('#include "textflag.h"')
    e()


# ---------------------------------------------------------------- GEMV

GEMV_DOC = """// Four-row matrix-vector kernels: out[i] = Σ_{c<n} w[i·ldw+c]·x[c], i < 4,
// n a multiple of 16 (0 allowed), ldw in elements (0 allowed: one row four
// times, the Go driver's way to finish a matrix's last rows).
//
// A step reads 16 columns: 64 bytes of x (one VLD1 of four registers, used
// by all four rows) and 64 (f32) or 32 (bf16) bytes of each row, so the
// loop keeps four weight streams in flight. Each row sums into two
// accumulators (its even and odd registers), eight FMLA chains in all: with
// FMLA's latency of 3–4 cycles that allows two FMLA a cycle, more than the
// weight stream needs (16 bytes a FMLA for f32, 8 for bf16).
//
// Registers: R0 out, R1–R4 the four row pointers, R5 x, R6 n;
// V0–V3 x, V4–V15 weights, V16–V23 accumulators (row i: V16+2i, V17+2i),
// V24–V26 reduction, V31 zero (bf16 widening)."""


def gemv_prologue(name, esize, etype=None):
    e("// func %s(out *float32, w *%s, ldw int, x *float32, n int)" %
      (name, etype or ("float32" if esize == 4 else "BF16")))
    e("TEXT ·%s(SB), NOSPLIT, $0-40" % name)
    ins("MOVD", "out+0(FP)", "R0")
    ins("MOVD", "w+8(FP)", "R1")
    ins("MOVD", "ldw+16(FP)", "R7")
    ins("MOVD", "x+24(FP)", "R5")
    ins("MOVD", "n+32(FP)", "R6")
    ins("LSL", "$%d, R7" % (esize // 2), c="ldw in bytes")
    ins("ADD", "R7, R1, R2")
    ins("ADD", "R7, R2, R3")
    ins("ADD", "R7, R3, R4")
    for v in range(16, 24):
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (v, v, v))
    ins("CBZ", "R6, done")


def gemv_epilogue():
    e("done:")
    for i in range(4):
        fadd4s(16 + 2 * i, 16 + 2 * i, 17 + 2 * i)
    hsum4([16, 18, 20, 22], 24, 25)
    ins("VST1", "[V24.S4], (R0)", c="out[0:4]")
    ins("RET")
    e()


def gemv_f32():
    name = "gemv4F32NEON"
    gemv_prologue(name, 4)
    e("loop:")
    ins("VLD1.P", "64(R5), [V0.S4, V1.S4, V2.S4, V3.S4]", c="x[c:c+16]")
    for i in range(4):
        w = [4, 8, 12, 24][i]  # each row its own registers: no load waits on an FMLA
        ins("VLD1.P", "64(R%d), [V%d.S4, V%d.S4, V%d.S4, V%d.S4]" % (1 + i, w, w + 1, w + 2, w + 3),
            c="row %d, f32 w[c:c+16]" % i)
        for k in range(4):
            ins("VFMLA", "V%d.S4, V%d.S4, V%d.S4" % (k, w + k, 16 + 2 * i + k % 2))
    ins("SUBS", "$16, R6")
    ins("BNE", "loop")
    gemv_epilogue()


def gemv_bf16():
    name = "gemv4BF16NEON"
    gemv_prologue(name, 2)
    ins("VEOR", "V31.B16, V31.B16, V31.B16", c="zero: the low half of each widened weight")
    e("loop:")
    ins("VLD1.P", "64(R5), [V0.S4, V1.S4, V2.S4, V3.S4]", c="x[c:c+16]")
    for i in range(4):
        b = 4 if i % 2 == 0 else 10
        ins("VLD1.P", "32(R%d), [V%d.H8, V%d.H8]" % (1 + i, b, b + 1), c="row %d, bf16 w[c:c+16]" % i)
        # ZIP1/ZIP2 with zero first: halfword lanes [0, w0, 0, w1, …], i.e.
        # the 32-bit lanes w<<16: bf16 widened to f32 exactly.
        ins("VZIP1", "V%d.H8, V31.H8, V%d.H8" % (b, b + 2), c="w[c:c+4] as f32")
        ins("VZIP2", "V%d.H8, V31.H8, V%d.H8" % (b, b + 3), c="w[c+4:c+8]")
        ins("VZIP1", "V%d.H8, V31.H8, V%d.H8" % (b + 1, b + 4), c="w[c+8:c+12]")
        ins("VZIP2", "V%d.H8, V31.H8, V%d.H8" % (b + 1, b + 5), c="w[c+12:c+16]")
        for k in range(4):
            ins("VFMLA", "V%d.S4, V%d.S4, V%d.S4" % (k, b + 2 + k, 16 + 2 * i + k % 2))
    ins("SUBS", "$16, R6")
    ins("BNE", "loop")
    gemv_epilogue()


def gemv_f16():
    """gemv4BF16NEON for f16 weights: FCVTL and FCVTL2 widen the low and
    high four halves of each register exactly, in place of the zips."""
    name = "gemv4F16NEON"
    gemv_prologue(name, 2, "F16")
    e("loop:")
    ins("VLD1.P", "64(R5), [V0.S4, V1.S4, V2.S4, V3.S4]", c="x[c:c+16]")
    for i in range(4):
        b = 4 if i % 2 == 0 else 10
        ins("VLD1.P", "32(R%d), [V%d.H8, V%d.H8]" % (1 + i, b, b + 1), c="row %d, f16 w[c:c+16]" % i)
        fcvtl4s(b + 2, b)
        fcvtl4s(b + 3, b, upper=True)
        fcvtl4s(b + 4, b + 1)
        fcvtl4s(b + 5, b + 1, upper=True)
        for k in range(4):
            ins("VFMLA", "V%d.S4, V%d.S4, V%d.S4" % (k, b + 2 + k, 16 + 2 * i + k % 2))
    ins("SUBS", "$16, R6")
    ins("BNE", "loop")
    gemv_epilogue()


def widen_f16():
    """dst[i] = src[i] widened exactly for i < n, n a multiple of 16 (0
    allowed): 32 bytes of halves in, 64 of floats out a step."""
    name = "widenF16NEON"
    e("// func %s(dst *float32, src *F16, n int)" % name)
    e("TEXT ·%s(SB), NOSPLIT, $0-24" % name)
    ins("MOVD", "dst+0(FP)", "R0")
    ins("MOVD", "src+8(FP)", "R1")
    ins("MOVD", "n+16(FP)", "R2")
    ins("CBZ", "R2, widendone")
    e("widenloop:")
    ins("VLD1.P", "32(R1), [V0.H8, V1.H8]", c="src[i:i+16]")
    fcvtl4s(4, 0)
    fcvtl4s(5, 0, upper=True)
    fcvtl4s(6, 1)
    fcvtl4s(7, 1, upper=True)
    ins("VST1.P", "[V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)", c="dst[i:i+16]")
    ins("SUBS", "$16, R2")
    ins("BNE", "widenloop")
    e("widendone:")
    ins("RET")
    e()


# ---------------------------------------------------------------- GEMM

GEMM_DOC = """// Prefill tiles: out[t·ldo+i] = Σ_{c<n} w[i·ldw+c]·x[t·ldx+c] for rows
// i < 4 and tokens t < 4, n a positive multiple of 4, ldo, ldw and ldx in
// elements (ldw or ldx 0: one row or token four times, the Go driver's way
// to finish the edges with the same arithmetic). Pseudo-Go of a step:
//
//	for t := range 4 { for i := range 4 { acc[t][i] += w[i][c:c+4] * x[t][c:c+4] } }
//
// A step loads 4 + 4 registers and does 16 FMLA, one chain per output:
// two FMLA per load, which four FMLA pipes and three load ports (Apple
// M) or two and two (Cortex-A76) keep busy, against one per load in the
// four-row matrix-vector kernel. Registers: R0 out, R1 ldo in bytes, R2–R5
// rows, R6–R9 tokens, R10 n; V0–V3 weights, V4–V7 x, V8–V11 bf16 weights,
// V12 zero, V16–V31 acc[t][i] = V(16+4t+i)."""


def gemm4x4(bf16):
    name = "gemm4x4BF16NEON" if bf16 else "gemm4x4F32NEON"
    e("// func %s(out *float32, ldo int, w *%s, ldw int, x *float32, ldx int, n int)" %
      (name, "BF16" if bf16 else "float32"))
    e("TEXT ·%s(SB), NOSPLIT, $0-56" % name)
    ins("MOVD", "out+0(FP), R0")
    ins("MOVD", "ldo+8(FP), R1")
    ins("MOVD", "w+16(FP), R2")
    ins("MOVD", "ldw+24(FP), R11")
    ins("MOVD", "x+32(FP), R6")
    ins("MOVD", "ldx+40(FP), R12")
    ins("MOVD", "n+48(FP), R10")
    ins("LSL", "$2, R1", c="ldo in bytes")
    ins("LSL", "$%d, R11" % (1 if bf16 else 2), c="ldw in bytes")
    ins("LSL", "$2, R12", c="ldx in bytes")
    ins("ADD", "R11, R2, R3")
    ins("ADD", "R11, R3, R4")
    ins("ADD", "R11, R4, R5")
    ins("ADD", "R12, R6, R7")
    ins("ADD", "R12, R7, R8")
    ins("ADD", "R12, R8, R9")
    for v in range(16, 32):
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (v, v, v))
    if bf16:
        ins("VEOR", "V12.B16, V12.B16, V12.B16")
    e("loop:")
    for i in range(4):
        if bf16:
            ins("VLD1.P", "8(R%d), [V%d.H4]" % (2 + i, 8 + i), c="row %d: 4 bf16" % i)
            ins("VZIP1", "V%d.H8, V12.H8, V%d.H8" % (8 + i, i), c="widened: w<<16")
        else:
            ins("VLD1.P", "16(R%d), [V%d.S4]" % (2 + i, i), c="row %d: 4 f32" % i)
    for t in range(4):
        ins("VLD1.P", "16(R%d), [V%d.S4]" % (6 + t, 4 + t), c="token %d" % t)
    for t in range(4):
        for i in range(4):
            ins("VFMLA", "V%d.S4, V%d.S4, V%d.S4" % (i, 4 + t, 16 + 4 * t + i))
    ins("SUBS", "$4, R10")
    ins("BNE", "loop")
    for t in range(4):
        a = 16 + 4 * t
        hsum4([a, a + 1, a + 2, a + 3], 0, 1)
        ins("VST1", "[V0.S4], (R0)", c="out[t·ldo : t·ldo+4], t = %d" % t)
        if t < 3:
            ins("ADD", "R1, R0, R0")
    ins("RET")
    e()


MMLA_DOC = """// gemm4x4BF16MMLA (FEAT_BF16): the 4 × 4 tile of prefill with bf16
// weights and activations rounded to bf16, in BFMMLA. One BFMMLA
// multiplies a 2 × 4 block of two rows by the 4 × 2 block of two tokens
// and adds the 2 × 2 products to four fp32 lanes: 16 multiply-adds (32
// operations), against 4 for an FMLA. Pseudo-Go of a step of 8 columns:
//
//	w0 … w3 := w[i][c : c+8], x0 … x3 := xb[t][c : c+8]    // 8 loads of 16 bytes
//	rp[p] = [w(2p)[c:c+4] ‖ w(2p+1)[c:c+4]], and c+4:c+8    // ZIP1/ZIP2 .2D
//	tp[q] likewise from tokens 2q, 2q+1
//	acc[p][q] += rp[p] · tp[q]ᵀ                             // 8 BFMMLA
//
// 8 loads and 8 ZIP for 8 BFMMLA: 128 multiply-adds per 128 bytes of
// weights and activations. out gets the four accumulators as they lie:
// out[4(2p+q) + 2i + j] is row 2p+i, token 2q+j (mmlaAt in Go). k is a
// positive multiple of 8, strides in elements (0: one row or token four
// times). Registers: R2–R5 rows, R6–R9 tokens, R10 k; V0–V3 rows, V4–V7
// tokens, V8–V11 row pairs, V12–V15 token pairs, V16–V19 acc[p][q] =
// V(16+2p+q) for columns c … c+3 of each step, V20–V23 for c+4 … c+7
// (two chains each, summed at the end)."""


MMLA_PEAK_DOC = """// bfmmlaPeakNEON: iters > 0 rounds of 16 independent BFMMLA (16
// multiply-adds each), all in registers: the compute peak of neonbf16's
// prefill, as fmaPeakNEON is of the fp32 products."""


def bfmmla_peak():
    e(MMLA_PEAK_DOC)
    e("TEXT ·bfmmlaPeakNEON(SB), NOSPLIT, $0-8")
    ins("MOVD", "iters+0(FP), R0")
    ins("VMOVI", "$0x3f, V30.B16", c="bf16 0x3f3f = 0.746 in every lane")
    ins("VMOVI", "$0x3f, V31.B16")
    for v in range(16):
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (v, v, v))
    e("bfpeak:")
    for v in range(16):
        bfmmla(v, 30, 31)
    ins("SUBS", "$1, R0")
    ins("BNE", "bfpeak")
    ins("RET")
    e()


def gemm4x4_mmla():
    name = "gemm4x4BF16MMLA"
    e("// func %s(out *float32, w *BF16, ldw int, xb *BF16, ldx int, k int)" % name)
    e("TEXT ·%s(SB), NOSPLIT, $0-48" % name)
    ins("MOVD", "out+0(FP), R0")
    ins("MOVD", "w+8(FP), R2")
    ins("MOVD", "ldw+16(FP), R11")
    ins("MOVD", "xb+24(FP), R6")
    ins("MOVD", "ldx+32(FP), R12")
    ins("MOVD", "k+40(FP), R10")
    ins("LSL", "$1, R11", c="ldw in bytes")
    ins("LSL", "$1, R12", c="ldx in bytes")
    ins("ADD", "R11, R2, R3")
    ins("ADD", "R11, R3, R4")
    ins("ADD", "R11, R4, R5")
    ins("ADD", "R12, R6, R7")
    ins("ADD", "R12, R7, R8")
    ins("ADD", "R12, R8, R9")
    for v in range(16, 24):
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (v, v, v))
    e("mmla:")
    for i in range(4):
        ins("VLD1.P", "16(R%d), [V%d.H8]" % (2 + i, i), c="row %d: 8 bf16" % i)
    for t in range(4):
        ins("VLD1.P", "16(R%d), [V%d.H8]" % (6 + t, 4 + t), c="token %d: 8 bf16" % t)
    for p in range(2):
        zip2d(8 + 2 * p, 2 * p, 2 * p + 1)
        zip2d(9 + 2 * p, 2 * p, 2 * p + 1, hi=True)
        zip2d(12 + 2 * p, 4 + 2 * p, 5 + 2 * p)
        zip2d(13 + 2 * p, 4 + 2 * p, 5 + 2 * p, hi=True)
    for half in range(2):
        for p in range(2):
            for q in range(2):
                bfmmla(16 + 4 * half + 2 * p + q, 8 + 2 * p + half, 12 + 2 * q + half)
    ins("SUBS", "$8, R10")
    ins("BNE", "mmla")
    for a in range(16, 20):
        fadd4s(a, a, a + 4)
    ins("VST1", "[V16.S4, V17.S4, V18.S4, V19.S4], (R0)", c="out[0:16]")
    ins("RET")
    e()


Q8MM_DOC = """// gemmQ8MMLA (FEAT_I8MM): the 2 × 2 tile of Q8_0 rows w0, w1 by two
// tokens' int8 activations x0, x1 (QuantizedX.q) over nb blocks of 32 (a
// positive multiple of 4), with decode's arithmetic (gemvQ8_0SDOT): for
// each block b, the exact integer sum Σ_c q_i·qx_j, converted, times the
// fp32 product d_i·dx_j (ws: [d0 d0 d1 d1] per block, xs: [dx0 dx1 dx0
// dx1]), added by one fused multiply-add into accumulator b mod 4:
// out[4k + 2i+j] is that accumulator k of row i, token j. Go sums the four
// as decode does, so each output equals decode's bit for bit.
//
// One SMMLA multiplies a 2 × 8 block of the two rows by the 8 × 2 block
// of the two tokens into a 2 × 2 int32 tile: 32 products, against 16 for
// an SDOT. A block: 4 loads of 32 bytes (2 rows, 2 tokens), 8 ZIP (two
// rows' or tokens' 8 bytes in one register), 4 SMMLA in two chains, ADD,
// SCVTF, 2 scale loads, FMUL, FMLA. Lanes never mix: out[4k + 2i+j]
// depends on row i and token j only, so a row or token paired with itself
// gives the same value. Registers: R1, R2 rows (past the f16 scale), R3,
// R4 tokens, R5 ws, R6 xs, R7 nb; V0–V3 rows, V4–V7 tokens, V8–V11 row
// pairs, V12–V15 token pairs, V16, V17 int32 sums, V18, V19 scales,
// V20–V23 the four fp32 accumulators."""


def gemm_q8_mmla():
    name = "gemmQ8MMLA"
    e("// func %s(out *float32, w0, w1 *byte, x0, x1 *int8, ws, xs *float32, nb int)" % name)
    e("TEXT ·%s(SB), NOSPLIT, $0-64" % name)
    for i, a in enumerate(["out", "w0", "w1", "x0", "x1", "ws", "xs", "nb"]):
        ins("MOVD", "%s+%d(FP), R%d" % (a, 8 * i, i))
    ins("ADD", "$2, R1", c="past block 0's f16 scale")
    ins("ADD", "$2, R2")
    for v in range(20, 24):
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (v, v, v))
    e("q8mm:")
    for blk in range(4):
        ins("VLD1.P", "32(R1), [V0.B16, V1.B16]", c="block %d, row 0: 32 int8" % blk)
        ins("VLD1.P", "32(R2), [V2.B16, V3.B16]", c="row 1")
        ins("ADD", "$2, R1", c="past the next block's scale")
        ins("ADD", "$2, R2")
        ins("VLD1.P", "32(R3), [V4.B16, V5.B16]", c="token 0: 32 int8")
        ins("VLD1.P", "32(R4), [V6.B16, V7.B16]", c="token 1")
        for k in range(2):
            zip2d(8 + 2 * k, k, 2 + k)
            zip2d(9 + 2 * k, k, 2 + k, hi=True)
            zip2d(12 + 2 * k, 4 + k, 6 + k)
            zip2d(13 + 2 * k, 4 + k, 6 + k, hi=True)
        ins("VEOR", "V16.B16, V16.B16, V16.B16")
        ins("VEOR", "V17.B16, V17.B16, V17.B16")
        for k in range(4):
            smmla(16 + k % 2, 8 + k, 12 + k)
        ins("VADD", "V17.S4, V16.S4, V16.S4", c="exact: |Σ| ≤ 32·127·128")
        scvtf4s(16, 16)
        ins("VLD1.P", "16(R5), [V18.S4]", c="d_i of the block")
        ins("VLD1.P", "16(R6), [V19.S4]", c="dx_j of the block")
        fmul4s(18, 18, 19)
        ins("VFMLA", "V16.S4, V18.S4, V%d.S4" % (20 + blk), c="acc[b mod 4] += isum·(d·dx)")
    ins("SUBS", "$4, R7")
    ins("BNE", "q8mm")
    ins("VST1", "[V20.S4, V21.S4, V22.S4, V23.S4], (R0)", c="out[0:16]")
    ins("RET")
    e()


# ---------------------------------------------------------------- GEMM NN

NN_DOC = """// gemmNN4x16NEON: out[t·ldo+j] = Σ_{c<k} x[t·ldx+c]·b[c·ldb+j] for tokens
// t < 4 and columns j < 16, k ≥ 1, strides in elements (ldx 0: one token
// four times). Each output is one FMLA chain over c in order, as the
// reference (matMulNNGeneric) sums it. Pseudo-Go of a step:
//
//	bc := b[c·ldb : c·ldb+16]                       // one VLD1 of 4 registers
//	for t := range 4 { acc[t] += x[t][c] * bc }     // LD1R + 4 FMLA
//
// 5 loads for 16 FMLA. Registers: R0 out, R1 ldo in bytes, R2–R5 tokens,
// R6 b, R7 ldb in bytes, R8 k; V0–V3 the row of b, V4–V7 x[t][c]
// broadcast, V16–V31 acc[t] = V(16+4t) … V(19+4t)."""


def gemm_nn():
    e(NN_DOC)
    e("// func gemmNN4x16NEON(out *float32, ldo int, x *float32, ldx int, b *float32, ldb int, k int)")
    e("TEXT ·gemmNN4x16NEON(SB), NOSPLIT, $0-56")
    ins("MOVD", "out+0(FP), R0")
    ins("MOVD", "ldo+8(FP), R1")
    ins("MOVD", "x+16(FP), R2")
    ins("MOVD", "ldx+24(FP), R9")
    ins("MOVD", "b+32(FP), R6")
    ins("MOVD", "ldb+40(FP), R7")
    ins("MOVD", "k+48(FP), R8")
    ins("LSL", "$2, R1")
    ins("LSL", "$2, R9")
    ins("LSL", "$2, R7")
    ins("ADD", "R9, R2, R3")
    ins("ADD", "R9, R3, R4")
    ins("ADD", "R9, R4, R5")
    for v in range(16, 32):
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (v, v, v))
    e("loop:")
    ins("VLD1", "(R6), [V0.S4, V1.S4, V2.S4, V3.S4]", c="b[c][0:16]")
    ins("ADD", "R7, R6, R6")
    for t in range(4):
        ins("VLD1R.P", "4(R%d), [V%d.S4]" % (2 + t, 4 + t), c="x[%d][c] in every lane" % t)
    for t in range(4):
        for q in range(4):
            ins("VFMLA", "V%d.S4, V%d.S4, V%d.S4" % (4 + t, q, 16 + 4 * t + q))
    ins("SUBS", "$1, R8")
    ins("BNE", "loop")
    for t in range(4):
        a = 16 + 4 * t
        ins("VST1", "[V%d.S4, V%d.S4, V%d.S4, V%d.S4], (R0)" % (a, a + 1, a + 2, a + 3), c="out[%d][0:16]" % t)
        if t < 3:
            ins("ADD", "R1, R0, R0")
    ins("RET")
    e()


# ---------------------------------------------------------------- peak

PEAK_DOC = """// fmaPeakNEON: iters > 0 rounds of 16 independent FMLA on 4 fp32 lanes,
// all in registers, for `loupe membw`'s compute peak: 16 chains cover
// four FMLA pipes of 4 cycles' latency (Apple M1–M4), more than
// Cortex-A76–X4 need (2–4 pipes)."""


def peak():
    e(PEAK_DOC)
    e("TEXT ·fmaPeakNEON(SB), NOSPLIT, $0-8")
    ins("MOVD", "iters+0(FP), R0")
    ins("VMOVI", "$1, V30.B16", c="multiplicands: any finite values")
    ins("VMOVI", "$2, V31.B16")
    for v in range(16):
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (v, v, v))
    e("loop:")
    for v in range(16):
        ins("VFMLA", "V30.S4, V31.S4, V%d.S4" % v)
    ins("SUBS", "$1, R0")
    ins("BNE", "loop")
    ins("RET")
    e()


# ---------------------------------------------------------------- vec

VEC_DOC = """// Attention's vector products over n floats, n a positive multiple of 16
// (vec_generic.go has the reference loops): 64 bytes of each operand a
// step, four independent FMLA (or FADD) chains."""


def vec():
    e(VEC_DOC)
    e()
    e("// func dotNEON(a, b *float32, n int) float32")
    e("TEXT ·dotNEON(SB), NOSPLIT, $0-28")
    ins("MOVD", "a+0(FP), R0")
    ins("MOVD", "b+8(FP), R1")
    ins("MOVD", "n+16(FP), R2")
    for v in range(16, 20):
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (v, v, v))
    e("loop:")
    ins("VLD1.P", "64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]")
    ins("VLD1.P", "64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]")
    for k in range(4):
        ins("VFMLA", "V%d.S4, V%d.S4, V%d.S4" % (k, 4 + k, 16 + k))
    ins("SUBS", "$16, R2")
    ins("BNE", "loop")
    fadd4s(16, 16, 17)
    fadd4s(18, 18, 19)
    fadd4s(16, 16, 18)
    faddp4s(16, 16, 16)
    faddp4s(16, 16, 16)
    ins("FMOVS", "F16, ret+24(FP)")
    ins("RET")
    e()
    e("// func axpyNEON(y, x *float32, a float32, n int): y[i] += a·x[i] (fused)")
    e("TEXT ·axpyNEON(SB), NOSPLIT, $0-32")
    ins("MOVD", "y+0(FP), R0")
    ins("MOVD", "x+8(FP), R1")
    ins("FMOVS", "a+16(FP), F31")
    ins("MOVD", "n+24(FP), R2")
    ins("VDUP", "V31.S[0], V31.S4")
    e("loop:")
    ins("VLD1", "(R0), [V0.S4, V1.S4, V2.S4, V3.S4]", c="y[i:i+16]")
    ins("VLD1.P", "64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]", c="x[i:i+16]")
    for k in range(4):
        ins("VFMLA", "V31.S4, V%d.S4, V%d.S4" % (4 + k, k))
    ins("VST1.P", "[V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)")
    ins("SUBS", "$16, R2")
    ins("BNE", "loop")
    ins("RET")
    e()
    e("// func addNEON(y, x *float32, n int): y[i] += x[i]")
    e("TEXT ·addNEON(SB), NOSPLIT, $0-24")
    ins("MOVD", "y+0(FP), R0")
    ins("MOVD", "x+8(FP), R1")
    ins("MOVD", "n+16(FP), R2")
    e("loop:")
    ins("VLD1", "(R0), [V0.S4, V1.S4, V2.S4, V3.S4]", c="y[i:i+16]")
    ins("VLD1.P", "64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]", c="x[i:i+16]")
    for k in range(4):
        fadd4s(k, k, 4 + k)
    ins("VST1.P", "[V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)")
    ins("SUBS", "$16, R2")
    ins("BNE", "loop")
    ins("RET")
    e()


# ---------------------------------------------------------------- Q8_0

Q8_DOC = """// gemvQ8_0SDOT: out[r] = Σ_{b<nb} d_b·dx_b·Σ_j q_bj·qx_bj for r < rows,
// row r at w + r·rb, nb a positive multiple of 4; the quantised x at xq
// (32 int8 a block), its scales at dx. Pseudo-Go of one step (4 blocks,
// 136 bytes of weights, 128 of x):
//
//	for k := range 4 { isum[k] = Σ_j q[k][j]·qx[k][j] }  // 8 SDOT
//	acc += float32(isum) * (f16(d[0:4]) * dx[b:b+4])     // SCVTF, FCVTL, FMUL, FMLA
//
// Registers: R0 out, R1 rows, R2 row, R3 rb, R4 xq, R5 dx, R6 nb, R7 block
// pointer, R8 x pointer, R9 dx pointer, R10 blocks left, R11 a d;
// V0–V7 x, V8–V15 weights, V16–V19 integer sums, V20 the d's, V21–V23
// scales, V24 the row's fp32 sum."""


def gemv_q8_0():
    e("// func gemvQ8_0%s(out *float32, rows int, w *byte, rb int, xq *int8, dx *float32, nb int)" % suffix())
    e("TEXT ·gemvQ8_0%s(SB), NOSPLIT, $0-56" % suffix())
    for i, a in enumerate(["out", "rows", "w", "rb", "xq", "dx", "nb"]):
        ins("MOVD", "%s+%d(FP), R%d" % (a, 8 * i, i))
    e("row:")
    ins("MOVD", "R2, R7")
    ins("MOVD", "R4, R8")
    ins("MOVD", "R5, R9")
    ins("MOVD", "R6, R10")
    ins("VEOR", "V24.B16, V24.B16, V24.B16")
    e("blocks:")
    ins("VLD1.P", "64(R8), [V0.B16, V1.B16, V2.B16, V3.B16]", c="qx of blocks 0, 1")
    ins("VLD1.P", "64(R8), [V4.B16, V5.B16, V6.B16, V7.B16]", c="qx of blocks 2, 3")
    for k in range(4):
        ins("MOVHU.P", "2(R7), R11", c="block %d: f16 d" % k)
        ins("VMOV", "R11, V20.H[%d]" % k)
        ins("VLD1.P", "32(R7), [V%d.B16, V%d.B16]" % (8 + 2 * k, 9 + 2 * k), c="block %d: 32 int8 q" % k)
    for k in range(4):
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (16 + k, 16 + k, 16 + k))
    for k in range(4):
        sdot(16 + k, 8 + 2 * k, 2 * k)
        sdot(16 + k, 9 + 2 * k, 2 * k + 1)
    ins("VADDP", "V17.S4, V16.S4, V21.S4")
    ins("VADDP", "V19.S4, V18.S4, V22.S4")
    ins("VADDP", "V22.S4, V21.S4, V21.S4", c="[isum0, isum1, isum2, isum3]")
    scvtf4s(21, 21)
    fcvtl4s(22, 20)
    ins("VLD1.P", "16(R9), [V23.S4]", c="dx of the 4 blocks")
    fmul4s(22, 22, 23)
    ins("VFMLA", "V22.S4, V21.S4, V24.S4", c="acc += isum·d·dx")
    ins("SUBS", "$4, R10")
    ins("BNE", "blocks")
    faddp4s(24, 24, 24)
    faddp4s(24, 24, 24)
    ins("FMOVS.P", "F24, 4(R0)")
    ins("ADD", "R3, R2, R2")
    ins("SUBS", "$1, R1")
    ins("BNE", "row")
    ins("RET")
    e()


# ---------------------------------------------------------------- K-quants

KQ_DOC = """// K-quant rows against int8 activations, one super-block (256 weights) a
// step: the weights are unpacked to int8 in registers (AND, USHR and, for
// the high bits, SHL/USHR + AND + ORR), multiplied with qx by SDOT into one
// int32 vector per sub-block (Q4_K, Q5_K: 32 weights) or group (Q6_K: 16),
// and those sums are reduced by ADDP to one lane each, converted (SCVTF)
// and scaled in fp32 by the block's scales and the activation scales dx.
// Pseudo-Go of a Q4_K step (kernels/quant8.go, dotQ4KX, is the reference):
//
//	isum[sb] = Σ_j q[sb][j]·qx[sb][j]                  // 16 SDOT
//	acc  += d · (float32(isum) · sc · dx)              // two vectors of 4
//	accm += dmin · (m · s)                             // s = dx·Σqx per 32
//	out[r] = Σ lanes(acc − accm)
//
// Q5_K adds bit sb of qh[l] as 16 to weight l of sub-block sb; Q6_K starts
// each group's sum at n32 = −32·Σqx (per 4 columns, the SDOT lanes), so its
// unsigned 6-bit weights need no −32 per byte.
//
// Registers (Q4_K, Q5_K): R0 out, R1 rows, R2 row, R3 rb, R4 xq, R5 dx,
// R6 s, R7 super-block, R8 qx pointer, R9 dx pointer, R10 s pointer, R11
// super-blocks left, R12 nibble pointer, R13–R17 scales; V0–V9 weights and
// x, V10 acc, V11 accm, V12–V15 Q5_K's qh, V16–V23 the sub-block sums,
// V24–V30 scales, V31 0x0f in every byte."""


def kq_args(name, third):
    e("// func %s(out *float32, rows int, w *byte, rb int, xq *int8, dx *float32, %s, nsb int)" % (name, third))
    e("TEXT ·%s(SB), NOSPLIT, $0-64" % name)
    for i, a in enumerate(["out", "rows", "w", "rb", "xq", "dx", third.split()[0], "nsb"]):
        ins("MOVD", "%s+%d(FP), R%d" % (a, 8 * i, i if i < 7 else 11))
    ins("MOVD", "R11, R19", c="super-blocks a row")


def kq_row_start():
    e("row:")
    ins("MOVD", "R2, R7")
    ins("MOVD", "R4, R8")
    ins("MOVD", "R5, R9")
    ins("MOVD", "R6, R10")
    ins("MOVD", "R19, R11")
    ins("VEOR", "V10.B16, V10.B16, V10.B16")
    ins("VEOR", "V11.B16, V11.B16, V11.B16")


def kq_row_end(blocks_label, bb):
    ins("ADD", "$%d, R7" % bb)
    ins("SUBS", "$1, R11")
    ins("BNE", blocks_label)
    fsub4s(10, 10, 11)
    faddp4s(10, 10, 10)
    faddp4s(10, 10, 10)
    ins("FMOVS.P", "F10, 4(R0)")
    ins("ADD", "R3, R2, R2")
    ins("SUBS", "$1, R1")
    ins("BNE", "row")
    ins("RET")
    e()


def q4k_scales():
    """V29, V30 = sc[0:4], sc[4:8]; V27, V28 = m[0:4], m[4:8] as fp32
    (ScaleMinK4 on 32-bit words, as llama.cpp's utmp), V26 = [d, dmin, ...]."""
    ins("MOVWU", "4(R7), R13", c="scale bytes 0-3")
    ins("MOVWU", "8(R7), R14", c="4-7")
    ins("MOVWU", "12(R7), R15", c="8-11")
    ins("LSRW", "$4, R15, R16")
    ins("ANDW", "$0x0f0f0f0f, R16, R16")
    ins("LSRW", "$6, R14, R17")
    ins("ANDW", "$0x03030303, R17, R17")
    ins("ORRW", "R17<<4, R16, R16", c="m[4:8]")
    ins("ANDW", "$0x3f3f3f3f, R14, R14", c="m[0:4]")
    ins("ANDW", "$0x0f0f0f0f, R15, R15")
    ins("LSRW", "$6, R13, R17")
    ins("ANDW", "$0x03030303, R17, R17")
    ins("ORRW", "R17<<4, R15, R15", c="sc[4:8]")
    ins("ANDW", "$0x3f3f3f3f, R13, R13", c="sc[0:4]")
    ins("VMOV", "R13, V26.S[0]")
    ins("VMOV", "R15, V26.S[1]")
    ins("VMOV", "R14, V26.S[2]")
    ins("VMOV", "R16, V26.S[3]", c="V26 = sc[0:8], m[0:8] as bytes")
    ins("VUXTL", "V26.B8, V27.H8")
    ins("VUXTL2", "V26.B16, V28.H8")
    ins("VUXTL", "V27.H4, V29.S4")
    ins("VUXTL2", "V27.H8, V30.S4")
    ins("VUXTL", "V28.H4, V27.S4")
    ins("VUXTL2", "V28.H8, V28.S4")
    for r in (27, 28, 29, 30):
        scvtf4s(r, r)
    ins("MOVWU", "(R7), R13", c="f16 d, dmin")
    ins("VMOV", "R13, V26.S[0]")
    fcvtl4s(26, 26)
    ins("VDUP", "V26.S[0], V24.S4", c="d")
    ins("VDUP", "V26.S[1], V25.S4", c="dmin")


def kq_finish_sbs():
    """Sub-block sums V16..V23 → acc, accm (V24 d, V25 dmin, V27–V30 m, sc)."""
    ins("VADDP", "V17.S4, V16.S4, V16.S4")
    ins("VADDP", "V19.S4, V18.S4, V18.S4")
    ins("VADDP", "V18.S4, V16.S4, V16.S4", c="isum[0:4]")
    ins("VADDP", "V21.S4, V20.S4, V20.S4")
    ins("VADDP", "V23.S4, V22.S4, V22.S4")
    ins("VADDP", "V22.S4, V20.S4, V20.S4", c="isum[4:8]")
    scvtf4s(16, 16)
    scvtf4s(20, 20)
    ins("VLD1.P", "32(R9), [V0.S4, V1.S4]", c="dx of the 8 sub-blocks")
    ins("VLD1.P", "32(R10), [V2.S4, V3.S4]", c="s = dx·Σqx of the 8 sub-blocks")
    fmul4s(16, 16, 29)
    fmul4s(20, 20, 30)
    fmul4s(16, 16, 0)
    fmul4s(20, 20, 1)
    ins("VFMLA", "V24.S4, V16.S4, V10.S4", c="acc += d·sc·dx·isum")
    ins("VFMLA", "V24.S4, V20.S4, V10.S4")
    fmul4s(2, 2, 27)
    fmul4s(3, 3, 28)
    ins("VFMLA", "V25.S4, V2.S4, V11.S4", c="accm += dmin·m·s")
    ins("VFMLA", "V25.S4, V3.S4, V11.S4")


def high_bit(dst, qh, sb, tmp):
    """dst |= ((qh >> sb) & 1) << 4 per byte (V14 = 0x10 in every byte)."""
    if sb < 4:
        ins("VSHL", "$%d, V%d.B16, V%d.B16" % (4 - sb, qh, tmp))
        src = tmp
    elif sb > 4:
        ins("VUSHR", "$%d, V%d.B16, V%d.B16" % (sb - 4, qh, tmp))
        src = tmp
    else:
        src = qh
    ins("VAND", "V14.B16, V%d.B16, V%d.B16" % (src, tmp))
    ins("VORR", "V%d.B16, V%d.B16, V%d.B16" % (tmp, dst, dst))


def gemv_q4k(q5):
    name = ("gemvQ5K" if q5 else "gemvQ4K") + suffix()
    bb, qs = (176, 48) if q5 else (144, 16)
    kq_args(name, "s *float32")
    ins("VMOVI", "$15, V31.B16")
    if q5:
        ins("VMOVI", "$16, V14.B16")
    kq_row_start()
    e("blocks:")
    q4k_scales()
    if q5:
        ins("ADD", "$16, R7, R12")
        ins("VLD1", "(R12), [V12.B16, V13.B16]", c="qh: bit sb of byte l is weight l of sub-block sb, +16")
    ins("ADD", "$%d, R7, R12" % qs)
    for j in range(4):  # sub-blocks 2j (low nibbles), 2j+1 (high)
        ins("VLD1.P", "32(R12), [V0.B16, V1.B16]", c="nibbles of sub-blocks %d, %d" % (2 * j, 2 * j + 1))
        ins("VLD1.P", "64(R8), [V2.B16, V3.B16, V4.B16, V5.B16]", c="qx of the two")
        ins("VAND", "V31.B16, V0.B16, V6.B16")
        ins("VAND", "V31.B16, V1.B16, V7.B16")
        ins("VUSHR", "$4, V0.B16, V8.B16")
        ins("VUSHR", "$4, V1.B16, V9.B16")
        if q5:
            high_bit(6, 12, 2 * j, 15)
            high_bit(7, 13, 2 * j, 15)
            high_bit(8, 12, 2 * j + 1, 15)
            high_bit(9, 13, 2 * j + 1, 15)
        a, b = 16 + 2 * j, 17 + 2 * j
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (a, a, a))
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (b, b, b))
        sdot(a, 6, 2)
        sdot(a, 7, 3)
        sdot(b, 8, 4)
        sdot(b, 9, 5)
    kq_finish_sbs()
    kq_row_end("blocks", bb)


Q6K_DOC = """// Q6_K registers: R6 n32, R10 its pointer, R12 pointers into the block;
// V0–V3 ql, V4–V5 qh, V6–V7 x, V8–V13 sums and scales, V14–V21 the group
// sums, V22 a weight register, V23 its high bits, V24–V26 scales, V28 d,
// V29 0x0f and V30 0x30 in every byte, V10 acc (V11, accm, stays 0)."""


def gemv_q6k():
    name = "gemvQ6K" + suffix()
    kq_args(name, "n32 *int32")
    ins("VMOVI", "$15, V29.B16")
    ins("VMOVI", "$48, V30.B16")
    kq_row_start()
    e("blocks:")
    ins("MOVHU", "208(R7), R13", c="f16 d")
    ins("VMOV", "R13, V28.H[0]")
    fcvtl4s(28, 28)
    ins("VDUP", "V28.S[0], V28.S4")
    for h in range(2):  # 128 weights: 64 bytes of ql, 32 of qh, 8 scales
        ins("ADD", "$%d, R7, R12" % (64 * h))
        ins("VLD1", "(R12), [V0.B16, V1.B16, V2.B16, V3.B16]", c="ql[%d:%d]" % (64 * h, 64 * h + 64))
        ins("ADD", "$%d, R7, R12" % (128 + 32 * h))
        ins("VLD1", "(R12), [V4.B16, V5.B16]", c="qh[%d:%d]" % (32 * h, 32 * h + 32))
        ins("VLD1.P", "64(R10), [V14.S4, V15.S4, V16.S4, V17.S4]", c="n32: each group's sum starts at −32·Σqx")
        ins("VLD1.P", "64(R10), [V18.S4, V19.S4, V20.S4, V21.S4]")
        for k in range(4):  # weights 32k … 32k+31 of the half
            ins("VLD1.P", "32(R8), [V6.B16, V7.B16]", c="qx of weights %d-%d" % (32 * k, 32 * k + 31))
            for r in range(2):
                lo = r if k in (0, 2) else 2 + r
                if k < 2:
                    ins("VAND", "V29.B16, V%d.B16, V22.B16" % lo, c="low 4 bits")
                else:
                    ins("VUSHR", "$4, V%d.B16, V22.B16" % lo, c="low 4 bits")
                hq = 4 + r
                if k == 2:
                    ins("VAND", "V30.B16, V%d.B16, V23.B16" % hq, c="high 2 bits at 4-5")
                else:
                    if k < 2:
                        ins("VSHL", "$%d, V%d.B16, V23.B16" % (4 - 2 * k, hq))
                    else:
                        ins("VUSHR", "$2, V%d.B16, V23.B16" % hq)
                    ins("VAND", "V30.B16, V23.B16, V23.B16", c="high 2 bits at 4-5")
                ins("VORR", "V23.B16, V22.B16, V22.B16", c="q, 0…63")
                sdot(14 + 2 * k + r, 22, 6 + r)
        ins("VADDP", "V15.S4, V14.S4, V8.S4")
        ins("VADDP", "V17.S4, V16.S4, V9.S4")
        ins("VADDP", "V9.S4, V8.S4, V8.S4", c="isum of groups 0-3")
        ins("VADDP", "V19.S4, V18.S4, V9.S4")
        ins("VADDP", "V21.S4, V20.S4, V25.S4")
        ins("VADDP", "V25.S4, V9.S4, V9.S4", c="groups 4-7")
        scvtf4s(8, 8)
        scvtf4s(9, 9)
        ins("FMOVD", "%d(R7), F12" % (192 + 8 * h), c="8 int8 scales")
        sxtl8h(12, 12)
        sxtl4s(26, 12)
        sxtl4s(12, 12, upper=True)
        scvtf4s(26, 26)
        scvtf4s(12, 12)
        ins("VLD1.P", "16(R9), [V13.S4]", c="dx of the 4 blocks of 32")
        ins("VZIP1", "V13.S4, V13.S4, V24.S4", c="dx per group of 16")
        ins("VZIP2", "V13.S4, V13.S4, V13.S4")
        fmul4s(8, 8, 26)
        fmul4s(9, 9, 12)
        fmul4s(8, 8, 24)
        fmul4s(9, 9, 13)
        ins("VFMLA", "V28.S4, V8.S4, V10.S4", c="acc += d·sc·dx·isum")
        ins("VFMLA", "V28.S4, V9.S4, V10.S4")
    kq_row_end("blocks", 210)


EMU_DOC = """// The same four kernels without FEAT_DotProd (the neon level: Cortex-A72,
// A53, A55 without it): each SDOT becomes SMULL, SADALP, SMULL2, SADALP
// through one spare register. int8 × int8 products fit int16 (|q| ≤ 128,
// |qx| ≤ 127), and SADALP adds them pairwise into the int32 lanes."""


# ---------------------------------------------------------------- element-wise

NORM_DOC = """// The element-wise family (norm.go; norm_generic.go has the reference
// loops), n a positive multiple of 8. exp is the AVX code's (norm_amd64.s)
// on four lanes: x clamped to [-88, 89] (FMAX/FMIN let a NaN through),
// t = 1.5·2²³ + 127 + x·log2e holds 127 + n in its low bits, r = x −
// n·ln2 in two fused steps, e^r by Cephes' degree-7 polynomial (Horner,
// fused), times 2^n = t<<23 (0 below -87.3, +Inf above 88.7). Registers:
// V16–V28 the constants, V0–V7 two vectors' x, t and polynomial."""

EXP_CONSTS = [(16, 0xc2b00000, "-88"), (17, 0x42b20000, "89"), (18, 0x3fb8aa3b, "log2e"),
              (19, 0x4b40007f, "1.5·2²³ + 127"), (20, 0x3f318000, "ln2Hi"), (21, 0xb95e8083, "ln2Lo"),
              (22, 0x39506967, "c0"), (23, 0x3ab743ce, "c1"), (24, 0x3c088908, "c2"),
              (25, 0x3d2aa9c1, "c3"), (26, 0x3e2aaaaa, "c4"), (27, 0x3f000000, "c5"), (28, 0x3f800000, "1")]


def splat(v, bits, what):
    ins("MOVW", "$0x%08x, R9" % bits, c=what)
    ins("VDUP", "R9, V%d.S4" % v)


def load_exp_consts():
    for v, bits, what in EXP_CONSTS:
        splat(v, bits, what)


def exp4(x, t, a, b):
    """Register holding e^V<x> (x, t, a, b clobbered)."""
    fmax4s(x, x, 16)
    fmin4s(x, x, 17)
    ins("VORR", "V19.B16, V19.B16, V%d.B16" % t)
    ins("VFMLA", "V18.S4, V%d.S4, V%d.S4" % (x, t), c="t = magic + x·log2e")
    fsub4s(a, t, 19)
    ins("VFMLS", "V20.S4, V%d.S4, V%d.S4" % (a, x), c="x -= n·ln2Hi")
    ins("VFMLS", "V21.S4, V%d.S4, V%d.S4" % (a, x), c="r = x − n·ln2Lo")
    ins("VSHL", "$23, V%d.S4, V%d.S4" % (t, t), c="2^n")
    ins("VORR", "V22.B16, V22.B16, V%d.B16" % a, c="p = c0")
    for c in (23, 24, 25, 26, 27, 28, 28):
        ins("VORR", "V%d.B16, V%d.B16, V%d.B16" % (c, c, b))
        ins("VFMLA", "V%d.S4, V%d.S4, V%d.S4" % (x, a, b), c="p = p·r + c")
        a, b = b, a
    fmul4s(a, a, t)
    return a


def norm():
    e(NORM_DOC)
    e()
    e("// func maxNEON(x *float32, n int) float32: the largest x[i], NaN wins")
    e("TEXT ·maxNEON(SB), NOSPLIT, $0-20")
    ins("MOVD", "x+0(FP), R0")
    ins("MOVD", "n+8(FP), R2")
    ins("VLD1", "(R0), [V0.S4]")
    ins("VORR", "V0.B16, V0.B16, V1.B16")
    e("loop:")
    ins("VLD1.P", "32(R0), [V2.S4, V3.S4]")
    fmax4s(0, 0, 2)
    fmax4s(1, 1, 3)
    ins("SUBS", "$8, R2")
    ins("BNE", "loop")
    fmax4s(0, 0, 1)
    ins("VEXT", "$8, V0.B16, V0.B16, V1.B16")
    fmax4s(0, 0, 1)
    ins("VEXT", "$4, V0.B16, V0.B16, V1.B16")
    fmax4s(0, 0, 1)
    ins("FMOVS", "F0, ret+16(FP)")
    ins("RET")
    e()
    e("// func expSubSumNEON(x *float32, m float32, n int) float32:")
    e("// x[i] = e^(x[i] − m), returns Σ x[i]")
    e("TEXT ·expSubSumNEON(SB), NOSPLIT, $0-28")
    ins("MOVD", "x+0(FP), R0")
    ins("FMOVS", "m+8(FP), F29")
    ins("MOVD", "n+16(FP), R2")
    ins("VDUP", "V29.S[0], V29.S4")
    load_exp_consts()
    ins("VEOR", "V8.B16, V8.B16, V8.B16")
    ins("VEOR", "V9.B16, V9.B16, V9.B16")
    e("loop:")
    ins("VLD1", "(R0), [V0.S4, V1.S4]")
    fsub4s(0, 0, 29)
    fsub4s(4, 1, 29)
    r0 = exp4(0, 1, 2, 3)
    r1 = exp4(4, 5, 6, 7)
    ins("VST1.P", "[V%d.S4], 16(R0)" % r0)
    ins("VST1.P", "[V%d.S4], 16(R0)" % r1)
    fadd4s(8, 8, r0)
    fadd4s(9, 9, r1)
    ins("SUBS", "$8, R2")
    ins("BNE", "loop")
    fadd4s(8, 8, 9)
    faddp4s(8, 8, 8)
    faddp4s(8, 8, 8)
    ins("FMOVS", "F8, ret+24(FP)")
    ins("RET")
    e()
    e("// func scaleNEON(x *float32, a float32, n int): x[i] *= a")
    e("TEXT ·scaleNEON(SB), NOSPLIT, $0-24")
    ins("MOVD", "x+0(FP), R0")
    ins("FMOVS", "a+8(FP), F29")
    ins("MOVD", "n+16(FP), R2")
    ins("VDUP", "V29.S[0], V29.S4")
    e("loop:")
    ins("VLD1", "(R0), [V0.S4, V1.S4]")
    fmul4s(0, 0, 29)
    fmul4s(1, 1, 29)
    ins("VST1.P", "[V0.S4, V1.S4], 32(R0)")
    ins("SUBS", "$8, R2")
    ins("BNE", "loop")
    ins("RET")
    e()
    e("// func siluMulNEON(out, gate, up *float32, n int):")
    e("// out[i] = g/(1 + e^−g)·up[i], g = gate[i]; out may be gate")
    e("TEXT ·siluMulNEON(SB), NOSPLIT, $0-32")
    ins("MOVD", "out+0(FP), R0")
    ins("MOVD", "gate+8(FP), R1")
    ins("MOVD", "up+16(FP), R3")
    ins("MOVD", "n+24(FP), R2")
    load_exp_consts()
    e("loop:")
    ins("VLD1.P", "32(R1), [V10.S4, V11.S4]", c="g")
    fneg4s(0, 10)
    fneg4s(4, 11)
    r0 = exp4(0, 1, 2, 3)
    r1 = exp4(4, 5, 6, 7)
    fadd4s(r0, r0, 28)
    fadd4s(r1, r1, 28)
    fdiv4s(10, 10, r0)
    fdiv4s(11, 11, r1)
    ins("VLD1.P", "32(R3), [V12.S4, V13.S4]", c="up")
    fmul4s(10, 10, 12)
    fmul4s(11, 11, 13)
    ins("VST1.P", "[V10.S4, V11.S4], 32(R0)")
    ins("SUBS", "$8, R2")
    ins("BNE", "loop")
    ins("RET")
    e()
    e("// func sumSquaresNEON(x *float32, n int) float64: Σ x[i]² in float64")
    e("// (each square exact), four float64 chains of two lanes")
    e("TEXT ·sumSquaresNEON(SB), NOSPLIT, $0-24")
    ins("MOVD", "x+0(FP), R0")
    ins("MOVD", "n+8(FP), R2")
    for v in range(16, 20):
        ins("VEOR", "V%d.B16, V%d.B16, V%d.B16" % (v, v, v))
    e("loop:")
    ins("VLD1.P", "32(R0), [V0.S4, V1.S4]")
    fcvtl2d(2, 0)
    fcvtl2d(3, 0, upper=True)
    fcvtl2d(4, 1)
    fcvtl2d(5, 1, upper=True)
    for k in range(4):
        ins("VFMLA", "V%d.D2, V%d.D2, V%d.D2" % (2 + k, 2 + k, 16 + k))
    ins("SUBS", "$8, R2")
    ins("BNE", "loop")
    fadd2d(16, 16, 17)
    fadd2d(18, 18, 19)
    fadd2d(16, 16, 18)
    faddp2d(16, 16, 16)
    ins("FMOVD", "F16, ret+16(FP)")
    ins("RET")
    e()
    e("// func rmsScaleNEON(out, x, w *float32, inv float32, n int):")
    e("// out[i] = x[i]·inv·w[i], rounded after each product")
    e("TEXT ·rmsScaleNEON(SB), NOSPLIT, $0-40")
    ins("MOVD", "out+0(FP), R0")
    ins("MOVD", "x+8(FP), R1")
    ins("MOVD", "w+16(FP), R3")
    ins("FMOVS", "inv+24(FP), F29")
    ins("MOVD", "n+32(FP), R2")
    ins("VDUP", "V29.S[0], V29.S4")
    e("loop:")
    ins("VLD1.P", "32(R1), [V0.S4, V1.S4]")
    ins("VLD1.P", "32(R3), [V2.S4, V3.S4]")
    fmul4s(0, 0, 29)
    fmul4s(1, 1, 29)
    fmul4s(0, 0, 2)
    fmul4s(1, 1, 3)
    ins("VST1.P", "[V0.S4, V1.S4], 32(R0)")
    ins("SUBS", "$8, R2")
    ins("BNE", "loop")
    ins("RET")
    e()


# ---------------------------------------------------------------- quantise x

QX_DOC = """// quantizeXNEON: QuantizedX.Quantize over nb blocks of 32 (quant8.go,
// quantizeXGeneric, is the reference and the bits match): m = max(max|x|,
// 2⁻¹⁰⁰), dx = m/127, q = x·(127/m) rounded to nearest even (FCVTNS),
// the sums of each 4 q by ADDP (the SDOT lanes' −128·Σ and −32·Σ), and
// dx·Σq. Registers: R0 x, R1 q, R2 dc, R3 de, R4 n128, R5 n32, R6 s, R7
// blocks left; V0–V7 the block, V8–V15 |x|, F29 127, F30 2⁻¹⁰⁰."""


def xtn(d, n, to, upper):  # XTN{2}: halve each lane, keep the low bits
    if to == "H":
        enc, txt = (0x4E612800, "XTN2 V%d.8H, V%d.4S") if upper else (0x0E612800, "XTN V%d.4H, V%d.4S")
    else:
        enc, txt = (0x4E212800, "XTN2 V%d.16B, V%d.8H") if upper else (0x0E212800, "XTN V%d.8B, V%d.8H")
    word(_rrr(enc, d, n, 0), txt % (d, n))


def quantize_x():
    e(QX_DOC)
    e("// func quantizeXNEON(x *float32, q *int8, dc, de *float32, n128, n32 *int32, s *float32, nb int)")
    e("TEXT ·quantizeXNEON(SB), NOSPLIT, $0-64")
    for i, a in enumerate(["x", "q", "dc", "de", "n128", "n32", "s", "nb"]):
        ins("MOVD", "%s+%d(FP), R%d" % (a, 8 * i, i))
    ins("MOVW", "$0x42fe0000, R9", c="127")
    ins("FMOVS", "R9, F29")
    ins("MOVW", "$0x0d800000, R9", c="2⁻¹⁰⁰")
    ins("FMOVS", "R9, F30")
    e("blocks:")
    ins("VLD1.P", "64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]")
    ins("VLD1.P", "64(R0), [V4.S4, V5.S4, V6.S4, V7.S4]")
    for k in range(8):
        word(_rrr(0x4EA0F800, 8 + k, k, 0), "FABS V%d.4S, V%d.4S" % (8 + k, k))
    for a, b in ((8, 9), (10, 11), (12, 13), (14, 15), (8, 10), (12, 14), (8, 12)):
        fmax4s(a, a, b)
    word(_rrr(0x6E30F800, 8, 8, 0), "FMAXV S8, V8.4S")
    ins("FMAXS", "F30, F8, F8", c="m = max(max|x|, 2⁻¹⁰⁰)")
    ins("FDIVS", "F8, F29, F9", c="127/m")
    ins("FDIVS", "F29, F8, F10", c="dx = m/127")
    ins("VDUP", "V9.S[0], V9.S4")
    for k in range(8):
        fmul4s(k, k, 9)
        word(_rrr(0x4E21A800, k, k, 0), "FCVTNS V%d.4S, V%d.4S" % (k, k))
    ins("VADDP", "V1.S4, V0.S4, V18.S4")
    ins("VADDP", "V3.S4, V2.S4, V19.S4")
    ins("VADDP", "V19.S4, V18.S4, V16.S4", c="Σ of q[0:4], …, q[12:16]")
    ins("VADDP", "V5.S4, V4.S4, V18.S4")
    ins("VADDP", "V7.S4, V6.S4, V19.S4")
    ins("VADDP", "V19.S4, V18.S4, V17.S4", c="Σ of q[16:20], …")
    xtn(20, 0, "H", False)
    xtn(20, 1, "H", True)
    xtn(21, 2, "H", False)
    xtn(21, 3, "H", True)
    xtn(22, 20, "B", False)
    xtn(22, 21, "B", True)
    xtn(20, 4, "H", False)
    xtn(20, 5, "H", True)
    xtn(21, 6, "H", False)
    xtn(21, 7, "H", True)
    xtn(23, 20, "B", False)
    xtn(23, 21, "B", True)
    ins("VST1.P", "[V22.B16, V23.B16], 32(R1)", c="q")
    for sh, base, reg in ((7, 24, 4), (5, 26, 5)):
        ins("VSHL", "$%d, V16.S4, V%d.S4" % (sh, base))
        ins("VSHL", "$%d, V17.S4, V%d.S4" % (sh, base + 1))
        for v in (base, base + 1):
            word(_rrr(0x6EA0B800, v, v, 0), "NEG V%d.4S, V%d.4S" % (v, v))
        ins("VST1.P", "[V%d.S4, V%d.S4], 32(R%d)" % (base, base + 1, reg), c="n128" if sh == 7 else "n32")
    ins("VADD", "V17.S4, V16.S4, V18.S4")
    ins("VADDV", "V18.S4, V18", c="Σ q")
    word(_rrr(0x5E21D800, 18, 18, 0), "SCVTF S18, S18")
    ins("FMULS", "F10, F18, F18", c="dx·Σq")
    ins("FMOVS.P", "F10, 4(R2)", c="dc")
    ins("FMOVS.P", "F18, 4(R6)", c="s")
    ins("VDUP", "V10.S[0], V11.S4")
    ins("VDUP", "V10.S[0], V12.S4")
    ins("VST1.P", "[V11.S4, V12.S4], 32(R3)", c="de")
    ins("SUBS", "$1, R7")
    ins("BNE", "blocks")
    ins("RET")
    e()


# ---------------------------------------------------------------- dequant

DQ_DOC = """// Row widening for prefill (DequantRow: every weight of nb blocks to fp32,
// bit for bit the values of dequantBlock in quant.go, which on arm64 Go
// compiles with the same fused multiply-subtract): Q8_0 d·q; Q4_K and
// Q5_K d·sc·q − dmin·m as one FMLA of d·sc and q onto −dmin·m; Q6_K
// (d·sc)·(q − 32) as two FMUL. Registers as in the decode kernels; R1 the
// output, V0–V7 one sub-block's 32 weights as fp32, V8 its d·sc, V9 its
// −dmin·m, V16–V23 bytes and halfwords, then results."""


def widen_u8(b0, b1):
    """V0–V7 = the 32 unsigned bytes of V<b0>, V<b1> as fp32."""
    ins("VUXTL", "V%d.B8, V20.H8" % b0)
    ins("VUXTL2", "V%d.B16, V21.H8" % b0)
    ins("VUXTL", "V%d.B8, V22.H8" % b1)
    ins("VUXTL2", "V%d.B16, V23.H8" % b1)
    for k, h in enumerate((20, 21, 22, 23)):
        ins("VUXTL", "V%d.H4, V%d.S4" % (h, 2 * k))
        ins("VUXTL2", "V%d.H8, V%d.S4" % (h, 2 * k + 1))
    for k in range(8):
        ucvtf4s(k, k)


def store_fma32():
    """y[0:32] = V9 + V8·V0…V7, fused, four registers at a time."""
    for g in range(2):
        for k in range(4):
            ins("VORR", "V9.B16, V9.B16, V%d.B16" % (20 + k))
        for k in range(4):
            ins("VFMLA", "V8.S4, V%d.S4, V%d.S4" % (4 * g + k, 20 + k))
        ins("VST1.P", "[V20.S4, V21.S4, V22.S4, V23.S4], 64(R1)")


def dequant_q8_0():
    e("// func dequantQ8_0NEON(y *float32, w *byte, nb int)")
    e("TEXT ·dequantQ8_0NEON(SB), NOSPLIT, $0-24")
    ins("MOVD", "y+0(FP), R1")
    ins("MOVD", "w+8(FP), R7")
    ins("MOVD", "nb+16(FP), R11")
    e("blocks:")
    ins("MOVHU.P", "2(R7), R13", c="f16 d")
    ins("VMOV", "R13, V8.H[0]")
    fcvtl4s(8, 8)
    ins("VDUP", "V8.S[0], V8.S4")
    ins("VLD1.P", "32(R7), [V16.B16, V17.B16]", c="32 int8 q")
    sxtl8h(18, 16)
    sxtl8h2(19, 16)
    sxtl8h(20, 17)
    sxtl8h2(21, 17)
    for k, h in enumerate((18, 19, 20, 21)):
        sxtl4s(2 * k, h)
        sxtl4s(2 * k + 1, h, upper=True)
    for k in range(8):
        scvtf4s(k, k)
        fmul4s(k, k, 8)
    ins("VST1.P", "[V0.S4, V1.S4, V2.S4, V3.S4], 64(R1)")
    ins("VST1.P", "[V4.S4, V5.S4, V6.S4, V7.S4], 64(R1)")
    ins("SUBS", "$1, R11")
    ins("BNE", "blocks")
    ins("RET")
    e()


def dequant_q4k(q5):
    name = "dequantQ5KNEON" if q5 else "dequantQ4KNEON"
    bb, qs = (176, 48) if q5 else (144, 16)
    e("// func %s(y *float32, w *byte, nb int)" % name)
    e("TEXT ·%s(SB), NOSPLIT, $0-24" % name)
    ins("MOVD", "y+0(FP), R1")
    ins("MOVD", "w+8(FP), R7")
    ins("MOVD", "nb+16(FP), R11")
    ins("VMOVI", "$15, V31.B16")
    if q5:
        ins("VMOVI", "$16, V14.B16")
    e("blocks:")
    q4k_scales()
    fmul4s(29, 29, 24)
    fmul4s(30, 30, 24)
    fmul4s(27, 27, 25)
    fmul4s(28, 28, 25)
    fneg4s(27, 27)
    fneg4s(28, 28)
    if q5:
        ins("ADD", "$16, R7, R12")
        ins("VLD1", "(R12), [V12.B16, V13.B16]", c="qh")
    ins("ADD", "$%d, R7, R12" % qs)
    for j in range(4):
        ins("VLD1.P", "32(R12), [V16.B16, V17.B16]", c="nibbles of sub-blocks %d, %d" % (2 * j, 2 * j + 1))
        for half in range(2):
            sb = 2 * j + half
            if half == 0:
                ins("VAND", "V31.B16, V16.B16, V18.B16")
                ins("VAND", "V31.B16, V17.B16, V19.B16")
            else:
                ins("VUSHR", "$4, V16.B16, V18.B16")
                ins("VUSHR", "$4, V17.B16, V19.B16")
            if q5:
                high_bit(18, 12, sb, 15)
                high_bit(19, 13, sb, 15)
            widen_u8(18, 19)
            ins("VDUP", "V%d.S[%d], V8.S4" % (29 + sb // 4, sb % 4), c="d·sc[%d]" % sb)
            ins("VDUP", "V%d.S[%d], V9.S4" % (27 + sb // 4, sb % 4), c="−dmin·m[%d]" % sb)
            store_fma32()
    ins("ADD", "$%d, R7" % bb)
    ins("SUBS", "$1, R11")
    ins("BNE", "blocks")
    ins("RET")
    e()


def dequant_q6k():
    e("// func dequantQ6KNEON(y *float32, w *byte, nb int)")
    e("TEXT ·dequantQ6KNEON(SB), NOSPLIT, $0-24")
    ins("MOVD", "y+0(FP), R1")
    ins("MOVD", "w+8(FP), R7")
    ins("MOVD", "nb+16(FP), R11")
    ins("VMOVI", "$15, V29.B16")
    ins("VMOVI", "$48, V30.B16")
    ins("VMOVI", "$32, V31.B16")
    e("blocks:")
    ins("MOVHU", "208(R7), R13", c="f16 d")
    ins("VMOV", "R13, V28.H[0]")
    fcvtl4s(28, 28)
    ins("VDUP", "V28.S[0], V28.S4")
    for h in range(2):
        ins("ADD", "$%d, R7, R12" % (64 * h))
        ins("VLD1", "(R12), [V0.B16, V1.B16, V2.B16, V3.B16]", c="ql")
        ins("ADD", "$%d, R7, R12" % (128 + 32 * h))
        ins("VLD1", "(R12), [V4.B16, V5.B16]", c="qh")
        ins("FMOVD", "%d(R7), F12" % (192 + 8 * h), c="8 int8 scales")
        sxtl8h(12, 12)
        sxtl4s(26, 12)
        sxtl4s(27, 12, upper=True)
        scvtf4s(26, 26)
        scvtf4s(27, 27)
        fmul4s(26, 26, 28, )
        fmul4s(27, 27, 28)
        for k in range(4):
            for r in range(2):
                lo, hq, g = (r if k in (0, 2) else 2 + r), 4 + r, 2 * k + r
                if k < 2:
                    ins("VAND", "V29.B16, V%d.B16, V22.B16" % lo)
                else:
                    ins("VUSHR", "$4, V%d.B16, V22.B16" % lo)
                if k == 2:
                    ins("VAND", "V30.B16, V%d.B16, V23.B16" % hq)
                else:
                    if k < 2:
                        ins("VSHL", "$%d, V%d.B16, V23.B16" % (4 - 2 * k, hq))
                    else:
                        ins("VUSHR", "$2, V%d.B16, V23.B16" % hq)
                    ins("VAND", "V30.B16, V23.B16, V23.B16")
                ins("VORR", "V23.B16, V22.B16, V22.B16")
                ins("VSUB", "V31.B16, V22.B16, V22.B16", c="q − 32")
                sxtl8h(16, 22)
                sxtl8h2(17, 22)
                sxtl4s(18, 16)
                sxtl4s(19, 16, upper=True)
                sxtl4s(20, 17)
                sxtl4s(21, 17, upper=True)
                ins("VDUP", "V%d.S[%d], V8.S4" % (26 + g // 4, g % 4), c="d·sc of group %d" % g)
                for v in range(18, 22):
                    scvtf4s(v, v)
                    fmul4s(v, v, 8)
                ins("VST1.P", "[V18.S4, V19.S4, V20.S4, V21.S4], 64(R1)")
    ins("ADD", "$210, R7")
    ins("SUBS", "$1, R11")
    ins("BNE", "blocks")
    ins("RET")
    e()


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    header()
    if what == "gemv":
        e(GEMV_DOC)
        e()
        gemv_f32()
        gemv_bf16()
        gemv_f16()
        widen_f16()
        peak()
        vec()
        e(GEMM_DOC)
        e()
        gemm4x4(False)
        gemm4x4(True)
        e(MMLA_DOC)
        e()
        gemm4x4_mmla()
        bfmmla_peak()
        gemm_nn()
    elif what == "quant":
        global EMU
        e(Q8_DOC)
        gemv_q8_0()
        e(KQ_DOC)
        gemv_q4k(False)
        gemv_q4k(True)
        e(Q6K_DOC)
        gemv_q6k()
        e(EMU_DOC)
        e()
        EMU = 25  # free in Q8_0 (V24 is the row's sum)
        gemv_q8_0()
        EMU = 12  # free in Q4_K
        gemv_q4k(False)
        EMU = 15  # Q5_K's high-bit temporary, free once a pair's bits are in
        gemv_q4k(True)
        EMU = 23  # Q6_K's high bits, free once ORR'd into the weights
        gemv_q6k()
        e(DQ_DOC)
        e()
        dequant_q8_0()
        dequant_q4k(False)
        dequant_q4k(True)
        dequant_q6k()
        quantize_x()
        e(Q8MM_DOC)
        e()
        gemm_q8_mmla()
    elif what == "norm":
        norm()
    else:
        sys.exit("usage: gen.py gemv|quant|norm")
    undef()
    print("\n".join(out).rstrip("\n"))


main()
