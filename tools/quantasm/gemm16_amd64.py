#!/usr/bin/env python3
"""Writes kernels/gemm16_amd64.s: gemm16x6AVX2, the AVX2 prefill tile
(16 outputs × 6 tokens) on a packed panel of W, and its twins of 5 and
4 tokens for the tokens left after the 6-token tiles.

Run `python3 tools/quantasm/gemm16_amd64.py > kernels/gemm16_amd64.s`
after editing. The Go twin is gemmNNGo in gemmnn_amd64_test.go; the
general-stride tile for MatMulNN is gemmNN16x6AVX2 (gemmnn_amd64.s).
"""

from avx import Asm

UNROLL = 8  # columns a loop turn; k is a multiple of 8 (the packers' step)
AHEAD = 256  # bytes of each x row prefetched ahead of the one being read
ROWS = ["(DI)", "(DI)(R11*1)", "(DI)(R11*2)", "(R8)", "(R8)(R11*1)", "(R8)(R11*2)"]

a = Asm()


def at(off, row):
    """The address of x[t][c+off/4], row t given as an operand of ROWS."""
    return "%d%s" % (off, row) if off else row


def column(u, T):
    """Column c+u: b[c+u][0:16] into Y12/Y13, T broadcasts, 2·T FMAs."""
    a.ins("VMOVUPS", "%d(SI)" % (64 * u) if u else "(SI)", "Y12", c="b[c+%d][0:8]" % u)
    a.ins("VMOVUPS", "%d(SI)" % (64 * u + 32), "Y13", c="b[c+%d][8:16]" % u)
    for t, row in enumerate(ROWS[:T]):
        y = "Y14" if t % 2 == 0 else "Y15"
        a.ins("VBROADCASTSS", at(4 * u, row), y, c="x[%d][c+%d]" % (t, u))
        a.ins("VFMADD231PS", "Y12", y, "Y%d" % (2 * t), c="s(%d, 0:8) += b·x" % t)
        a.ins("VFMADD231PS", "Y13", y, "Y%d" % (2 * t + 1))


def out_rows(each, T):
    """each(t) for t < T with DX at out[t][0], R12 = ldo in bytes."""
    for t in range(T):
        each(t)
        if t < T - 1:
            a.ins("ADDQ", "R12", "DX")


def tile(T=6):
    """The tile of T tokens; only the 6-token one, which other tiles
    follow, prefetches the next tile's x rows."""
    name, lbl = "gemm16x%dAVX2" % T, "g16" if T == 6 else "g16t%d" % T
    if T != 6:
        a.text(name, 56, """\
func %s(out *float32, ldo int, b *float32, x *float32, ldx int, k int, accum int)

gemm16x6AVX2 for t < %d: the tokens left after the 6-token tiles of a
panel, one tile for all of them. Sums Y0..Y%d, the same as the 6-token
tile's, bit for bit.""" % (name, T, 2 * T - 1))
    else:
        a.text(name, 56, """\
func gemm16x6AVX2(out *float32, ldo int, b *float32, x *float32, ldx int, k int, accum int)

\tfor t := range 6 {
\t\tfor j := range 16 {
\t\t\tvar s float32
\t\t\tfor c := range k { s = fma(x[t*ldx+c], b[c*16+j], s) }
\t\t\tout[t*ldo+j] = s  // += s when accum != 0
\t\t}
\t}

b is a packed panel (k × 16 floats, packT16*AVX2), k a multiple of 8.
Sums Y0..Y11 (token t: Y(2t) outputs 0..7, Y(2t+1) 8..15), b[c] in
Y12/Y13, broadcasts in Y14/Y15: gemmNN16x6AVX2's registers and sums, bit
for bit. What it adds for prefill, where x (n × k, 0.5 MiB at n = 512,
k = 256) comes from L2 and out from L3: each x row is prefetched 256
bytes ahead, once every 8 columns (six streams 6 KB or more apart were
left to the hardware prefetcher before), and out's rows are requested
at the start, so the loads of the accumulating stores do not stall.
Tile alone on the Xeon, one thread, GFLOP/s: x from L2 100 → 110, x
from L2 and out from L3 92 → 99; the FMA loop 112.""")
    a.ins("MOVQ", "b+16(FP)", "SI")
    a.ins("MOVQ", "x+24(FP)", "DI", c="x row 0")
    a.ins("MOVQ", "ldx+32(FP)", "R11")
    a.ins("SHLQ", "$2", "R11", c="row stride of x in bytes")
    a.ins("LEAQ", "(DI)(R11*2)", "R8")
    a.ins("ADDQ", "R11", "R8", c="x row 3")
    a.ins("MOVQ", "k+40(FP)", "CX")
    a.ins("SHRQ", "$3", "CX", c="turns of 8 columns")
    a.ins("MOVQ", "out+0(FP)", "DX")
    a.ins("MOVQ", "ldo+8(FP)", "R12")
    a.ins("SHLQ", "$2", "R12", c="row stride of out in bytes")

    def prefetch_out(t):
        a.ins("PREFETCHT0", "(DX)", c="out[%d][0:16], two lines when unaligned" % t)
        a.ins("PREFETCHT0", "60(DX)")
    out_rows(prefetch_out, T)
    if T == 6:
        a.ins("LEAQ", "(R8)(R11*2)", "R9")
        a.ins("ADDQ", "R11", "R9", c="x row 6: the next tile's row 0")
        for t in range(6):
            for off in range(0, AHEAD, 64):
                a.ins("PREFETCHT0", "%d(R9)" % off if off else "(R9)",
                      c="x[%d][0:%d], the next tile's start" % (6 + t, AHEAD // 4) if off == 0 else "")
            if t < 5:
                a.ins("ADDQ", "R11", "R9")
    for i in range(2 * T):
        a.ins("VXORPS", "Y%d" % i, "Y%d" % i, "Y%d" % i, c="s = 0" if i == 0 else "")
    a.ins("TESTQ", "CX", "CX")
    a.ins("JE", lbl + "store")
    a.label(lbl + "loop")
    for t, row in enumerate(ROWS[:T]):
        a.ins("PREFETCHT0", at(AHEAD, row), c="x[%d][c+%d:]" % (t, AHEAD // 4))
    for u in range(UNROLL):
        column(u, T)
    a.ins("ADDQ", "$%d" % (64 * UNROLL), "SI", c="b[c+%d]" % UNROLL)
    a.ins("ADDQ", "$%d" % (4 * UNROLL), "DI", c="x[·][c+%d]" % UNROLL)
    a.ins("ADDQ", "$%d" % (4 * UNROLL), "R8")
    a.ins("DECQ", "CX")
    a.ins("JNZ", lbl + "loop")
    a.label(lbl + "store")
    a.ins("MOVQ", "out+0(FP)", "DX")
    a.ins("MOVQ", "accum+48(FP)", "AX")
    a.ins("TESTQ", "AX", "AX")
    a.ins("JNZ", lbl + "accum")

    def store(t):
        a.ins("VMOVUPS", "Y%d" % (2 * t), "(DX)", c="out[%d][0:16] = s(%d)" % (t, t))
        a.ins("VMOVUPS", "Y%d" % (2 * t + 1), "32(DX)")
    out_rows(store, T)
    a.ret()
    a.label(lbl + "accum")

    def add(t):
        a.ins("VADDPS", "(DX)", "Y%d" % (2 * t), "Y%d" % (2 * t), c="out[%d][0:16] += s(%d)" % (t, t))
        a.ins("VADDPS", "32(DX)", "Y%d" % (2 * t + 1), "Y%d" % (2 * t + 1))
        a.ins("VMOVUPS", "Y%d" % (2 * t), "(DX)")
        a.ins("VMOVUPS", "Y%d" % (2 * t + 1), "32(DX)")
    out_rows(add, T)
    a.ret()


a.header("gemm16_amd64.py", """The AVX2 prefill tile on a packed panel of W (bcast2_amd64.go). The
finished sum is added to out, never loaded into the sums, so a tile
computed into scratch and added by Go (put) is bit-identical to one
computed in place.""")
for T in (6, 5, 4):
    tile(T)
a.print()
