#!/usr/bin/env python3
"""Writes kernels/gemmnn_amd64.s: the broadcast tiles of Y = X·B
(gemmNN32x12AVX512 and its twins of 4 to 11 tokens, gemmNN16x6AVX2)
and the packers that turn rows of W into B (packT32BF16AVX512,
packT32F32AVX512, packT16BF16AVX2, packT16F32AVX2).

Run `python3 tools/quantasm/gemmnn_amd64.py > kernels/gemmnn_amd64.s`
after editing. The four tiles are one description, nn_tile(): two vectors
of B a column, one broadcast and two FMAs a token, for T tokens at
either level (avx.py). Each pair of packers is one description with the
element type as a parameter: transpose16() (AVX-512, four stages of
shuffles) and transpose8() (AVX2). The Go twins are gemmNNGo and the
packers' loops in gemmnn_amd64_test.go.
"""

from avx import Asm, AVX2, AVX512

a = Asm()


def ins(op, *args, c=""):
    a.ins(op, *args, c=c)


X_BASES = ["DI", "R8", "R9", "R10"]  # x rows 0, 3, 6, 9: the rest through the stride


def x_rows(T):
    """The operands of x[t][c] for t < T, addressed in threes from
    X_BASES with R11 = ldx in bytes."""
    return ["(%s)%s" % (X_BASES[t // 3], ("", "(R11*1)", "(R11*2)")[t % 3]) for t in range(T)]


def regs_of(isa):
    """Sums from v0 on, b[c] in v(b), v(b+1), broadcasts after them:
    12 sums, b and 2 broadcasts fill AVX2's 16 registers, 24 sums, b and
    6 broadcasts AVX-512's 32."""
    n = 16 if isa is AVX2 else 32
    b = 12 if isa is AVX2 else 24
    return b, n - b - 2


def nn_args(T):
    """SI = b, BX = ldb, DI… = the x rows, R11 = ldx (bytes), CX = k."""
    ins("MOVQ", "b+16(FP)", "SI")
    ins("MOVQ", "ldb+24(FP)", "BX")
    ins("SHLQ", "$2", "BX", c="row stride of b in bytes")
    ins("MOVQ", "x+32(FP)", "DI", c="x row 0")
    ins("MOVQ", "ldx+40(FP)", "R11")
    ins("SHLQ", "$2", "R11", c="row stride of x in bytes")
    bases = X_BASES[:(T + 2) // 3]
    for g in range(1, len(bases)):
        ins("LEAQ", "(%s)(R11*2)" % bases[g - 1], bases[g])
        ins("ADDQ", "R11", bases[g], c="x row %d" % (3 * g))
    ins("MOVQ", "k+48(FP)", "CX")
    return bases


def out_args():
    """DX = out, R12 = ldo in bytes."""
    ins("MOVQ", "out+0(FP)", "DX")
    ins("MOVQ", "ldo+8(FP)", "R12")
    ins("SHLQ", "$2", "R12", c="row stride of out in bytes")


def prefetch_out(T):
    """out[t][0:32] (128 bytes, up to 3 lines when unaligned) for t < T
    into L1 before the column loop, which outlasts the miss."""
    a.comment("""\
out[t][0:32] (128 bytes, up to 3 lines when unaligned) for each token,
requested into L1 before the column loop, which outlasts the miss,
instead of stalling the stores after it. Every column block reads and
writes all of out (n × rows floats, 18 MB at n = 512 on 8960 × 1536):
there this took 201-205 GFLOP/s to 226-229; on shapes whose out stays
in cache it is within noise.""", wrap=False)
    for t in range(T):
        for off in (0, 64, 124):
            ins("PREFETCHT0", "%d(DX)" % off if off else "(DX)",
                c="out[%d][0:32]" % t if off == 0 else "")
        ins("ADDQ", "R12", "DX")


def store_sums(isa, T, accum):
    """out[t][0:2·lanes] = s(t) (+= when accum) for t < T, DX moving on
    a row each token."""
    w = 2 * isa.lanes
    for t in range(T):
        sa, sb = isa.v(2 * t), isa.v(2 * t + 1)
        if accum:
            ins("VADDPS", "(DX)", sa, sa, c="out[%d][0:%d] += s(%d)" % (t, w, t))
            ins("VADDPS", "%d(DX)" % isa.bytes, sb, sb)
        ins("VMOVUPS", sa, "(DX)", c="" if accum else "out[%d][0:%d] = s(%d)" % (t, w, t))
        ins("VMOVUPS", sb, "%d(DX)" % isa.bytes)
        ins("ADDQ", "R12", "DX", c="out row %d" % (t + 1))
    a.ret()


def nn_tile(isa, T, name, lbl, doc, prefetch=False):
    """The broadcast tile of T tokens × 2 vectors of outputs: sums
    v(2t), v(2t+1) of token t; per column c, b[c] in two vectors, then
    for each token x[t][c] broadcast (into one of the broadcast
    registers, in turn) and two FMAs. Any k ≥ 0."""
    b, nbc = regs_of(isa)
    w = 2 * isa.lanes
    a.text(name, 64, doc, wrap=False)
    bases = nn_args(T)
    if prefetch:
        out_args()
        prefetch_out(T)
    for i in range(2 * T):
        ins(isa.bitxor, isa.v(i), isa.v(i), isa.v(i),
            c="s(t, j) = 0 for t < %d, j < %d" % (T, w) if i == 0 else "")
    ins("TESTQ", "CX", "CX")
    ins("JE", lbl + "store")
    a.label(lbl + "loop")
    ins("VMOVUPS", "(SI)", isa.v(b), c="b[c][0:%d]" % isa.lanes)
    ins("VMOVUPS", "%d(SI)" % isa.bytes, isa.v(b + 1), c="b[c][%d:%d]" % (isa.lanes, w))
    for t, x in enumerate(x_rows(T)):
        bc = isa.v(b + 2 + t % nbc)
        ins("VBROADCASTSS", x, bc, c="x[%d][c]" % t)
        ins("VFMADD231PS", isa.v(b), bc, isa.v(2 * t), c="s(%d) += b[c]·x[%d][c]" % (t, t))
        ins("VFMADD231PS", isa.v(b + 1), bc, isa.v(2 * t + 1))
    ins("ADDQ", "BX", "SI", c="b row c+1")
    for i, p in enumerate(bases):
        ins("ADDQ", "$4", p, c="x columns c+1" if i == 0 else "")
    ins("DECQ", "CX")
    ins("JNZ", lbl + "loop")
    a.label(lbl + "store")
    out_args()
    ins("MOVQ", "accum+56(FP)", "AX")
    ins("TESTQ", "AX", "AX")
    ins("JNZ", lbl + "accum")
    store_sums(isa, T, False)
    a.label(lbl + "accum")
    store_sums(isa, T, True)


NN_LOOP = """\
\tfor t := range %d {
\t\tfor j := range %d {
\t\t\tvar s float32
\t\t\tfor c := range k { s = fma(x[t*ldx+c], b[c*ldb+j], s) }
\t\t\t%s
\t\t}
\t}
"""

NN_SIG = "func %s(out *float32, ldo int, b *float32, ldb int, x *float32, ldx int, k int, accum int)\n\n"


def nn_tiles():
    a.e()
    a.comment("""\
Register plan of gemmNN32x12AVX512: 24 sums Z0..Z23 (token t: Z(2t) holds
outputs j = 0..15, Z(2t+1) j = 16..31), b[c][0:32] in Z24/Z25,
broadcasts of x[t][c] in Z26..Z31 (six in flight, reused every six
tokens). Per column c: 2 vector loads, 12 broadcast loads, 24 FMAs.
SI = &b[c][0], BX = ldb in bytes, DI = &x[0][c] (x[1], x[2] at +ldx,
+2·ldx), R8, R9, R10 = &x[3][c], &x[6][c], &x[9][c], R11 = ldx in
bytes, CX = columns left, DX = &out[t][0], R12 = ldo in bytes.""", wrap=False)
    nn_tile(AVX512, 12, "gemmNN32x12AVX512", "nn", NN_SIG % "gemmNN32x12AVX512"
            + NN_LOOP % (12, 32, "if accum != 0 { out[t*ldo+j] += s } else { out[t*ldo+j] = s }") + """
Any k ≥ 0 (k = 0 gives s = 0). The finished sum is added to out, never
loaded into the sums, so a tile computed into scratch and added by Go
(put) is bit-identical to one computed in place.""", prefetch=True)
    for T in (11, 10, 9):
        nn_tile(AVX512, T, "gemmNN32x%dAVX512" % T, "nn%d" % T, NN_SIG % ("gemmNN32x%dAVX512" % T) + """\
gemmNN32x12AVX512 for t < %d: the leftover tokens of a panel, one tile
for all of them. Sums Z0..Z%d.""" % (T, 2 * T - 1))
    nn_tile(AVX512, 8, "gemmNN32x8AVX512", "nn8", NN_SIG % "gemmNN32x8AVX512" + """\
gemmNN32x12AVX512 for t < 8: the leftover tokens of a panel (8 FMAs per
column and token pair of loads, still FMA-bound). Sums Z0..Z15.""")
    for T in (7, 6, 5):
        nn_tile(AVX512, T, "gemmNN32x%dAVX512" % T, "nn%d" % T, NN_SIG % ("gemmNN32x%dAVX512" % T) + """\
gemmNN32x12AVX512 for t < %d. Sums Z0..Z%d.""" % (T, 2 * T - 1))
    nn_tile(AVX512, 4, "gemmNN32x4AVX512", "nn4", NN_SIG % "gemmNN32x4AVX512" + """\
gemmNN32x12AVX512 for t < 4. Sums Z0..Z7: eight independent FMA chains,
just enough to cover the FMA latency on two pipes.""")
    nn_tile(AVX2, 6, "gemmNN16x6AVX2", "nn2", NN_SIG % "gemmNN16x6AVX2"
            + NN_LOOP % (6, 16, "out[t*ldo+j] = s  // += s when accum != 0") + """
The broadcast tile in 16 AVX2 registers: 12 sums Y0..Y11 (token t:
Y(2t) outputs 0..7, Y(2t+1) 8..15), b[c][0:16] in Y12/Y13, broadcasts
in Y14/Y15. Per column: 2 vector loads, 6 broadcasts, 12 FMAs. Any
k ≥ 0.""")


# ---------------------------------------------------------------- AVX-512 packers
# DI = &dst[c][16h], SI = &src[16h][c] (rows +1, +2, +3 through R11 = lds
# and R12 = 3·lds, in bytes), R8, R9, R10 = rows 16h+4, +8, +12, CX =
# columns left in this half, R13 = halves left, AX = &dst[0][16h].

SRC_ROWS = ["(%s)%s" % (base, sub) for base in ("SI", "R8", "R9", "R10")
            for sub in ("", "(R11*1)", "(R11*2)", "(R12*1)")]


def transpose16():
    """Rows Z0..Z15 become columns Z0..Z15 (Z16..Z31 scratch), the four
    stages of the comment above packT32BF16AVX512."""
    for i in range(8):  # stage 1: rows (2i, 2i+1)
        ra, rb, ta, tb = 2 * i, 2 * i + 1, 16 + 2 * i, 17 + 2 * i
        ins("VUNPCKLPS", "Z%d" % rb, "Z%d" % ra, "Z%d" % ta, c="stage 1" if i == 0 else "")
        ins("VUNPCKHPS", "Z%d" % rb, "Z%d" % ra, "Z%d" % tb)
    for g in range(4):  # stage 2: the four columns e of row group g
        t0, t1, t2, t3 = (16 + 4 * g + i for i in range(4))
        u = 4 * g
        ins("VUNPCKLPD", "Z%d" % t2, "Z%d" % t0, "Z%d" % u, c="stage 2" if g == 0 else "")
        ins("VUNPCKHPD", "Z%d" % t2, "Z%d" % t0, "Z%d" % (u + 1))
        ins("VUNPCKLPD", "Z%d" % t3, "Z%d" % t1, "Z%d" % (u + 2))
        ins("VUNPCKHPD", "Z%d" % t3, "Z%d" % t1, "Z%d" % (u + 3))
    for e in range(4):  # stage 3: e-registers of the row groups 0..3
        ua, ub, uc, ud = e, 4 + e, 8 + e, 12 + e
        lo01, lo23, hi01, hi23 = (16 + 4 * e + i for i in range(4))
        ins("VSHUFF32X4", "$0x44", "Z%d" % ub, "Z%d" % ua, "Z%d" % lo01, c="stage 3" if e == 0 else "")
        ins("VSHUFF32X4", "$0x44", "Z%d" % ud, "Z%d" % uc, "Z%d" % lo23)
        ins("VSHUFF32X4", "$0xee", "Z%d" % ub, "Z%d" % ua, "Z%d" % hi01)
        ins("VSHUFF32X4", "$0xee", "Z%d" % ud, "Z%d" % uc, "Z%d" % hi23)
    for e in range(4):  # stage 4: columns e, 4+e, 8+e, 12+e
        lo01, lo23, hi01, hi23 = (16 + 4 * e + i for i in range(4))
        ins("VSHUFF32X4", "$0x88", "Z%d" % lo23, "Z%d" % lo01, "Z%d" % e, c="stage 4" if e == 0 else "")
        ins("VSHUFF32X4", "$0xdd", "Z%d" % lo23, "Z%d" % lo01, "Z%d" % (4 + e))
        ins("VSHUFF32X4", "$0x88", "Z%d" % hi23, "Z%d" % hi01, "Z%d" % (8 + e))
        ins("VSHUFF32X4", "$0xdd", "Z%d" % hi23, "Z%d" % hi01, "Z%d" % (12 + e))


def load16(mov, reg, c):
    """The 16 rows of this half into reg 0..15 (VMOVDQU32 / VMOVUPS of
    64 bytes into Z, or VMOVDQU of 32 into Y with the upper lanes
    zeroed)."""
    for i, row in enumerate(SRC_ROWS):
        ins(mov, row, "%s%d" % (reg, i), c=c if i == 0 else "")


def widen_pairs(n):
    """Z(q), q < n, holds for the half's 16 rows the bf16 pair of columns
    (c+2q, c+2q+1) as one 32-bit lane (low half the even column):
    dst[c+2q][16h:] = float32(even) by a shift, dst[c+2q+1][16h:] =
    float32(odd) by the mask 0xffff0000, set in Z31 first (the
    transpose used Z31 as scratch)."""
    ins("VPTERNLOGD", "$0xff", "Z31", "Z31", "Z31", c="Z31 = 0xffff0000 in every lane")
    ins("VPSLLD", "$16", "Z31", "Z31")
    for q in range(n):
        ins("VPSLLD", "$16", "Z%d" % q, "Z16", c="dst[c+%d], dst[c+%d]" % (2 * q, 2 * q + 1))
        ins("VPANDD", "Z31", "Z%d" % q, "Z%d" % q)
        ins("VMOVUPS", "Z16", "%d(DI)" % (256 * q) if q else "(DI)")
        ins("VMOVUPS", "Z%d" % q, "%d(DI)" % (256 * q + 128))


def advance_src(cols):
    ins("ADDQ", "$64", "SI", c="src columns c+%d" % cols)
    for p in ("R8", "R9", "R10"):
        ins("ADDQ", "$64", p)


def pack_t32(bf16):
    """packT32BF16AVX512 / packT32F32AVX512: two halves of 16 rows, each
    a loop of 16 × 16 transposes of 64-byte row pieces (32 bf16 columns
    widened after the transpose, or 16 float32 ones)."""
    name, l = ("packT32BF16AVX512", "pb") if bf16 else ("packT32F32AVX512", "pf")
    a.text(name, 32, DOC_T32[bf16], wrap=False)
    ins("MOVQ", "dst+0(FP)", "DI")
    ins("MOVQ", "src+8(FP)", "SI")
    ins("MOVQ", "lds+16(FP)", "R11")
    ins("SHLQ", "$1" if bf16 else "$2", "R11", c="row stride in bytes")
    ins("LEAQ", "(R11)(R11*2)", "R12", c="3 rows")
    ins("MOVQ", "$2", "R13", c="halves: rows 0..15, 16..31")
    a.label(l + "half")
    ins("LEAQ", "(SI)(R11*4)", "R8", c="rows 16h+4, +8, +12")
    ins("LEAQ", "(R8)(R11*4)", "R9")
    ins("LEAQ", "(R9)(R11*4)", "R10")
    ins("MOVQ", "k+24(FP)", "CX")
    ins("MOVQ", "DI", "AX", c="dst[0][16h]: this half's first block")
    if bf16:
        ins("CMPQ", "CX", "$32")
        ins("JL", l + "tail")
    else:
        ins("TESTQ", "CX", "CX")
        ins("JE", l + "next")
    a.label(l + "loop")
    if bf16:
        load16("VMOVDQU32", "Z", "rows 16h..16h+15, columns c..c+31")
        transpose16()
        widen_pairs(16)
        ins("ADDQ", "$4096", "DI", c="dst row c+32")
        advance_src(32)
        ins("SUBQ", "$32", "CX")
        ins("CMPQ", "CX", "$32")
        ins("JGE", l + "loop")
        a.label(l + "tail")
        ins("TESTQ", "CX", "CX")
        ins("JE", l + "next")
        load16("VMOVDQU", "Y", "columns c..c+15, upper lanes 0")
        transpose16()
        widen_pairs(8)
    else:
        load16("VMOVUPS", "Z", "rows 16h..16h+15, columns c..c+15")
        transpose16()
        for i in range(16):
            ins("VMOVUPS", "Z%d" % i, "%d(DI)" % (128 * i) if i else "(DI)",
                c="dst[c+i][16h:16h+16] = Z(i), rows 128 bytes apart" if i == 0 else "")
        ins("ADDQ", "$2048", "DI", c="dst row c+16")
        advance_src(16)
        ins("SUBQ", "$16", "CX")
        ins("JNZ", l + "loop")
    a.label(l + "next")
    ins("LEAQ", "64(AX)", "DI", c="dst[0][16]: second half")
    ins("MOVQ", "src+8(FP)", "SI")
    ins("LEAQ", "(SI)(R11*8)", "SI")
    ins("LEAQ", "(SI)(R11*8)", "SI", c="src row 16")
    ins("DECQ", "R13")
    ins("JNZ", l + "half")
    a.ret()


DOC_T32 = {True: """\
func packT32BF16AVX512(dst *float32, src *BF16, lds int, k int)

\tfor c := range k { for j := range 32 { dst[c*32+j] = src[j*lds+c].Float32() } }

k a multiple of 16. The 32 rows go as two halves of 16 (j < 16, then
16 ≤ j < 32). A pair of bf16 columns is one 32-bit lane, so one 16 × 16
transpose of 64-byte row pieces turns 32 columns around, and the pairs
are widened after it by shift (even column) and mask (odd): 64 shuffles
per 512 values, where widening first (VPMOVZXWD, itself a shuffle) and
transposing 16 columns at a time took 160: a 32 × 256 panel in L1 packs
in 232 ns instead of 321 (BenchmarkPackT32). In the whole product the
difference is within noise: there the packer waits on W's cache misses.
A last 16 columns (k not a multiple of 32) go through the same steps
from 32-byte pieces.""", False: """\
func packT32F32AVX512(dst *float32, src *float32, lds int, k int)

\tfor c := range k { for j := range 32 { dst[c*32+j] = src[j*lds+c] } }

packT32BF16AVX512 without the widening; k a multiple of 16."""}


# ---------------------------------------------------------------- AVX2 packers

def transpose8():
    """The 8 × 8 floats in rows Y0..Y7 become columns in Y8..Y15: unpack
    pairs of rows, shuffle pairs of pairs, then swap 128-bit halves."""
    r = ["Y%d" % i for i in range(8)]
    t = ["Y%d" % (8 + i) for i in range(8)]
    for i in range(4):
        ins("VUNPCKLPS", r[2 * i + 1], r[2 * i], t[2 * i], c="transpose: pairs of rows" if i == 0 else "")
        ins("VUNPCKHPS", r[2 * i + 1], r[2 * i], t[2 * i + 1])
    for g in (0, 4):
        for j in range(2):
            ins("VSHUFPS", "$0x44", t[g + 2 + j], t[g + j], r[g + 2 * j],
                c="pairs of pairs" if g + j == 0 else "")
            ins("VSHUFPS", "$0xEE", t[g + 2 + j], t[g + j], r[g + 2 * j + 1])
    for imm, half in (("$0x20", 0), ("$0x31", 4)):
        for i in range(4):
            ins("VPERM2F128", imm, r[4 + i], r[i], t[half + i],
                c="128-bit halves: t0..t7 = columns 0..7" if imm == "$0x20" and i == 0 else "")


def pack_t16(bf16):
    """packT16BF16AVX2 / packT16F32AVX2: 8 columns of 16 rows a turn, as
    two 8 × 8 transposes (rows 0-7, then 8-15 of W)."""
    name, l = ("packT16BF16AVX2", "pk2b") if bf16 else ("packT16F32AVX2", "pk2f")
    a.text(name, 32, DOC_T16[bf16], wrap=False)
    ins("MOVQ", "dst+0(FP)", "DI")
    ins("MOVQ", "src+8(FP)", "SI")
    ins("MOVQ", "lds+16(FP)", "R8")
    ins("SHLQ", "$1" if bf16 else "$2", "R8", c="row stride in bytes")
    ins("LEAQ", "(R8)(R8*2)", "R9", c="3 rows")
    ins("MOVQ", "k+24(FP)", "CX")
    ins("SHRQ", "$3", "CX", c="groups of 8 columns")
    ins("JZ", l + "done")
    a.label(l + "loop")
    ins("LEAQ", "(SI)(R8*4)", "R10", c="row 4")
    ins("LEAQ", "(R10)(R8*4)", "R11", c="row 8")
    ins("LEAQ", "(R11)(R8*4)", "R12", c="row 12")
    for h, bases in enumerate((("SI", "R10"), ("R11", "R12"))):
        rows = ["(%s)%s" % (b, s) for b in bases for s in ("", "(R8*1)", "(R8*2)", "(R9*1)")]
        for i, p in enumerate(rows):
            y = "Y%d" % i
            c = "row %d" % (8 * h + i) if i == 0 else ""
            if bf16:
                ins("VPMOVZXWD", p, y, c=c + ": 8 bf16 widened")
                ins("VPSLLD", "$16", y, y)
            else:
                ins("VMOVUPS", p, y, c=c)
        transpose8()
        for i in range(8):
            off = 32 * h + 64 * i
            ins("VMOVUPS", "Y%d" % (8 + i), "%d(DI)" % off if off else "(DI)",
                c="dst[c+i][%d:%d] = column i" % (8 * h, 8 * h + 8) if i == 0 else "")
    ins("ADDQ", "$16" if bf16 else "$32", "SI", c="8 columns of src")
    ins("ADDQ", "$512", "DI", c="8 rows of dst")
    ins("DECQ", "CX")
    ins("JNZ", l + "loop")
    a.label(l + "done")
    a.ret()


DOC_T16 = {True: """\
func packT16BF16AVX2(dst *float32, src *BF16, lds int, k int)

\tfor c := range k { for j := range 16 { dst[c*16+j] = src[j*lds+c].Float32() } }

The AVX2 packer: 8 columns of 16 rows at a time, as two 8 × 8
transposes in registers. k is a multiple of 8.""", False: """\
func packT16F32AVX2(dst *float32, src *float32, lds int, k int)

packT16BF16AVX2 for float32 rows. k is a multiple of 8."""}


a.header("gemmnn_amd64.py", """\
The outer-product ("broadcast") micro-kernel for Y = X·B (gemmnn.go) and
the packers that turn rows of W into its B operand, so that prefill
Y = X·Wᵀ runs on it too (B = Wᵀ, one 32-row panel of W at a time).

The dot-product tiles of gemm_amd64.s put the lanes along the columns of
W and X and end every output in a horizontal sum. Here the lanes run
along the outputs of a token: a vector of B (16 consecutive outputs j
at one column c) is multiplied by x[t][c] broadcast to every lane, so each
output is one sequential sum over c, finished in its lane, with no
reduction at the end. The same tile in AVX2's 16 registers
(gemmNN16x6AVX2) runs MatMulNN at that level.""", wrap=False)
nn_tiles()
a.e()
a.comment("""\
The packers transpose 16 rows × 16 lanes of 32 bits at a time in
registers, the classic 4-stage transpose (64 shuffles).
Rows r0..r15 arrive in Z0..Z15; a 128-bit block q of a register holds
lanes 4q..4q+3.

 1. VUNPCKL/HPS of rows (2i, 2i+1) → Z16..Z31: pairs of rows per lane pair.
 2. VUNPCKL/HPD of those → Z(4g+e), g, e < 4: block q holds rows
    4g..4g+3 of column 4q+e.
 3. VSHUFF32X4 0x44 / 0xEE of groups (0,1) and (2,3) → Z16..Z31: blocks
    of columns e, 4+e (0x44) or 8+e, 12+e (0xEE) for two row groups.
 4. VSHUFF32X4 0x88 / 0xDD → Z(c) = column c, all 16 rows, for c < 16.""", wrap=False)
pack_t32(True)
pack_t32(False)
pack_t16(True)
pack_t16(False)
a.print()
