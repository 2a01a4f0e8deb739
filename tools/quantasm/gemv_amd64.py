#!/usr/bin/env python3
"""Writes kernels/gemv_amd64.s: the four-row matrix-vector kernels (f32 and
bf16, widening and pair forms, each as AVX2 and AVX512) and the one-row
bf16 pair kernel gemvRowsBF16PairAVX2 that both levels' decode uses; also
widenAVX2 and widenAVX512, the bf16 → f32 widening of gemm's panels.

Run `python3 tools/quantasm/gemv_amd64.py > kernels/gemv_amd64.s` after
editing. Each kernel is one function of the level (avx.py); the readable
references are gemv_generic.go's matVecF32Generic and matVecBF16Generic.
"""

from avx import Asm, LEVELS, AVX2, AVX512
from stream import AHEAD

a = Asm()

# The registers of the four-row kernels.
OUT, LD, XP, N, I = "DX", "BX", "DI", "CX", "AX"
W = ["SI", "R8", "R9", "R10"]  # the four rows


def args(names, shift, ld=LD):
    """Loads the Go arguments (name, register, comment) at 8 bytes each,
    ldw (into ld) turned into bytes by << shift."""
    for k, (name, reg, c) in enumerate(names):
        a.ins("MOVQ", "%s+%d(FP)" % (name, 8 * k), reg, c=c)
        if name == "ldw":
            a.ins("SHLQ", "$%d" % shift, ld, c="bytes between the rows")


def rows():
    """W1..W3 from W0 and the row stride in bytes."""
    a.ins("LEAQ", "(%s)(%s*1)" % (W[0], LD), W[1])
    a.ins("LEAQ", "(%s)(%s*2)" % (W[0], LD), W[2])
    a.ins("LEAQ", "(%s)(%s*2)" % (W[1], LD), W[3])


def hsum4(isa):
    """Reduces the four sums v0..v3 to X0 = [Σs0, Σs1, Σs2, Σs3]: AVX-512
    first halves each into Y0..Y3; then Y0 = [s0 pairs, s1 pairs] per
    128-bit half, Y2 = [s2 pairs, s3 pairs], Y0 = [Σs0, Σs1, Σs2, Σs3]
    per half, X0 = the sum of the two halves."""
    if isa is AVX512:
        for k in range(4):
            a.ins("VEXTRACTF64X4", "$1", "Z%d" % k, "Y%d" % (4 + k), c="s%d[8:16]" % k)
        for k in range(4):
            a.ins("VADDPS", "Y%d" % (4 + k), "Y%d" % k, "Y%d" % k, c="s%d: 8 lanes" % k)
    a.ins("VHADDPS", "Y1", "Y0", "Y0")
    a.ins("VHADDPS", "Y3", "Y2", "Y2")
    a.ins("VHADDPS", "Y2", "Y0", "Y0")
    a.ins("VEXTRACTF128", "$1", "Y0", "X1")
    a.ins("VADDPS", "X1", "X0", "X0", c="X0 = [Σs0, Σs1, Σs2, Σs3]")


def store_strided():
    """out[0], out[os/4], out[2·os/4], out[3·os/4] = X0's lanes (os in R11)."""
    a.ins("VMOVSS", "X0", "(%s)" % OUT)
    a.ins("VEXTRACTPS", "$1", "X0", "(%s)(R11*1)" % OUT)
    a.ins("VEXTRACTPS", "$2", "X0", "(%s)(R11*2)" % OUT)
    a.ins("LEAQ", "(R11)(R11*2)", "R11")
    a.ins("VEXTRACTPS", "$3", "X0", "(%s)(R11*1)" % OUT)


def zero(isa, regs, names=None):
    for k, r in enumerate(regs):
        a.ins("VXORPS", isa.v(r), isa.v(r), isa.v(r), c="%s = 0" % (names[k] if names else "s%d" % r))


def counted_loop(name, step, body):
    """for c = 0; c < n; c += step: body(), the sums in v0..v3; n ≥ 0."""
    a.ins("XORQ", I, I, c="c = 0")
    a.ins("TESTQ", N, N)
    a.ins("JE", name + "sum")
    a.label(name + "loop")
    body()
    a.ins("ADDQ", "$%d" % step, I, c="c += %d" % step)
    a.ins("CMPQ", I, N)
    a.ins("JL", name + "loop")
    a.label(name + "sum")


def gemv4(isa, bf16, streams):
    """out[i] = Σ_c w[i·ldw+c]·x[c] for four rows, one x vector a step
    shared by the rows. bf16 weights widen exactly (zero-extend, << 16).
    Rows of one block (streams false) prefetch the next block, as many
    bytes of it a step as they read; four rows far apart (streams true)
    each prefetch AHEAD bytes beyond themselves and store strided."""
    esize = 2 if bf16 else 4
    name = "gemv4%s%s%s" % ("BF16" if bf16 else "F32", "Streams" if streams else "", isa.name)
    go = [("out", OUT, ""), ("w", W[0], ""), ("ldw", LD, ""), ("x", XP, ""), ("n", N, "")]
    if streams:
        go.insert(1, ("os", "R11", "bytes between the sums"))
    sig = "func %s(out *float32, %sw %s, ldw int, x *float32, n int)" % (
        name, "os int, " if streams else "", "*BF16" if bf16 else "*float32")
    a.text(name, 8 * len(go), sig + "\n\n" + doc_gemv4(isa, bf16, streams))
    args(go, esize // 2)
    rows()
    if not streams:
        a.ins("LEAQ", "(%s)(%s*4)" % (W[0], LD), "R11", c="the next block, for the prefetch")
    zero(isa, range(4))
    counted_loop(name, isa.lanes, lambda: gemv4_step(isa, bf16, streams))
    hsum4(isa)
    if streams:
        store_strided()
    else:
        a.ins("VMOVUPS", "X0", "(%s)" % OUT, c="out[0:4] = [Σs0, Σs1, Σs2, Σs3]")
    a.ret()


def gemv4_step(isa, bf16, streams):
    """One step of gemv4: the prefetch, then s_k += w_k[c:c+lanes]·x[c:c+lanes]."""
    v = isa.v
    esize = 2 if bf16 else 4
    if streams:
        for w in W:
            a.ins("PREFETCHT0", "%d(%s)(%s*%d)" % (AHEAD, w, I, esize), c="each row ahead of itself")
    else:
        step_bytes = 4 * isa.lanes * esize  # of weights, four rows
        for k in range(step_bytes // 64):
            a.ins("PREFETCHT0", "%s(R11)" % (64 * k or ""))
        a.ins("ADDQ", "$%d" % step_bytes, "R11", c="as many bytes of the next block as read here")
    cols = "[c:c+%d]" % isa.lanes
    a.ins("VMOVUPS", "(%s)(%s*4)" % (XP, I), v(4), c="x" + cols)
    if not bf16:
        for k, w in enumerate(W):
            a.ins("VFMADD231PS", "(%s)(%s*4)" % (w, I), v(4), v(k),
                  c="s%d += w%d%s * x%s" % (k, k, cols, cols))
        return
    for k, w in enumerate(W):
        a.ins("VPMOVZXWD", "(%s)(%s*2)" % (w, I), v(5 + k), c="uint32(w%d%s)" % (k, cols))
    for k in range(4):
        a.ins("VPSLLD", "$16", v(5 + k), v(5 + k), c="float32(w%d%s)" % (k, cols))
    for k in range(4):
        a.ins("VFMADD231PS", v(5 + k), v(4), v(k), c="s%d += w%d * x" % (k, k))


def doc_gemv4(isa, bf16, streams):
    if isa is AVX512:
        return "%s with 16 lanes." % ("gemv4%s%sAVX2" % ("BF16" if bf16 else "F32", "Streams" if streams else ""))
    if streams:
        return """\
gemv4F32AVX2 for four rows far apart (ldw elements between them: one
row from each quarter of a matrix's rows, matVecF32By), each prefetched
2 KiB ahead of itself (AHEAD), and out[0], out[os/4], out[2·os/4],
out[3·os/4] for the four sums. One core reads four streams far apart
faster than one (kernels/quant8_amd64.go); each row's operations are
gemv4F32AVX2's, so its sum keeps its bits."""
    loop = """\
\tfor i := range 4 {
\t\tvar s float32
\t\tfor c := range n { s += w[i*ldw+c]%s * x[c] }
\t\tout[i] = s
\t}""" % (".Float32()" if bf16 else "")
    if bf16:
        loop += """

A bf16 is the high half of a float32: zero-extend each 16-bit word to 32
bits and shift it up by 16 to get the float exactly."""
    return loop


PAIR_DOC = """\
Pair kernels: the bf16 MatVec without a widening shuffle per weight.

A 32-bit lane of a bf16 row holds the pair (w[2j], w[2j+1]), low word
first. As float32 the even one is lane << 16 and the odd one is
lane & 0xFFFF0000, both exact, so a vector of weights costs a load, a
shift, an AND and two FMAs, against the even and odd halves of x:

\ts = Σ_j w[2j]·x[2j] + Σ_j w[2j+1]·x[2j+1]

with the two sums in separate accumulators, added at the end. The widening
kernels above spend a VPMOVZXWD (a cross-lane shuffle) per weight vector.

gemvRowsBF16PairAVX2 reads one row at a time from x split beforehand (the
Go driver splits it once per call), so row after row the weights are read in
address order, one stream through the whole matrix as in a plain read
loop, with a PREFETCHT0 pf bytes ahead per line. gemv4BF16Pair* read four
rows at once and split x themselves, two shuffles per step shared by the
four rows; the driver uses them for rows too long to keep split x in L1
beside the stream.

Measured on the 2-core AMD EPYC (Zen 5) box, 1 thread. Kernels alone, GB/s
of weights by thread CPU time, weights mapped from the model file (4 KiB
pages), taking turns with a Dot over the same bytes (plain read, 34-39):

\t                 widening 4-row   pair 4-row   pair 1-row (16 lanes)
\t8960 × 1536           28-29          29-31       31-34
\t1536 × 1536           29-31          30-31       31-33
\t1536 × 8960           27-28          28-29       23-29

So the shuffle was not the bound (the 4-row pair kernel gains 3-5 %);
reading in address order is, and only with the prefetch: pf 0 gives 29
for 8960 × 1536, 1 KiB 31, 4-64 KiB 32-34 (flat); PREFETCHNTA the same,
PREFETCHT1 a little slower. Real decode of Qwen2.5-1.5B (bench, median
of 3, 37.6 GB/s plain read): widening 4-row 27-28 GB/s; a 16-lane 1-row
kernel, four lines a step, 26-28 despite the table above; this 8-lane one
31-33 (pf 4 KiB 30-31, 8 KiB 31-32, 16 KiB 31), so both AVX levels use
it. Rows of 8960 columns stayed on the 4-row pair kernel on 4 KiB pages
(1-row for them, 35 KiB of split x, gave 31.1-31.2 against 31.6-32.2);
with the weights on 2 MiB pages 1-row wins for them too (gemv_amd64.go).
On 2 MiB pages (plain read 41-43 GB/s), five alternating rounds over
Qwen-shaped matrices: PREFETCHNTA against PREFETCHT0 at 8 KiB, 38.1-39.2
against 37.9-38.5 GB/s overall (ffn_gate 41.0-42.6 against 39.7-40.6);
real decode, 1 thread, 12.4-12.9 against 12.5-12.7 tok/s. PREFETCHT1 far
with PREFETCHT0 near (1 KiB, 512 B), or a second PREFETCHT0 at 2 KiB:
all slower (33-37).

On a 2-core Intel Xeon VM (AVX-512, AVX512-BF16) the two hints part
ways. Rows of 1536 and 8960 columns, 1 thread, 2 MiB pages, GB/s by
thread CPU time (plain read of the same bytes 8.5-10.4): PREFETCHNTA
8 KiB ahead 4.0-4.9, no prefetch 5.9-7.0, PREFETCHT0 at 2, 4, 8 or
16 KiB 8.2-9.7. Real decode of Qwen2.5-1.5B, four alternating rounds:
1 thread 4.2-6.6 GB/s with NTA, 7.9-9.4 with T0; 2 threads 7.6-8.3 and
10.3-12.9. An NTA line skips L2 on that core, and it seems the L2
streamer, untrained, leaves the whole stream to the fill buffers. So
the kernel uses PREFETCHT0, equal to NTA on Zen 5 and twice as fast on
the Xeon."""

PAIR4_DOC = """\
\tfor i := range 4 {
\t\tvar se, so float32
\t\tfor c := 0; c < n; c += 2 {
\t\t\tse += w[i*ldw+c].Float32() * x[c]
\t\t\tso += w[i*ldw+c+1].Float32() * x[c+1]
\t\t}
\t\tout[i*os/4] = se + so
\t}

The four rows are one from each quarter of a matrix's rows
(matVecBF16Quads): four streams far apart, which one core reads faster
than one; each prefetches 2 KiB ahead of itself (AHEAD). ldw = os = 0
gives one row's sum. n is a multiple of 16. Registers: v0..v3 the even
sums, v8..v11 the odd ones, v6 / v7 the even / odd halves of x, v15 the
odd-word mask."""


def pair_idx():
    """pairIdx: the VPERMT2PS indices that gather the even (first 16) and
    odd (last 16) elements of a 32-float table."""
    a.e()
    a.comment("pairIdx holds the VPERMT2PS indices that gather the even (first 16) and\n"
              "odd (last 16) elements of a 32-float table.")
    idx = list(range(0, 32, 2)) + list(range(1, 32, 2))
    for k, i in enumerate(idx):
        a.e("DATA pairIdx<>+%d(SB)/4, $%d" % (4 * k, i))
    a.e("GLOBL pairIdx<>(SB), RODATA|NOPTR, $128")


def split_x(isa, xe, xo):
    """xe, xo = the even and odd elements of x[c : c+2·lanes]: AVX2 puts
    the halves of 16 floats in lane order for VSHUFPS (which works within
    128-bit halves); AVX-512 gathers each across two vectors with
    VPERMT2PS and the indices in Z12 (even), Z13 (odd)."""
    x = "%s(%s)(%s*4)"
    if isa is AVX2:
        a.ins("VMOVUPS", x % ("", XP, I), "X4", c="Y4 = [x[c:c+4], ·]")
        a.ins("VINSERTF128", "$1", x % (32, XP, I), "Y4", "Y4", c="Y4 = [x[c:c+4], x[c+8:c+12]]")
        a.ins("VMOVUPS", x % (16, XP, I), "X5", c="Y5 = [x[c+4:c+8], ·]")
        a.ins("VINSERTF128", "$1", x % (48, XP, I), "Y5", "Y5", c="Y5 = [x[c+4:c+8], x[c+12:c+16]]")
        a.ins("VSHUFPS", "$0x88", "Y5", "Y4", xe, c="xe = x[c], x[c+2], …, x[c+14]")
        a.ins("VSHUFPS", "$0xDD", "Y5", "Y4", xo, c="xo = x[c+1], x[c+3], …, x[c+15]")
    else:
        a.ins("VMOVUPS", x % ("", XP, I), xe, c="xe = x[c:c+16]")
        a.ins("VMOVUPS", xe, xo, c="xo = x[c:c+16]")
        a.ins("VPERMT2PS", x % (64, XP, I), "Z12", xe, c="xe = x[c], x[c+2], …, x[c+30]")
        a.ins("VPERMT2PS", x % (64, XP, I), "Z13", xo, c="xo = x[c+1], x[c+3], …, x[c+31]")


def odd_mask(isa, m):
    """m = 0xFFFF0000 in every lane."""
    if isa is AVX2:
        a.ins("VPCMPEQD", m, m, m, c="all ones")
    else:
        a.ins("VPTERNLOGD", "$0xFF", m, m, m, c="all ones")
    a.ins("VPSLLD", "$16", m, m, c="0xFFFF0000 per lane")


def pair(isa, w, se, so, xe, xo, mask, t):
    """se += the even weights of the pairs at w · xe, so += the odd ones ·
    xo; t[0] = the pairs (then the odd weights), t[1] = the even weights."""
    a.ins(isa.movdqu, w, t[0], c="%d pairs" % isa.lanes)
    a.ins("VPSLLD", "$16", t[0], t[1], c="even weights")
    a.ins(isa.bitand, mask, t[0], t[0], c="odd weights")
    for wv, xv, acc, c in ((t[1], xe, se, "se += even · xe"), (t[0], xo, so, "so += odd · xo")):
        # x in memory must be the first operand; the product is the same
        a.ins("VFMADD231PS", *((xv, wv) if xv.endswith(")") else (wv, xv)), acc, c=c)


def gemv4_pair(isa):
    v = isa.v
    name = "gemv4BF16Pair" + isa.name
    sig = "func %s(out *float32, os int, w *BF16, ldw int, x *float32, n int)" % name
    doc = PAIR4_DOC if isa is AVX2 else "gemv4BF16PairAVX2 with 16 lanes; n is a multiple of 32."
    a.text(name, 48, sig + "\n\n" + doc)
    args([("out", OUT, ""), ("os", "R11", "bytes between the sums"), ("w", W[0], ""),
          ("ldw", LD, ""), ("x", XP, ""), ("n", N, "")], 1)
    rows()
    if isa is AVX512:
        a.ins("VMOVDQU32", "pairIdx<>+0(SB)", "Z12", c="0, 2, …, 30")
        a.ins("VMOVDQU32", "pairIdx<>+64(SB)", "Z13", c="1, 3, …, 31")
    odd_mask(isa, v(15))
    zero(isa, [0, 1, 2, 3, 8, 9, 10, 11], ["se%d" % k for k in range(4)] + ["so%d" % k for k in range(4)])
    t = [v(12), v(13)] if isa is AVX2 else ["Z16", "Z17"]

    def body():
        for w in W:
            a.ins("PREFETCHT0", "%d(%s)(%s*2)" % (AHEAD, w, I), c="each row AHEAD ahead of itself")
        split_x(isa, v(6), v(7))
        for k, w in enumerate(W):
            pair(isa, "(%s)(%s*2)" % (w, I), v(k), v(8 + k), v(6), v(7), v(15), t)

    counted_loop(name, 2 * isa.lanes, body)
    for k in range(4):
        a.ins("VADDPS", v(8 + k), v(k), v(k), c="s%d = se%d + so%d" % (k, k, k))
    hsum4(isa)
    store_strided()
    a.ret()


def widen(isa):
    """dst = src widened from bf16, a vector a step (gemm's panels)."""
    v = isa.v
    name = "widen" + isa.name
    a.text(name, 24, isa.twin_doc("widen%s(dst *float32, src *BF16, n int)",
                                  "\tfor i := range n { dst[i] = src[i].Float32() }"))
    a.ins("MOVQ", "dst+0(FP)", "DI")
    a.ins("MOVQ", "src+8(FP)", "SI")
    a.ins("MOVQ", "n+16(FP)", N)

    def step():
        cols = "[i:i+%d]" % isa.lanes
        a.ins("VPMOVZXWD", "(SI)(%s*2)" % I, v(0), c="uint32(src%s)" % cols)
        a.ins("VPSLLD", "$16", v(0), v(0), c="float32(src%s)" % cols)
        a.ins("VMOVUPS", v(0), "(DI)(%s*4)" % I, c="dst" + cols)

    counted_loop(name, isa.lanes, step)
    a.ret()


ROWS_DOC = """\
func gemvRowsBF16PairAVX2(out *float32, rows int, w *BF16, ldw int, xe, xo *float32, n, pf int)

\tfor r := range rows {
\t\tvar se, so float32
\t\tfor j := range n / 2 {
\t\t\tse += w[r*ldw+2*j].Float32() * xe[j]
\t\t\tso += w[r*ldw+2*j+1].Float32() * xo[j]
\t\t}
\t\tout[r] = se + so
\t}

n is a multiple of 16, rows ≥ 1. The loop over rows is here rather than
in Go: Qwen2.5-1.5B's decode step runs 800 k rows (the output head alone
152 k), and a Go call per row cost about 1 % of decode."""

# gemvRowsBF16PairAVX2's registers beyond the four-row kernels': split x,
# pairs in whole lines, pair index, prefetch pointer, rows left, row stride.
XE, XO, NW, J, PF, ROWSN, LDWB = "R8", "R9", "R10", "AX", "R11", "R12", "R13"


def gemv_rows_pair():
    """gemvRowsBF16PairAVX2: one row at a time from split x, 8 lanes (the
    pair comment says why both levels use it); two accumulators for each
    of se and so hide the FMA latency."""
    isa = AVX2
    v = isa.v
    se0, so0, se1, so1 = v(0), v(1), v(2), v(3)
    name = "gemvRowsBF16PairAVX2"
    a.text(name, 64, ROWS_DOC)
    args([("out", OUT, ""), ("rows", ROWSN, ""), ("w", W[0], ""), ("ldw", LDWB, ""),
          ("xe", XE, ""), ("xo", XO, ""), ("n", N, ""), ("pf", PF, "")], 1, LDWB)
    a.ins("ADDQ", W[0], PF, c="the stream, pf bytes ahead")
    a.ins("SHRQ", "$1", N, c="pairs")
    odd_mask(isa, v(15))
    a.label(name + "row")
    a.ins("VXORPS", se0, se0, se0, c="se = 0 (two accumulators each,")
    a.ins("VXORPS", so0, so0, so0, c="so = 0  for the FMA latency)")
    a.ins("VXORPS", se1, se1, se1)
    a.ins("VXORPS", so1, so1, so1)
    a.ins("XORQ", J, J, c="j = 0")
    a.ins("MOVQ", N, NW)
    a.ins("ANDQ", "$-16", NW, c="pairs in whole 64-byte lines")
    a.ins("JE", name + "tail")
    a.label(name + "loop")
    rows_pair_line(isa, se0, so0, se1, so1)
    a.ins("ADDQ", "$16", J, c="j += 16")
    a.ins("CMPQ", J, NW)
    a.ins("JL", name + "loop")
    a.label(name + "tail")
    a.ins("CMPQ", J, N, c="a last half line?")
    a.ins("JGE", name + "sum")
    xj = "(%s)(%s*4)"
    pair(isa, xj % (W[0], J), se0, so0, xj % (XE, J), xj % (XO, J), v(15), [v(4), v(5)])
    a.label(name + "sum")
    a.ins("VADDPS", so0, se0, "Y0", c="s = se + so")
    a.ins("VADDPS", so1, se1, "Y2")
    a.ins("VADDPS", "Y2", "Y0", "Y0")
    isa.fold(a, "VADDPS", 0, 0, 1)
    a.ins("VHADDPS", "X0", "X0", "X0", c="2 lanes")
    a.ins("VHADDPS", "X0", "X0", "X0", c="1 lane")
    a.ins("VMOVSS", "X0", "(%s)" % OUT, c="out[r] = s")
    a.ins("ADDQ", "$4", OUT, c="next row")
    a.ins("ADDQ", LDWB, W[0])
    a.ins("ADDQ", LDWB, PF)
    a.ins("DECQ", ROWSN)
    a.ins("JNZ", name + "row")
    a.ret()


def rows_pair_line(isa, se0, so0, se1, so1):
    """One 64-byte line of the row: pairs j … j+15 in two halves."""
    v = isa.v
    a.ins("PREFETCHT0", "(%s)(%s*4)" % (PF, J), c="w[2j+pf/2 …]")
    a.ins("VMOVDQU", "(%s)(%s*4)" % (W[0], J), v(4), c="pairs j … j+7")
    a.ins("VMOVDQU", "32(%s)(%s*4)" % (W[0], J), v(6), c="pairs j+8 … j+15")
    a.ins("VPSLLD", "$16", v(4), v(5), c="float32(w[2j … 2j+14 by 2])")
    a.ins("VPSLLD", "$16", v(6), v(7), c="float32(w[2j+16 … by 2])")
    a.ins("VPAND", v(15), v(4), v(4), c="float32(w[2j+1 … 2j+15 by 2])")
    a.ins("VPAND", v(15), v(6), v(6), c="float32(w[2j+17 … by 2])")
    a.ins("VFMADD231PS", "(%s)(%s*4)" % (XE, J), v(5), se0, c="se += w even · xe[j:j+8]")
    a.ins("VFMADD231PS", "(%s)(%s*4)" % (XO, J), v(4), so0, c="so += w odd · xo[j:j+8]")
    a.ins("VFMADD231PS", "32(%s)(%s*4)" % (XE, J), v(7), se1, c="se += w even · xe[j+8:j+16]")
    a.ins("VFMADD231PS", "32(%s)(%s*4)" % (XO, J), v(6), so1, c="so += w odd · xo[j+8:j+16]")


a.header("gemv_amd64.py", """\
Four-row matrix-vector kernels: out[i] = Σ_{c<n} w[i·ldw+c]·x[c], i < 4.
Each x vector is loaded once for four rows of w, which keeps the loop
bound by the weight stream. n is a multiple of the vector width (8 or 16);
ldw is in elements and may be 0 (one row, four times: the Go driver's
way to finish the last rows of a matrix).

The four rows after these form one contiguous block (the next call's),
and each step asks for as many bytes of it as it reads (PREFETCHT0 from
R11 = w + 4·ldw), so the next block arrives while this one computes.
Without it the four short streams restart cold at every block: measured
on MatVecBF16 AVX-512, 19 → 25 GB/s by thread CPU time for 8960 × 1536,
with 34 GB/s for a plain one-stream read on the same box.

Registers: out DX, the rows SI, R8, R9, R10 (ldw bytes apart, in BX),
x DI, n CX, the column c AX; the sums s0..s3 in the level's v0..v3.""")
for isa in LEVELS:
    gemv4(isa, False, True)
for bf16 in (False, True):
    for isa in LEVELS:
        gemv4(isa, bf16, False)
for isa in LEVELS:
    widen(isa)
a.e()
a.comment(PAIR_DOC)
pair_idx()
for isa in LEVELS:
    gemv4_pair(isa)
gemv_rows_pair()
a.print()
