#!/usr/bin/env python3
"""Writes kernels/norm_amd64.s: the element-wise kernels of norm.go (max,
expSubSum, scale, siluMul, sumSquares, rmsScale, each as AVX2 and AVX512)
and the vector exp that Softmax and SiLUMul share.

Run `python3 tools/quantasm/norm_amd64.py > kernels/norm_amd64.s` after
editing. Each kernel is one function of the level (avx.py); the exp, exp(),
is one sequence whose constants sit in registers or memory as the level's
registers allow. The readable references are norm_generic.go's and exp.go.
"""

from avx import Asm, LEVELS, AVX2, strided

a = Asm()

# The exp's constants in table order: name, float32 bits, comment.
CONSTS = [
    ("lo", 0xc2b00000, "-88"),
    ("hi", 0x42b20000, "89"),
    ("log2e", 0x3fb8aa3b, "log2e = 1.44269504"),
    ("magic", 0x4b40007f, "1.5·2²³ + 127 = 12583039"),
    ("ln2hi", 0x3f318000, "ln2Hi = 0.693359375 (9 bits: kf·ln2Hi is exact)"),
    ("ln2lo", 0xb95e8083, "ln2Lo = -2.12194440e-4"),
    ("c0", 0x39506967, "c0 = 1.9875691500e-4"),
    ("c1", 0x3ab743ce, "c1 = 1.3981999507e-3"),
    ("c2", 0x3c088908, "c2 = 8.3334519073e-3"),
    ("c3", 0x3d2aa9c1, "c3 = 4.1665795894e-2"),
    ("c4", 0x3e2aaaaa, "c4 = 1.6666665459e-1"),
    ("c5", 0x3f000000, "c5 = 5.0000001201e-1"),
    ("one", 0x3f800000, "1"),
    ("sign", 0x80000000, "sign bit"),
]
TABLE = "expc<>"
LANES_STORED = 8  # each constant 8 times: AVX2 takes it as a memory operand


def mem(name):
    i = [c[0] for c in CONSTS].index(name)
    return "%s+%d(SB)" % (TABLE, 4 * LANES_STORED * i)


def kept(isa):
    """The constants a level keeps in registers, from its first free one:
    AVX2 has room for 11 in Y5-Y15 (c0, 1 and the sign come from memory),
    AVX-512 for all 14 in Z16-Z29."""
    if isa is AVX2:
        return 5, [c[0] for c in CONSTS if c[0] not in ("c0", "one", "sign")]
    return 16, [c[0] for c in CONSTS]


def const(isa, name):
    """A constant as an operand: its register, or its 8 lanes in memory."""
    base, names = kept(isa)
    return isa.v(base + names.index(name)) if name in names else mem(name)


def load_exp(isa):
    """Fills the constant registers: AVX2 loads the 8 stored lanes,
    AVX-512 broadcasts lane 0."""
    op = "VMOVUPS" if isa is AVX2 else "VBROADCASTSS"
    for name in kept(isa)[1]:
        a.ins(op, mem(name), const(isa, name))


def exp(isa, x, t, p, one, c=""):
    """p = e^x, clobbering x and t; one is 1 (a register or memory). The
    operand order of VMAXPS and VMINPS (x second, in Intel's terms) is
    what lets a NaN x through."""
    k = lambda name: const(isa, name)
    c0 = k("c0")
    if c:
        a.e("\t// %s" % c)
    a.ins("VMAXPS", x, k("lo"), x, c="x = max(x, -88)")
    a.ins("VMINPS", x, k("hi"), x, c="x = min(x, 89)")
    a.ins("VMOVAPS", k("magic"), t, c="t = 1.5·2²³ + 127")
    a.ins("VFMADD231PS", k("log2e"), x, t, c="t += x·log2e: 127 + n in the low bits")
    a.ins("VSUBPS", k("magic"), t, p, c="p = kf = t − magic = n")
    a.ins("VFNMADD231PS", k("ln2hi"), p, x, c="x -= kf·ln2Hi")
    a.ins("VFNMADD231PS", k("ln2lo"), p, x, c="x = r = x − kf·ln2Lo")
    a.ins("VPSLLD", "$23", t, t, c="t = 2^n")
    a.ins("VMOVUPS" if c0.endswith("(SB)") else "VMOVAPS", c0, p, c="p = c0")
    for i in range(1, 6):
        a.ins("VFMADD213PS", k("c%d" % i), x, p, c="p = p·r + c%d" % i)
    a.ins("VFMADD213PS", one, x, p, c="p = p·r + 1")
    a.ins("VFMADD213PS", one, x, p, c="p = p·r + 1 = e^r")
    a.ins("VMULPS", t, p, p, c="p = e^r · 2^n")


def vmax(isa):
    """m = the maximum of x in four running maxima, folded at the end."""
    v = isa.v
    name = "max" + isa.name
    a.text(name, 20, isa.twin_doc("max%s(x *float32, n int) float32", """\
\tm := x[0]
\tfor i := range n { m = max(m, x[i]) }
\treturn m

A NaN may be dropped here; the exp pass then turns it into a NaN sum."""))
    a.ins("MOVQ", "x+0(FP)", "SI")
    a.ins("MOVQ", "n+8(FP)", "CX")
    a.ins("VMOVUPS", "(SI)", v(0), c="m0 = x%s: four maxima hide the latency" % isa.cols(0))
    for k in range(1, 4):
        a.ins("VMOVAPS", v(0), v(k), c="m%d = m0" % k)

    def step(vecs):
        for k in range(vecs):
            a.ins("VMAXPS", "%s(SI)" % isa.off(k), v(k), v(k),
                  c="m%d = max(m%d, x%s)" % (k, k, isa.cols(k)))

    strided(a, isa, name, [("SI", 4, "x")], [(4, lambda: step(4)), (1, lambda: step(1))],
            name + "fold")
    a.ins("VMAXPS", v(1), v(0), v(0), c="m0 = max(m0, m1)")
    a.ins("VMAXPS", v(3), v(2), v(2), c="m2 = max(m2, m3)")
    a.ins("VMAXPS", v(2), v(0), v(0), c="m0 = max(m0, m2)")
    isa.fold(a, "VMAXPS", 0, 0, 1, "m0")
    a.ins("VPERMILPS", "$0x4e", "X0", "X1", c="lanes 2 3 0 1")
    a.ins("VMAXPS", "X1", "X0", "X0", c="2 lanes")
    a.ins("VPERMILPS", "$0xb1", "X0", "X1", c="lanes 1 0 3 2")
    a.ins("VMAXPS", "X1", "X0", "X0", c="1 lane")
    a.ins("VZEROUPPER")
    a.ins("MOVSS", "X0", "ret+16(FP)")
    a.ins("RET")


def exp_sub_sum(isa):
    """x = e^(x−m) in place, s = Σ x; one sum suffices (see the doc)."""
    v = isa.v
    name = "expSubSum" + isa.name
    a.text(name, 28, isa.twin_doc("expSubSum%s(x *float32, m float32, n int) float32", """\
\tvar s float32
\tfor i := range n { x[i] = exp(x[i] - m); s += x[i] }
\treturn s

One sum suffices: its add waits on nothing but the exp of its own vector,
and the loop is bound by the exp's 17 instructions, not by that latency."""))
    a.ins("MOVQ", "x+0(FP)", "SI")
    a.ins("VBROADCASTSS", "m+8(FP)", v(3), c="m in every lane")
    a.ins("MOVQ", "n+16(FP)", "CX")
    load_exp(isa)
    a.ins(isa.bitxor, v(4), v(4), v(4), c="s = 0")

    def one():
        x = "x" + isa.cols(0)
        a.ins("VMOVUPS", "(SI)", v(0), c=x)
        a.ins("VSUBPS", v(3), v(0), v(0), c=x + " - m")
        exp(isa, v(0), v(1), v(2), const(isa, "one"), c="e = exp(%s - m)" % x)
        a.ins("VMOVUPS", v(2), "(SI)", c=x + " = e")
        a.ins("VADDPS", v(2), v(4), v(4), c="s += e")

    strided(a, isa, name, [("SI", 4, "x")], [(1, one)], name + "fold")
    isa.fold(a, "VADDPS", 4, 0, 1)
    a.ins("VHADDPS", "X0", "X0", "X0", c="2 lanes")
    a.ins("VHADDPS", "X0", "X0", "X0", c="1 lane")
    a.ins("VZEROUPPER")
    a.ins("MOVSS", "X0", "ret+24(FP)")
    a.ins("RET")


def scale(isa):
    v = isa.v
    name = "scale" + isa.name
    a.text(name, 24, isa.twin_doc("scale%s(x *float32, a float32, n int)",
                              "\tfor i := range n { x[i] *= a }"))
    a.ins("MOVQ", "x+0(FP)", "SI")
    a.ins("VBROADCASTSS", "a+8(FP)", v(0), c="a in every lane")
    a.ins("MOVQ", "n+16(FP)", "CX")

    def one():
        a.ins("VMULPS", "(SI)", v(0), v(1), c="x%s * a" % isa.cols(0))
        a.ins("VMOVUPS", v(1), "(SI)")

    strided(a, isa, name, [("SI", 4, "x")], [(1, one)], name + "done")
    a.ret()


def silu_mul(isa):
    """out = g / (1 + e^-g) · up, with 1 in a register."""
    v = isa.v
    name = "siluMul" + isa.name
    a.text(name, 32, isa.twin_doc("siluMul%s(out, gate, up *float32, n int)", """\
\tfor i := range n { g := gate[i]; out[i] = g / (1 + exp(-g)) * up[i] }

For g < -88.38, exp(-g) = +Inf and g/(1+Inf) = -0: no Inf reaches the
product with up. The division is exact-rounded; out may alias gate."""))
    a.ins("MOVQ", "out+0(FP)", "DX")
    a.ins("MOVQ", "gate+8(FP)", "SI")
    a.ins("MOVQ", "up+16(FP)", "DI")
    a.ins("MOVQ", "n+24(FP)", "CX")
    load_exp(isa)
    one_reg = const(isa, "one")
    if one_reg.endswith("(SB)"):
        a.ins("VMOVUPS", one_reg, v(4), c="1 in every lane")
        one_reg = v(4)

    def one():
        r = isa.cols(0)
        a.ins("VMOVUPS", "(SI)", v(3), c="g = gate" + r)
        a.ins(isa.bitxor, const(isa, "sign"), v(3), v(0), c="-g")
        exp(isa, v(0), v(1), v(2), one_reg, c="e = exp(-g)")
        a.ins("VADDPS", one_reg, v(2), v(2), c="1 + e")
        a.ins("VDIVPS", v(2), v(3), v(2), c="g / (1 + e)")
        a.ins("VMULPS", "(DI)", v(2), v(2), c="g / (1 + e) * up" + r)
        a.ins("VMOVUPS", v(2), "(DX)", c="out" + r)

    strided(a, isa, name, [("SI", 4, "gate"), ("DI", 4, "up"), ("DX", 4, "out")],
            [(1, one)], name + "done")
    a.ret()


def sum_squares(isa):
    """s = Σ float64(x)² in float64 (each square exact), four sums; a
    vector holds lanes/2 float64s, converted from half a float32 vector."""
    v = isa.v
    lanes = isa.lanes // 2
    half = isa.bytes // 2
    name = "sumSquares" + isa.name
    a.text(name, 24, isa.twin_doc("sumSquares%s(x *float32, n int) float64", """\
\tvar s float64
\tfor i := range n { s += float64(x[i]) * float64(x[i]) }
\treturn s

In float64 like the generic loop (each square exact), four lanes a
vector, four sums.""", lanes="8 float64 lanes"))
    a.ins("MOVQ", "x+0(FP)", "SI")
    a.ins("MOVQ", "n+8(FP)", "CX")
    zero = "VXORPD" if isa is AVX2 else "VPXORQ"  # AVX-512 has no VEX VXORPD on Z
    for k in range(4):
        a.ins(zero, v(k), v(k), v(k), c="s%d = 0" % k)

    def step(vecs):
        for k in range(vecs):
            a.ins("VCVTPS2PD", "%s(SI)" % isa.off(k, half), v(4 + k),
                  c="float64(x%s)" % isa.cols(k, lanes))
        for k in range(vecs):
            a.ins("VFMADD231PD", v(4 + k), v(4 + k), v(k), c="s%d += x%s²" % (k, isa.cols(k, lanes)))

    # the loop counts float32s: four vectors of lanes/2 are 2·lanes of x
    strided(a, isa, name, [("SI", 4, "x")], [(2, lambda: step(4))], name + "two")
    a.ins("CMPQ", "CX", "$%d" % isa.lanes)
    a.ins("JL", name + "fold")
    step(2)
    a.label(name + "fold")
    a.ins("VADDPD", v(1), v(0), v(0), c="s0 += s1")
    a.ins("VADDPD", v(3), v(2), v(2), c="s2 += s3")
    a.ins("VADDPD", v(2), v(0), v(0), c="s0 += s2")
    isa.fold(a, "VADDPD", 0, 0, 1, "s0", lanes=lanes)
    a.ins("VHADDPD", "X0", "X0", "X0", c="1 lane")
    a.ins("VZEROUPPER")
    a.ins("MOVSD", "X0", "ret+16(FP)")
    a.ins("RET")


def rms_scale(isa):
    v = isa.v
    name = "rmsScale" + isa.name
    a.text(name, 40, isa.twin_doc("rmsScale%s(out, x, w *float32, inv float32, n int)",
                              "\tfor i := range n { out[i] = x[i] * inv * w[i] }"))
    a.ins("MOVQ", "out+0(FP)", "DX")
    a.ins("MOVQ", "x+8(FP)", "SI")
    a.ins("MOVQ", "w+16(FP)", "DI")
    a.ins("VBROADCASTSS", "inv+24(FP)", v(0), c="inv in every lane")
    a.ins("MOVQ", "n+32(FP)", "CX")

    def one():
        r = isa.cols(0)
        a.ins("VMULPS", "(SI)", v(0), v(1), c="x%s * inv" % r)
        a.ins("VMULPS", "(DI)", v(1), v(1), c="x%s * inv * w%s" % (r, r))
        a.ins("VMOVUPS", v(1), "(DX)", c="out" + r)

    strided(a, isa, name, [("SI", 4, "x"), ("DI", 4, "w"), ("DX", 4, "out")],
            [(1, one)], name + "done")
    a.ret()


a.header("norm_amd64.py", """\
Element-wise kernels (norm.go) and the vector exp that Softmax and SiLUMul
share. Whole vectors only: n is a multiple of 8 (AVX2) or 16 (AVX-512),
n > 0; the Go drivers in norm_amd64.go finish the tails.

The vector exp (inlined where a kernel says "e = exp(…)") is exp32's
algebra (exp.go) on 8 or 16 lanes with FMAs and without a branch:

\tx  = min(max(x, -88), 89)                  // NaN stays NaN
\tt  = x·log2e + (1.5·2²³ + 127)             // one rounding: t's low mantissa bits hold 127 + n, n = round(x·log2e)
\tkf = t − (1.5·2²³ + 127)                   // n as a float, exact
\tr  = x − kf·ln2Hi − kf·ln2Lo               // Cody–Waite, |r| ≤ ln2/2
\tp  = 1 + r(1 + r(c5 + r(c4 + … + r·c0)))  // e^r, exp32's degree-7 polynomial
\te  = p · Float32frombits(bits(t) << 23)    // 2^n: the shift leaves 127 + n in the exponent field

For -87.68 ≤ x < 88.38, -126 ≤ n ≤ 127, 2^n is a normal number and the
one rounding of p·2^n keeps e within 2 ulp (subnormal results within 2 of
the smallest). Below, down to the clamp at -88 and so for -Inf, n = -127:
2^n has bits 0 and e = +0 exactly. Above 127.5·ln2 ≈ 88.38, n = 128:
2^n has exponent field 255, e = +Inf (the true overflow is at 88.72).
A NaN x makes r, p and e NaN.

The constants, each in 8 lanes so that AVX2 can take it as a memory
operand; AVX-512 broadcasts lane 0 into a register. AVX2 keeps 11 of
them in Y5-Y15 (c0, 1 and the sign bit come from memory), AVX-512 all
14 in Z16-Z29.""")
a.e()
for i, (name, bits, what) in enumerate(CONSTS):
    a.e("// %s" % what)
    for lane in range(LANES_STORED):
        a.e("DATA %s+%d(SB)/4, $0x%08x" % (TABLE, 4 * (LANES_STORED * i + lane), bits))
a.e("GLOBL %s(SB), RODATA|NOPTR, $%d" % (TABLE, 4 * LANES_STORED * len(CONSTS)))
for kernel in (vmax, exp_sub_sum, scale, silu_mul, sum_squares, rms_scale):
    for isa in LEVELS:
        kernel(isa)
a.print()
