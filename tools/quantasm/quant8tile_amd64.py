#!/usr/bin/env python3
"""Writes kernels/quant8tile_amd64.s: the integer prefill tiles, AVX2
(VPMADDUBSW, VPADDW, VPMADDWD; VPSIGNB for Q8_0) and AVX-VNNI (VEX
VPDPBUSD).

Run `python3 tools/quantasm/quant8tile_amd64.py > kernels/quant8tile_amd64.s`
after editing. The readable reference is kernels/quant8tile.go
(tileQ4KGeneric, tileQ6KGeneric), which also writes the panels these
kernels read.

A tile is 8 rows × T tokens (T = 1…6): a Y register of the panel holds 4
consecutive columns of each of the 8 rows (bytes [k/4][row][4]), and one
token's 4 activations, broadcast, meet it, so that each int32 lane gathers
a row's 4 products. The integer sums are exact: a Q4_K weight is 0…15 and
|x| ≤ 127, so VPMADDUBSW's int16 pairs stay within 3,810 and eight of them
(the 32 columns of a sub-block) within 30,480, summed in int16 before one
VPMADDWD widens them; Q6_K's 0…63 make pairs of 16,002, two of which are
summed before widening. VEX VPDPBUSD (AVX-VNNI) gives the same int32 sums
in one instruction, hence the same bits. The scales meet the sums in fp32,
once per sub-block: out += float(Σ q·x) · (d·sc · dx) − dmin·m · Σx̂.

Registers of the Q4_K tile: Y0-Y5 the int sums of tokens 0-5, Y6-Y11
their fp32 sums, Y12 the panel's 4 columns, Y13 and Y15 temporaries, Y14
the int16 ones. The Q6_K tile: Y0-Y5 the fp32 sums, Y6-Y9 the panel's 16
columns, Y10-Y12 temporaries, Y14 the ones.
"""

from avx import Asm, byte_code

a = Asm()
ins = a.ins

a.header("quant8tile_amd64.py", __doc__.split("\n\n", 1)[1].split("\n\nRegisters")[0])
a.e()
a.e("DATA q8tones16<>+0(SB)/4, $0x00010001")
a.e("GLOBL q8tones16<>(SB), RODATA|NOPTR, $4")

ARGS = "out *float32, ldOut int, wq *byte, sm *float32, x *int8, ldx int, ds *float32, ldd int, nb int"


def vpdpbusd(signed, unsigned, acc):
    """VEX.256.66.0F38.W0 50 /r on Y registers: acc += Σ over each 4 bytes
    of unsigned × signed (Go's assembler has only the EVEX form)."""
    d, v, r = acc, unsigned, signed
    code = [0xC4, ((~d >> 3) & 1) << 7 | 1 << 6 | ((~r >> 3) & 1) << 5 | 0x02,
            ((~v) & 0xF) << 3 | 1 << 2 | 0x01, 0x50, 0xC0 | (d & 7) << 3 | (r & 7)]
    ins(byte_code(code), c="VPDPBUSD Y%d, Y%d, Y%d (VEX)" % (r, v, d))


def tok(base, t, stride):
    """The address of token t's row: base (token 0) or base3 (token 3)
    plus 0, 1 or 2 strides."""
    b = base[0] if t < 3 else base[1]
    k = t % 3
    return "(%s)" % b if k == 0 else "(%s)(%s*%d)" % (b, stride, k)


def at(off, addr):
    return ("%d" % off if off else "") + addr


X, D = ("AX", "BX"), ("R9", "R10")


def prologue(name, T):
    a.text(name, 72, "func %s(%s)" % (name, ARGS))
    ins("MOVQ", "out+0(FP)", "DI")
    ins("MOVQ", "ldOut+8(FP)", "R8")
    ins("SHLQ", "$2", "R8", c="bytes a token of out")
    ins("MOVQ", "wq+16(FP)", "SI")
    ins("MOVQ", "sm+24(FP)", "DX")
    ins("MOVQ", "x+32(FP)", "AX")
    ins("MOVQ", "ldx+40(FP)", "CX")
    ins("LEAQ", "(AX)(CX*2)", "BX")
    ins("ADDQ", "CX", "BX", c="token 3's x")
    ins("MOVQ", "ds+48(FP)", "R9")
    ins("MOVQ", "ldd+56(FP)", "R11")
    ins("SHLQ", "$2", "R11", c="bytes a token of ds")
    ins("LEAQ", "(R9)(R11*2)", "R10")
    ins("ADDQ", "R11", "R10", c="token 3's ds")
    ins("MOVQ", "nb+64(FP)", "R12")
    ins("VPBROADCASTD", "q8tones16<>(SB)", "Y14")


def store(accs, T):
    for t in range(T):
        if t == 3:
            ins("LEAQ", "(DI)(R8*2)", "R13")
            ins("ADDQ", "R8", "R13")
        ins("VMOVUPS", "Y%d" % accs[t], tok(("DI", "R13"), t, "R8"), c="out[token %d]" % t)
    a.ret()


def advance(wq, sm, xs, ds, label):
    ins("ADDQ", "$%d" % wq, "SI")
    ins("ADDQ", "$%d" % sm, "DX")
    for r in X:
        ins("ADDQ", "$%d" % xs, r)
    for r in D:
        ins("ADDQ", "$%d" % ds, r)
    ins("DECQ", "R12")
    ins("JNZ", label)


def zero(regs, op="VXORPS"):
    """The Y registers regs = 0: fp32 sums by VXORPS, int ones by VPXOR."""
    for r in regs:
        ins(op, "Y%d" % r, "Y%d" % r, "Y%d" % r)


def scale_sum(t, acc, f, tmp, sm="(DX)", mins=False, c="d·sc·dx"):
    """f += float(acc) · (sm · dx of token t), acc's int32 sums converted
    in place (or into Y15 for a mins tile); with mins, f −= (sm + 32
    bytes) · Σx̂ of token t as well."""
    cv = "Y15" if mins else acc
    ins("VCVTDQ2PS", acc, cv)
    ins("VBROADCASTSS", tok(D, t, "R11"), tmp, c="dx")
    ins("VMULPS", sm, tmp, tmp, c=c)
    ins("VFMADD231PS", tmp, cv, f)
    if mins:
        ins("VBROADCASTSS", at(4, tok(D, t, "R11")), tmp, c="Σx̂")
        ins("VFNMADD231PS", "32" + sm, tmp, f, c="− dmin·m·Σx̂")


def q4k_tile(T, vnni, fmt="Q4K"):
    name = "tile%s%d%s" % (fmt, T, "AVXVNNI" if vnni else "AVX2")
    lab = "%st%d%s" % (fmt[:2].lower() if fmt != "Q4K" else "q4", T, "v" if vnni else "")
    prologue(name, T)
    zero([6 + t for t in range(T)])
    if vnni:
        zero(range(T), "VPXOR")
    a.label(lab)
    for g in range(8):
        ins("VMOVDQU", "%d(SI)" % (32 * g) if g else "(SI)", "Y12", c="columns %d-%d of the 8 rows" % (4 * g, 4 * g + 3))
        for t in range(T):
            ins("VPBROADCASTD", at(4 * g, tok(X, t, "CX")), "Y13")
            if vnni:
                vpdpbusd(13, 12, t)
            elif g == 0:
                ins("VPMADDUBSW", "Y13", "Y12", "Y%d" % t)
            else:
                ins("VPMADDUBSW", "Y13", "Y12", "Y13")
                ins("VPADDW", "Y13", "Y%d" % t, "Y%d" % t)
    for t in range(T):
        acc, f = "Y%d" % t, "Y%d" % (6 + t)
        if not vnni:
            ins("VPMADDWD", "Y14", acc, acc, c="Σ q·x of the sub-block")
        scale_sum(t, acc, f, "Y13", mins=True)
        if vnni:
            zero([t], "VPXOR")
    advance(256, 64, 32, 16, lab)
    store([6 + t for t in range(T)], T)


def q5k_tile(T, vnni):
    """The Q4_K tile for 5-bit weights (0…31): their VPMADDUBSW pairs reach
    7,874, so four of them (16 columns) sum in int16 before VPMADDWD, and
    the AVX2 tile holds 4 tokens: Y0-Y3 the int32 sums, Y4-Y7 the int16
    ones, Y8-Y11 the fp32 ones. With VPDPBUSD it is the Q4_K tile."""
    if vnni:
        return q4k_tile(T, vnni, "Q5K")
    name = "tileQ5K%dAVX2" % T
    lab = "q5t%d" % T
    prologue(name, T)
    zero([8 + t for t in range(T)])
    a.label(lab)
    for g in range(8):
        ins("VMOVDQU", at(32 * g, "(SI)"), "Y12", c="columns %d-%d of the 8 rows" % (4 * g, 4 * g + 3))
        for t in range(T):
            acc = "Y%d" % (t if g < 4 else 4 + t)
            ins("VPBROADCASTD", at(4 * g, tok(X, t, "CX")), "Y13")
            if g % 4 == 0:
                ins("VPMADDUBSW", "Y13", "Y12", acc)
            else:
                ins("VPMADDUBSW", "Y13", "Y12", "Y13")
                ins("VPADDW", "Y13", acc, acc)
            if g == 3:
                ins("VPMADDWD", "Y14", acc, acc, c="Σ q·x of columns 0-15")
    for t in range(T):
        acc, f = "Y%d" % t, "Y%d" % (8 + t)
        ins("VPMADDWD", "Y14", "Y%d" % (4 + t), "Y%d" % (4 + t), c="Σ q·x of columns 16-31")
        ins("VPADDD", "Y%d" % (4 + t), acc, acc)
        scale_sum(t, acc, f, "Y13", mins=True)
    advance(256, 64, 32, 16, lab)
    store([8 + t for t in range(T)], T)


def q8_0_tile(T):
    """The Q8_0 tile with VPDPBUSD: the panel holds q + 128 (unsigned),
    so each token's sums start at −128·Σq of its block (4 times the two
    halves' −32·Σq), and a block's one scale d meets dx."""
    name = "tileQ8_0%dAVXVNNI" % T
    lab = "q80t%d" % T
    prologue(name, T)
    zero([6 + t for t in range(T)])
    a.label(lab)
    for t in range(T):
        acc = "Y%d" % t
        ins("VPBROADCASTD", at(8, tok(D, t, "R11")), acc)
        ins("VPBROADCASTD", at(12, tok(D, t, "R11")), "Y13")
        ins("VPADDD", "Y13", acc, acc)
        ins("VPSLLD", "$2", acc, acc, c="−128·Σq of the block")
    for g in range(8):
        ins("VMOVDQU", at(32 * g, "(SI)"), "Y12", c="columns %d-%d of the 8 rows, + 128" % (4 * g, 4 * g + 3))
        for t in range(T):
            ins("VPBROADCASTD", at(4 * g, tok(X, t, "CX")), "Y13")
            vpdpbusd(13, 12, t)
    for t in range(T):
        scale_sum(t, "Y%d" % t, "Y%d" % (6 + t), "Y13", c="d·dx")
    advance(256, 64, 32, 16, lab)
    store([6 + t for t in range(T)], T)


def q8_0_tile_avx2(T):
    """The Q8_0 tile with VPMADDUBSW. The panel's q + 128 would make pairs
    of up to 2·255·127, past int16; so each 4 columns are turned back to q
    (VPXOR 0x80) and meet the activations as |q| (unsigned) and x·sign(q)
    (VPSIGNB), pairs of at most 2·128·127 = 32,512, widened to int32 by
    VPMADDWD before they add: Σ q·x, the integers VPDPBUSD's tile sums.
    Y15 holds q, Y12 |q|, Y13 a token's 4 activations."""
    name = "tileQ8_0%dAVX2" % T
    lab = "q80t%da" % T
    prologue(name, T)
    zero([6 + t for t in range(T)])
    a.label(lab)
    for g in range(8):
        ins("VMOVDQU", at(32 * g, "(SI)"), "Y15", c="columns %d-%d of the 8 rows, + 128" % (4 * g, 4 * g + 3))
        ins("VPXOR", "q8tc80y<>(SB)", "Y15", "Y15", c="q")
        ins("VPABSB", "Y15", "Y12", c="|q| ≤ 128")
        for t in range(T):
            ins("VPBROADCASTD", at(4 * g, tok(X, t, "CX")), "Y13")
            ins("VPSIGNB", "Y15", "Y13", "Y13", c="x·sign(q)")
            ins("VPMADDUBSW", "Y13", "Y12", "Y13")
            if g == 0:
                ins("VPMADDWD", "Y14", "Y13", "Y%d" % t, c="Σ q·x of 4 columns")
            else:
                ins("VPMADDWD", "Y14", "Y13", "Y13")
                ins("VPADDD", "Y13", "Y%d" % t, "Y%d" % t)
    for t in range(T):
        scale_sum(t, "Y%d" % t, "Y%d" % (6 + t), "Y13", c="d·dx")
    advance(256, 64, 32, 16, lab)
    store([6 + t for t in range(T)], T)


def q6k_tile(T, vnni):
    name = "tileQ6K%d%s" % (T, "AVXVNNI" if vnni else "AVX2")
    lab = "q6t%d%s" % (T, "v" if vnni else "")
    prologue(name, T)
    zero(range(T))
    a.label(lab)
    for h in range(2):
        for g in range(4):
            ins("VMOVDQU", at(32 * (4 * h + g), "(SI)"), "Y%d" % (6 + g), c="columns %d-%d" % (16 * h + 4 * g, 16 * h + 4 * g + 3))
        for t in range(T):
            xa = lambda g: at(16 * h + 4 * g, tok(X, t, "CX"))
            ins("VPBROADCASTD", at(8 + 4 * h, tok(D, t, "R11")), "Y10", c="−32·Σq of the 16")
            if vnni:
                for g in range(4):
                    ins("VPBROADCASTD", xa(g), "Y11")
                    vpdpbusd(11, 6 + g, 10)
            else:
                for pair in range(2):
                    g = 2 * pair
                    ins("VPBROADCASTD", xa(g), "Y11")
                    ins("VPMADDUBSW", "Y11", "Y%d" % (6 + g), "Y11")
                    ins("VPBROADCASTD", xa(g + 1), "Y12")
                    ins("VPMADDUBSW", "Y12", "Y%d" % (7 + g), "Y12")
                    ins("VPADDW", "Y12", "Y11", "Y11")
                    ins("VPMADDWD", "Y14", "Y11", "Y11")
                    ins("VPADDD", "Y11", "Y10", "Y10")
            scale_sum(t, "Y10", "Y%d" % t, "Y11", sm=at(32 * h, "(DX)"))
    advance(256, 64, 32, 16, lab)
    store(list(range(T)), T)


# ------------------------------------------------ the panels

PACK_ARGS = "wq *byte, src *byte, rb int, nb int"
ROWS = ["(SI)", "(SI)(R8*1)", "(SI)(R8*2)", "(SI)(R9*1)", "(R10)", "(R10)(R8*1)", "(R10)(R8*2)", "(R10)(R9*1)"]


def transpose_store(off):
    """Y0-Y7 hold 8 rows of 8 dwords (4 columns each); writes the 8
    columns of dwords, each the 8 rows' 4 bytes, at off(DI), off+32(DI), …
    (unpack 32, unpack 64, swap 128-bit halves)."""
    t = [8, 9, 0, 1, 2, 3, 4, 5]  # where t0 … t7 land as the rows are used
    for k in range(4):
        ins("VPUNPCKLDQ", "Y%d" % (2 * k + 1), "Y%d" % (2 * k), "Y%d" % t[2 * k])
        ins("VPUNPCKHDQ", "Y%d" % (2 * k + 1), "Y%d" % (2 * k), "Y%d" % t[2 * k + 1])
    u = [6, 7, 8, 0, 9, 1, 2, 4]
    for k, (x, y) in enumerate([(0, 2), (1, 3), (4, 6), (5, 7)]):
        ins("VPUNPCKLQDQ", "Y%d" % t[y], "Y%d" % t[x], "Y%d" % u[2 * k])
        ins("VPUNPCKHQDQ", "Y%d" % t[y], "Y%d" % t[x], "Y%d" % u[2 * k + 1])
    for g in range(4):
        for half, imm in ((0, "$0x20"), (1, "$0x31")):
            ins("VPERM2I128", imm, "Y%d" % u[g + 4], "Y%d" % u[g], "Y3")
            ins("VMOVDQU", "Y3", at(off + 32 * (g + 4 * half), "(DI)"), c="columns %d-%d" % (4 * (g + 4 * half), 4 * (g + 4 * half) + 3))


def pack_prologue(name, doc):
    a.text(name, 32, doc + "\n\nfunc %s(%s)" % (name, PACK_ARGS))
    ins("MOVQ", "wq+0(FP)", "DI")
    ins("MOVQ", "src+8(FP)", "SI")
    ins("MOVQ", "rb+16(FP)", "R8")
    ins("LEAQ", "(R8)(R8*2)", "R9", c="3 rows")
    ins("LEAQ", "(SI)(R8*4)", "R10", c="row 4")
    ins("MOVQ", "nb+24(FP)", "CX")


def nibbles(src, y, high):
    """y = the low (or high) nibbles of the 32 bytes at src, masked by Y15
    (0x0f). VEX shifts take no memory operand: the high ones are loaded
    first."""
    if high:
        ins("VMOVDQU", src, y)
        ins("VPSRLW", "$4", y, y)
        ins("VPAND", "Y15", y, y)
    else:
        ins("VPAND", src, "Y15", y)


def or_bits(src, y, shift):
    """y |= (the 32 bytes at src shifted left by shift, right for a
    negative one) masked by Y14: a word shift moves no bit of one byte
    into the masked bits of the other."""
    if shift == 0:
        ins("VPAND", src, "Y14", "Y8")
    else:
        ins("VMOVDQU", src, "Y8")
        ins("VPSLLW" if shift > 0 else "VPSRLW", "$%d" % abs(shift), "Y8", "Y8")
        ins("VPAND", "Y14", "Y8", "Y8")
    ins("VPOR", "Y8", y, y)


def pack_loop_end(block, out, label):
    """The next block of each row (block bytes on) and of the panel (out
    bytes on), while nb lasts."""
    ins("ADDQ", "$%d" % block, "SI")
    ins("ADDQ", "$%d" % block, "R10")
    ins("ADDQ", "$%d" % out, "DI")
    ins("DECQ", "CX")
    ins("JNZ", label)
    a.ret()


def pack_q4k():
    name = "packQ4KAVX2"
    pack_prologue(name, "packQ4KAVX2 writes the bytes of a Q4_K panel (packQ4KRow for 8 rows, "
                  "rb bytes apart, nb blocks): sub-block 2p of a block is the low nibbles of "
                  "qs[32p …], 2p+1 the high ones.")
    ins("VPBROADCASTD", "q8tc0f<>(SB)", "Y15")
    a.label("pq4")
    for p in range(4):
        for hi in range(2):
            for i, r in enumerate(ROWS):
                nibbles(at(16 + 32 * p, r), "Y%d" % i, hi)
            transpose_store(256 * (2 * p + hi))
    pack_loop_end(144, 2048, "pq4")


def pack_q5k():
    name = "packQ5KAVX2"
    pack_prologue(name, "packQ5KAVX2 writes the bytes of a Q5_K panel (packQ5KRow for 8 rows, "
                  "rb bytes apart, nb blocks): sub-block s is a nibble of qs[32·(s/2) …] "
                  "(low for s even) with bit s of qh[0 … 31] above it, moved to bit 4 "
                  "by a word shift and masked with 0x10.")
    ins("VPBROADCASTD", "q8tc0f<>(SB)", "Y15")
    ins("VPBROADCASTD", "q8tc10<>(SB)", "Y14")
    a.label("pq5")
    for s in range(8):
        for i, r in enumerate(ROWS):
            nibbles(at(48 + 32 * (s // 2), r), "Y%d" % i, s % 2)
            or_bits(at(16, r), "Y%d" % i, 4 - s)
        transpose_store(256 * s)
    pack_loop_end(176, 2048, "pq5")


def pack_q8_0():
    name = "packQ8_0AVX2"
    pack_prologue(name, "packQ8_0AVX2 writes the bytes of a Q8_0 panel (packQ8_0Row for 8 rows, "
                  "rb bytes apart, nb blocks of 32 columns): q + 128, as VPDPBUSD's unsigned side.")
    ins("VPBROADCASTD", "q8tc80<>(SB)", "Y15")
    a.label("pq80")
    for i, r in enumerate(ROWS):
        ins("VPXOR", at(2, r), "Y15", "Y%d" % i)
    transpose_store(0)
    pack_loop_end(34, 256, "pq80")


def pack_q6k():
    name = "packQ6KAVX2"
    pack_prologue(name, "packQ6KAVX2 writes the bytes of a Q6_K panel (packQ6KRow for 8 rows, "
                  "rb bytes apart, nb blocks): column 128h + 32p + l is a nibble of ql with "
                  "two bits of qh[32h + l] above it, (qh << 4, << 2, as is, >> 2) & 0x30.")
    ins("VPBROADCASTD", "q8tc0f<>(SB)", "Y15")
    ins("VPBROADCASTD", "q8tc30<>(SB)", "Y14")
    a.label("pq6")
    for h in range(2):
        for p in range(4):
            for i, r in enumerate(ROWS):
                nibbles(at(64 * h + 32 * (p % 2), r), "Y%d" % i, p >= 2)
                or_bits(at(128 + 32 * h, r), "Y%d" % i, (4, 2, 0, -2)[p])
            transpose_store(256 * (4 * h + p))
    pack_loop_end(210, 2048, "pq6")


a.e("DATA q8tc0f<>+0(SB)/4, $0x0f0f0f0f")
a.e("GLOBL q8tc0f<>(SB), RODATA|NOPTR, $4")
a.e("DATA q8tc30<>+0(SB)/4, $0x30303030")
a.e("GLOBL q8tc30<>(SB), RODATA|NOPTR, $4")
a.e("DATA q8tc80<>+0(SB)/4, $0x80808080")
a.e("GLOBL q8tc80<>(SB), RODATA|NOPTR, $4")
for k in range(8):
    a.e("DATA q8tc80y<>+%d(SB)/4, $0x80808080" % (4 * k))
a.e("GLOBL q8tc80y<>(SB), RODATA|NOPTR, $32")
a.e("DATA q8tc10<>+0(SB)/4, $0x10101010")
a.e("GLOBL q8tc10<>(SB), RODATA|NOPTR, $4")
pack_q4k()
pack_q5k()
pack_q6k()
pack_q8_0()

for vnni in (False, True):
    for T in range(1, 7):
        q4k_tile(T, vnni)
    for T in range(1, 7):
        q6k_tile(T, vnni)
    for T in range(1, 7 if vnni else 5):
        q5k_tile(T, vnni)
for T in range(1, 7):
    q8_0_tile(T)
for T in range(1, 7):
    q8_0_tile_avx2(T)

a.print()
