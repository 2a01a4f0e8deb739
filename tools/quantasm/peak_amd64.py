#!/usr/bin/env python3
"""Writes kernels/peak_amd64.s: the FMA peak loops (fmaPeakAVX2,
fmaPeakAVX512, fmaPeakBF16) that kernels.FMAPeak times.

Run `python3 tools/quantasm/peak_amd64.py > kernels/peak_amd64.s` after
editing. One description, peak(), gives both FMA levels (avx.py).
"""

from avx import Asm, AVX2, AVX512, byte_code, vdpbf16ps

CHAINS = 12  # more than FMA latency × FMA pipes = 4 × 2
M, C = 0x3f7fbe77, 0x3a83126f  # float32 0.999 and 0.001

a = Asm()


def splat(isa, bits, reg, what):
    """reg = the float32 bits in every lane. AVX2 broadcasts from an X
    register only; AVX-512 from a general register."""
    a.ins("MOVL", "$0x%08x" % bits, "AX", c=what)
    if isa is AVX2:
        a.ins("MOVQ", "AX", "X%d" % reg)
        a.ins("VBROADCASTSS", "X%d" % reg, isa.v(reg))
    else:
        a.ins("VPBROADCASTD", "AX", isa.v(reg))


def zero_chains(isa):
    for i in range(CHAINS):
        a.ins(isa.bitxor, isa.v(i), isa.v(i), isa.v(i))


def peak(isa):
    """a_i = a_i·m + c in CHAINS registers, iters times."""
    name = "fmaPeak" + isa.name
    doc = "func %s(iters int)" % name
    if isa is AVX512:
        doc += ": fmaPeakAVX2 with 16 lanes."
    a.text(name, 8, doc)
    a.ins("MOVQ", "iters+0(FP)", "CX")
    splat(isa, M, 14, "m = 0.999")
    splat(isa, C, 15, "c = 0.001")
    zero_chains(isa)
    a.label(name + "loop")
    for i in range(CHAINS):
        a.ins("VFMADD213PS", isa.v(15), isa.v(14), isa.v(i), c="a%d = a%d·m + c" % (i, i))
    a.ins("DECQ", "CX")
    a.ins("JNZ", name + "loop")
    a.ret()


def peak_bf16():
    a.text("fmaPeakBF16", 8, """func fmaPeakBF16(iters int)

a += pairs(p, q) with VDPBF16PS in 12 chains; p = q = bf16 2^-7, so each
lane grows by 2^-13 a step and stays far from overflow.""")
    a.ins("MOVQ", "iters+0(FP)", "CX")
    a.ins("MOVL", "$0x3c003c00", "AX", c="two bf16 2^-7")
    a.ins("VPBROADCASTD", "AX", "Z16")
    a.ins("VPBROADCASTD", "AX", "Z17")
    zero_chains(AVX512)
    a.label("fmaPeakBF16loop")
    for i in range(CHAINS):
        code = byte_code(vdpbf16ps(16, 17, i))
        a.e("\t%s // VDPBF16PS Z16, Z17, Z%d: a%d += pairs(p, q)" % (code, i, i))
    a.ins("DECQ", "CX")
    a.ins("JNZ", "fmaPeakBF16loop")
    a.ret()


def peak_int8(vnni):
    """The integer prefill tiles' instructions, held in registers:
    VPMADDUBSW + VPADDW (32 multiply-adds into int16 lanes), or one VEX
    VPDPBUSD (AVX-VNNI), in 12 chains. The sums wrap; nothing reads them."""
    name = "int8Peak" + ("AVXVNNI" if vnni else "AVX2")
    doc = "func %s(iters int)" % name
    a.text(name, 8, doc)
    a.ins("MOVQ", "iters+0(FP)", "CX")
    a.ins("MOVL", "$0x01010101", "AX", c="bytes of 1")
    a.ins("MOVQ", "AX", "X14")
    a.ins("VPBROADCASTD", "X14", "Y14")
    a.ins("VMOVDQA", "Y14", "Y15")
    zero_chains(AVX2)
    a.label(name + "loop")
    for i in range(CHAINS):
        if vnni:  # VEX.256.66.0F38.W0 50 /r: Y_i += Σ4 Y14·Y15
            code = [0xC4,
                    ((~i >> 3) & 1) << 7 | 1 << 6 | 0x02,  # R̄ X̄, B̄ = 0 (Y15), map 0F38
                    ((~14) & 0xF) << 3 | 1 << 2 | 0x01,  # W0, vvvv = Y14, 256 bits, 66
                    0x50, 0xC0 | (i & 7) << 3 | 7]
            a.e("\t%s // VPDPBUSD Y15, Y14, Y%d (VEX)" % (byte_code(code), i))
        else:
            t = "Y%d" % (12 + i % 2)
            a.ins("VPMADDUBSW", "Y15", "Y14", t)
            a.ins("VPADDW", t, "Y%d" % i, "Y%d" % i)
    a.ins("DECQ", "CX")
    a.ins("JNZ", name + "loop")
    a.ret()


a.header("peak_amd64.py", """The peak loops keep every operand in registers: a = a·m + c in 12
independent chains (more than FMA latency × FMA pipes = 4 × 2), so the
loop runs at the FMA issue rate. m < 1 keeps the values bounded and
normal, so no denormal slow path is ever taken.""")
for isa in (AVX2, AVX512):
    peak(isa)
peak_bf16()
peak_int8(False)
peak_int8(True)
a.print()
