#!/usr/bin/env python3
"""Writes kernels/gemm_amd64.s: the dot-product tiles of Y = X·Wᵀ
(gemm4x3F32AVX2, gemm4x6F32AVX512, gemm8x3F32AVX512, gemm8x3BF16DP),
roundBF16DP and prefetch4.

Run `python3 tools/quantasm/gemm_amd64.py > kernels/gemm_amd64.s` after
editing. Every tile is one description, dot_step(): the R·T FMAs of a
vector step with the rows of w loaded P registers ahead, whatever the
level (AVX2 4 × 3, AVX-512 4 × 6 and 8 × 3) or the product (VFMADD231PS
on float32, VDPBF16PS on bf16 pairs), and the 4-row twins of the two
levels are one function, gemm4(isa). What differs between the levels is
the addressing (an index for AVX2, pointers for AVX-512) and the
horizontal sum (hsum_y, hsum_z). The reference loop is the file's
comment; matMulF32Generic and matMulBF16Generic (gemm_generic.go) are
the readable Go product.
"""

from avx import Asm, AVX2, AVX512, byte_code, vdpbf16ps, vcvtneps2bf16

a = Asm()


def ins(op, *args, c=""):
    a.ins(op, *args, c=c)


def threes(bases, ld):
    """The operands of rows 0, 1, 2, … addressed in threes: row i is
    bases[i // 3] plus 0, 1 or 2 strides (ld, a register of bytes)."""
    return ["(%s)%s" % (bases[i // 3], ("", "(%s*1)" % ld, "(%s*2)" % ld)[i % 3])
            for i in range(3 * len(bases))]


def every_third(bases, ld, what):
    """bases[g] = bases[g-1] + 3·ld for g ≥ 1: the base of row 3g."""
    for g in range(1, len(bases)):
        ins("LEAQ", "(%s)(%s*2)" % (bases[g - 1], ld), bases[g])
        ins("ADDQ", ld, bases[g], c="%s row %d" % (what, 3 * g))


def zero(isa, n, c):
    """s = 0 in the n sums v0..v(n-1)."""
    for i in range(n):
        ins(isa.bitxor, isa.v(i), isa.v(i), isa.v(i), c=c if i == 0 else "")


def fma(w, x, s, t, r):
    ins("VFMADD231PS", w, x, s, c="s(%d,%d) += w%d * x%d" % (t, r, r, t))


def dpbf16(w, x, s, t, r):
    """s += pairs of bf16 w·x, as EVEX bytes with the mnemonic beside."""
    n = [int(v[1:]) for v in (w, x, s)]
    a.e("\t%s // VDPBF16PS %s, %s, %s: s(%d,%d) += w%d · x%d"
        % (byte_code(vdpbf16ps(*n)), w, x, s, t, r, r, t))


def dot_step(isa, xs, ws, P, load, madd, lanes):
    """One vector step of a tile of R = len(ws) rows of w and T = len(xs)
    tokens of x (operands of row c): x rows into v(R·T)…, w rows P at a
    time into the P registers after them, each w row loaded again over
    the one whose R FMAs are done; sum s(t, r) is v(t·R + r)."""
    T, R = len(xs), len(ws)
    xr, wr = R * T, R * T + T
    for t in range(T):
        ins(load, xs[t], isa.v(xr + t), c="x%d[c:c+%d]" % (t, lanes))

    def load_w(r):
        ins(load, ws[r], isa.v(wr + r % P), c="w%d[c:c+%d]" % (r, lanes))
    for r in range(P):
        load_w(r)
    for r in range(R):
        for t in range(T):
            madd(isa.v(wr + r % P), isa.v(xr + t), isa.v(t * R + r), t, r)
        if r + P < R:
            load_w(r + P)


def hsum_y(s, xa, xs, c):
    """X(xa) = [ΣY(s), ΣY(s+1), ΣY(s+2), ΣY(s+3)] for 8-lane sums (the
    same tree as gemv's hsum4), X(xs) scratch."""
    ins("VHADDPS", "Y%d" % (s + 1), "Y%d" % s, "Y%d" % s, c=c)
    ins("VHADDPS", "Y%d" % (s + 3), "Y%d" % (s + 2), "Y%d" % (s + 2))
    ins("VHADDPS", "Y%d" % (s + 2), "Y%d" % s, "Y%d" % s)
    ins("VEXTRACTF128", "$1", "Y%d" % s, "X%d" % xs)
    ins("VADDPS", "X%d" % xs, "X%d" % xa, "X%d" % xa)


def hsum_z(zs, c):
    """X(zs[0]) = [ΣZ(z) for z in zs] for 16-lane sums in Z0..Z15: each
    folded to 8 lanes (through Z24), then hsum_y's tree."""
    for z in zs:
        ins("VEXTRACTF64X4", "$1", "Z%d" % z, "Y24", c=c if z == zs[0] else "")
        ins("VADDPS", "Z24", "Z%d" % z, "Z%d" % z)
    za, zb, zc, zd = zs
    ins("VHADDPS", "Y%d" % zb, "Y%d" % za, "Y%d" % za)
    ins("VHADDPS", "Y%d" % zd, "Y%d" % zc, "Y%d" % zc)
    ins("VHADDPS", "Y%d" % zc, "Y%d" % za, "Y%d" % za)
    ins("VEXTRACTF32X4", "$1", "Z%d" % za, "X24")
    ins("VADDPS", "Z24", "Z%d" % za, "Z%d" % za)


def reduce_z(T, R):
    """The horizontal sums of a T × R AVX-512 tile, four rows of a token
    at a time: returns (X register, token, first row) per group. Sums in
    Z16 and up move first to registers VEX can name, the ones that the
    earlier groups' sums no longer need."""
    groups = []
    for s in range(0, min(T * R, 16), 4):
        hsum_z(range(s, s + 4), "X%d = token %d, rows %d..%d" % (s, s // R, s % R, s % R + 3))
        groups.append((s, s // R, s % R))
    free = [z for z in range(16) if z % 4]
    for i, s in enumerate(range(16, T * R)):
        ins("VMOVAPS", "Z%d" % s, "Z%d" % free[i],
            c="sums Z16..Z%d move to VEX-reachable registers" % (T * R - 1) if i == 0 else "")
    for g, s in enumerate(range(16, T * R, 4)):
        zs = free[4 * g:4 * g + 4]
        hsum_z(zs, "X%d = token %d, rows %d..%d" % (zs[0], s // R, s % R, s % R + 3))
        groups.append((zs[0], s // R, s % R))
    return groups


def store4(xa, addr, c=""):
    """out[addr:addr+4] = X(xa), or += when accum (R12) is set."""
    ins("TESTQ", "R12", "R12", c=c)
    ins("JZ", "2(PC)", c="accum == 0: skip the add")
    ins("VADDPS", addr, "X%d" % xa, "X%d" % xa)
    ins("VMOVUPS", "X%d" % xa, addr)


def out_args(out="MOVQ out+0(FP), DX"):
    """DX = out, BX = ldo in bytes, R12 = accum."""
    op, args = out.split(" ", 1)
    ins(op, *args.split(", "))
    ins("MOVQ", "ldo+8(FP)", "BX")
    ins("SHLQ", "$2", "BX")
    ins("MOVQ", "accum+56(FP)", "R12")


def store_groups(groups, outs):
    """store4 of each (X register, token, first row) at token's out row
    outs[token] plus the row's offset."""
    for xa, t, r in groups:
        addr = outs[t] if r == 0 else "%d%s" % (4 * r, outs[t])
        store4(xa, addr, c="out[%d][%d:%d] (+)= X%d" % (t, r, r + 4, xa))


TILE_DOC = """\
func %s(out *float32, ldo int, w *float32, ldw int, x *float32, ldx int, k int, accum int)
"""


def gemm4(isa):
    """The 4-row tile of a level: T = 3 tokens and one w register in
    AVX2's 16, T = 6 and two w registers in AVX-512's 32. AVX2 indexes
    a pointer per row with the column (AX); AVX-512 addresses the rows in
    threes from pointers to rows 0 and 3, advanced a vector a step."""
    T, P = (3, 1) if isa is AVX2 else (6, 2)
    name = "gemm4x%dF32%s" % (T, isa.name)
    lbl = isa.name.lower()
    a.text(name, 64, TILE_DOC % name + DOC_4[isa.name], wrap=False)
    ins("MOVQ", "w+16(FP)", "SI", c="w row 0")
    ins("MOVQ", "ldw+24(FP)", "BX")
    ins("SHLQ", "$2", "BX", c="row stride of w in bytes")
    if isa is AVX2:
        ins("LEAQ", "(SI)(BX*1)", "R8")
        ins("LEAQ", "(SI)(BX*2)", "R9")
        ins("LEAQ", "(R8)(BX*2)", "R10", c="w rows 1..3")
    else:
        every_third(["SI", "R10"], "BX", "w")
    ins("MOVQ", "x+32(FP)", "DI", c="x row 0")
    ins("MOVQ", "ldx+40(FP)", "R11")
    ins("SHLQ", "$2", "R11", c="row stride of x in bytes")
    if isa is AVX2:
        ins("LEAQ", "(DI)(R11*1)", "R12")
        ins("LEAQ", "(DI)(R11*2)", "R13", c="x rows 1, 2")
        xs = ["(%s)(AX*4)" % p for p in ("DI", "R12", "R13")]
        ws = ["(%s)(AX*4)" % p for p in ("SI", "R8", "R9", "R10")]
    else:
        every_third(["DI", "R12"], "R11", "x")
        xs, ws = threes(["DI", "R12"], "R11"), threes(["SI", "R10"], "BX")[:4]
    ins("MOVQ", "k+48(FP)", "CX")
    zero(isa, 4 * T, "s(t, r) = 0 for t < %d, r < 4" % T)
    if isa is AVX2:
        ins("XORQ", "AX", "AX", c="c = 0")
    ins("TESTQ", "CX", "CX")
    ins("JE", lbl + "sum")
    a.label(lbl + "loop")
    dot_step(isa, xs, ws, P, "VMOVUPS", fma, isa.lanes)
    if isa is AVX2:
        ins("ADDQ", "$8", "AX", c="c += 8")
        ins("CMPQ", "AX", "CX")
        ins("JL", lbl + "loop")
    else:
        advance(["DI", "R12"], ["SI", "R10"], 16)
        ins("JNZ", lbl + "loop")
    a.label(lbl + "sum")
    if isa is AVX2:
        for t in range(T):
            hsum_y(4 * t, 4 * t, 12, "X%d = token %d's four sums" % (4 * t, t))
        groups = [(4 * t, t, 0) for t in range(T)]
    else:
        groups = reduce_z(T, 4)
    out_args()
    outs = ["DX"]
    if T > 3:
        ins("LEAQ", "(DX)(BX*2)", "R13")
        ins("ADDQ", "BX", "R13", c="R13 = out + 3·ldo")
        outs.append("R13")
    store_groups(groups, threes(outs, "BX"))
    a.ret()


DOC_4 = {"AVX2": """
T = 3 tokens: 12 accumulators Y0..Y11 (token t, row r in Y(4t+r)), x in
Y12..Y14, w in Y15: all 16 AVX2 registers. k is a multiple of 8.""", "AVX512": """
T = 6 tokens: 24 accumulators Z0..Z23 (token t, row r in Z(4t+r)), x in
Z24..Z29, w in Z30/Z31. Row pointers advance by one vector per step, rows
1, 2 (and 4, 5 of x) addressed through the stride. k is a multiple of 16."""}


def advance(xs, ws, cols):
    """Every row pointer on by 64 bytes (cols columns), k -= cols."""
    for i, p in enumerate(xs):
        ins("ADDQ", "$64", p, c="x rows advance %d columns" % cols if i == 0 else "")
    for i, p in enumerate(ws):
        ins("ADDQ", "$64", p, c="w rows advance %d columns" % cols if i == 0 else "")
    ins("SUBQ", "$%d" % cols, "CX", c="k -= %d" % cols)


def gemm8x3(bf16):
    """The 8-row × 3-token tile for tiles ≥ 1 tiles of consecutive
    tokens: float32 with FMAs, or bf16 with VDPBF16PS (twice the columns
    a step in the same 64 bytes)."""
    name, elem, lbl = ("gemm8x3BF16DP", "BF16", "dp83") if bf16 else ("gemm8x3F32AVX512", "float32", "t83")
    tile = "tBF16DPtile" if bf16 else "tF32AVX512tile"
    cols = 32 if bf16 else 16
    a.text(name, 72, DOC_8X3[bf16], wrap=False)
    ins("MOVQ", "tiles+64(FP)", "R8", c="tiles left")
    ins("MOVQ", "x+32(FP)", "R9", c="x rows of this tile")
    ins("MOVQ", "out+0(FP)", "AX", c="out rows of this tile")
    a.label(tile)
    shift = "$1" if bf16 else "$2"
    ins("MOVQ", "w+16(FP)", "SI", c="w row 0")
    ins("MOVQ", "ldw+24(FP)", "BX")
    ins("SHLQ", shift, "BX", c="row stride of w in bytes")
    every_third(["SI", "R10", "R13"], "BX", "w")
    ins("MOVQ", "R9", "DI", c="x row 0")
    ins("MOVQ", "ldx+40(FP)", "R11")
    ins("SHLQ", shift, "R11", c="row stride of x in bytes")
    ins("MOVQ", "k+48(FP)", "CX")
    zero(AVX512, 24, "s(t, r) = 0 for t < 3, r < 8")
    ins("TESTQ", "CX", "CX")
    ins("JE", lbl + "sum")
    a.label(lbl + "loop")
    dot_step(AVX512, threes(["DI"], "R11"), threes(["SI", "R10", "R13"], "BX")[:8], 4,
             "VMOVDQU32" if bf16 else "VMOVUPS", dpbf16 if bf16 else fma, cols)
    advance(["DI"], ["SI", "R10", "R13"], cols)
    ins("JNZ", lbl + "loop")
    a.label(lbl + "sum")
    groups = reduce_z(3, 8)
    out_args("MOVQ AX, DX")
    store_groups(groups, threes(["DX"], "BX"))
    ins("LEAQ", "(R9)(R11*2)", "R9", c="next tile: x += 3 rows")
    ins("ADDQ", "R11", "R9")
    ins("LEAQ", "(AX)(BX*2)", "AX", c="out += 3 rows")
    ins("ADDQ", "BX", "AX")
    ins("DECQ", "R8")
    ins("JNZ", tile)
    a.ret()


DOC_8X3 = {False: (TILE_DOC % "gemm8x3F32AVX512").replace("accum int)", "accum int, tiles int)") + """
Runs tiles ≥ 1 tiles in a row, tokens 3i..3i+2 for i < tiles: one call
per panel rather than per tile (measured gain small, 0–3 %).
The 8-row × 3-token tile, same sums as gemm4x6F32AVX512 (same lanes,
same reduction tree, so an output is bit-identical whichever tile makes
it). Each x vector now feeds 8 FMAs instead of 4: x streams from L2 while
the widened weight panel sits in L1, and halving the x bytes per FMA is
what lifts the tile from ~72 % to ~80 % of FMA peak (n = 128). 24 sums
Z0..Z23 (token t, row r in Z(8t+r)), x in Z24..Z26, w in Z27..Z30.""",
           True: """\
func gemm8x3BF16DP(out *float32, ldo int, w *BF16, ldw int, x *BF16, ldx int, k int, accum int, tiles int)

The AVX512_BF16 tile: x is already rounded to bf16, and VDPBF16PS adds
the products of adjacent bf16 pairs into each fp32 lane, so one
instruction does 32 multiply-adds:

\ts[i] += float32(w[2i])·float32(x[2i]) + float32(w[2i+1])·float32(x[2i+1])

Same register plan as gemm8x3F32AVX512 with 32 columns per step; k is a
multiple of 32. The Go assembler lacks VDPBF16PS, so it is emitted as
EVEX bytes (tools/quantasm/avx.py) with the mnemonic beside; the tests
check it."""}


def round_bf16():
    a.text("roundBF16DP", 24, """\
func roundBF16DP(dst *BF16, src *float32, n int)

\tfor i := range n { dst[i] = FromFloat32(src[i]) }

except that VCVTNEPS2BF16 treats subnormal inputs as zero (and so
returns ±0 for them). Only activations go through it. n is a multiple
of 16.""", wrap=False)
    ins("MOVQ", "dst+0(FP)", "DI")
    ins("MOVQ", "src+8(FP)", "SI")
    ins("MOVQ", "n+16(FP)", "CX")
    ins("XORQ", "AX", "AX", c="i = 0")
    ins("TESTQ", "CX", "CX")
    ins("JE", "rounddone")
    a.label("roundloop")
    ins("VMOVUPS", "(SI)(AX*4)", "Z0", c="src[i:i+16]")
    a.e("\t%s // VCVTNEPS2BF16 Z0, Y0" % byte_code(vcvtneps2bf16(0, 0)))
    ins("VMOVDQU", "Y0", "(DI)(AX*2)", c="dst[i:i+16]")
    ins("ADDQ", "$16", "AX")
    ins("CMPQ", "AX", "CX")
    ins("JL", "roundloop")
    a.label("rounddone")
    a.ret()


def prefetch4():
    a.text("prefetch4", 24, """\
func prefetch4(p unsafe.Pointer, ld int, n int)

Asks for the four rows p, p+ld, p+2·ld, p+3·ld (n bytes each, ld in
bytes) to be brought into L2 while the current panel computes: the next
weight panel lies in rows far apart, where the hardware prefetcher does
not look ahead. A hint only; it never faults.""", wrap=False)
    ins("MOVQ", "p+0(FP)", "SI")
    ins("MOVQ", "ld+8(FP)", "BX")
    ins("MOVQ", "n+16(FP)", "CX")
    ins("LEAQ", "(SI)(BX*1)", "R8", c="row 1")
    ins("LEAQ", "(SI)(BX*2)", "R9", c="row 2")
    ins("LEAQ", "(R8)(BX*2)", "R10", c="row 3")
    ins("XORQ", "AX", "AX")
    a.label("prefetchloop")
    for row in ("SI", "R8", "R9", "R10"):
        ins("PREFETCHT1", "(%s)(AX*1)" % row)
    ins("ADDQ", "$64", "AX", c="one cache line")
    ins("CMPQ", "AX", "CX")
    ins("JL", "prefetchloop")
    ins("RET")


a.header("gemm_amd64.py", """\
Register-blocked micro-kernels for Y = X·Wᵀ (see gemm.go). One call
computes a tile of R rows of W against T tokens of X over k columns, as
R·T dot products held in vector accumulators:

\tfor t := range T {
\t\tfor r := range R {
\t\t\tvar s float32
\t\t\tfor c := range k { s += w[r*ldw+c] * x[t*ldx+c] }
\t\t\tif accum != 0 { out[t*ldo+r] += s } else { out[t*ldo+r] = s }
\t\t}
\t}

Tiles: 4×3 (AVX2, 12 of 16 registers), 4×6 and 8×3 (AVX-512, 24 of 32)
and 8×3 with VDPBF16PS. Per vector step a tile loads T vectors of x and
R of w and issues R·T FMAs. The weight panel sits in L1 and x streams
from L2, so the 8×3 tiles (8 FMAs per x load) beat 4×6 (4 per load).
Every tile and the gemv kernels sum lane c mod width in column order and
reduce the lanes with the same tree, so an output is bit-identical
whichever kernel computes it. The sums of a token are adjacent outputs,
stored four at a time. ldo, ldw and ldx are in elements.""", wrap=False)
for isa in (AVX2, AVX512):
    gemm4(isa)
round_bf16()
prefetch4()
gemm8x3(False)
gemm8x3(True)
a.print()
