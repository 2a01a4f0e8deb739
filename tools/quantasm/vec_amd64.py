#!/usr/bin/env python3
"""Writes kernels/vec_amd64.s: Dot, Axpy and Add on whole vectors (dotAVX2,
dotAVX512, axpyAVX2, axpyAVX512, addAVX2, addAVX512).

Run `python3 tools/quantasm/vec_amd64.py > kernels/vec_amd64.s` after
editing. Each kernel is one function of the level (avx.py), called for
AVX2 and AVX-512; the readable references are vec_generic.go's.
"""

from avx import Asm, LEVELS, strided

a = Asm()


def dot(isa):
    """s = Σ a[i]·b[i] in four sums (they hide the FMA latency), added
    pairwise, then folded lane by lane."""
    v = isa.v
    name = "dot" + isa.name
    a.text(name, 28, isa.twin_doc("dot%s(a, b *float32, n int) float32", """\
\tvar s float32
\tfor i := range n { s += a[i] * b[i] }
\treturn s"""))
    a.ins("MOVQ", "a+0(FP)", "SI")
    a.ins("MOVQ", "b+8(FP)", "DI")
    a.ins("MOVQ", "n+16(FP)", "CX")
    for k in range(4):
        a.ins("VXORPS", v(k), v(k), v(k), c="s%d = 0" % k + (": four sums hide the FMA latency" if k == 0 else ""))

    def four():
        for k in range(4):
            a.ins("VMOVUPS", "%s(SI)" % isa.off(k), v(4 + k), c="a" + isa.cols(k))
        for k in range(4):
            a.ins("VFMADD231PS", "%s(DI)" % isa.off(k), v(4 + k), v(k),
                  c="s%d += a%s * b%s" % (k, isa.cols(k), isa.cols(k)))

    def one():
        a.ins("VMOVUPS", "(SI)", v(4), c="a" + isa.cols(0))
        a.ins("VFMADD231PS", "(DI)", v(4), v(0), c="s0 += a%s * b%s" % (isa.cols(0), isa.cols(0)))

    strided(a, isa, name, [("SI", 4, "a"), ("DI", 4, "b")], [(4, four), (1, one)], name + "sum")
    a.ins("VADDPS", v(1), v(0), v(0), c="s0 += s1")
    a.ins("VADDPS", v(3), v(2), v(2), c="s2 += s3")
    a.ins("VADDPS", v(2), v(0), v(0), c="s0 += s2")
    isa.fold(a, "VADDPS", 0, 0, 1, "s0")
    a.ins("VHADDPS", "X0", "X0", "X0", c="2 lanes")
    a.ins("VHADDPS", "X0", "X0", "X0", c="1 lane")
    a.ins("VZEROUPPER")
    a.ins("MOVSS", "X0", "ret+24(FP)")
    a.ins("RET")


def axpy(isa):
    """y += a·x, a broadcast once."""
    v = isa.v
    name = "axpy" + isa.name
    a.text(name, 32, isa.twin_doc("axpy%s(y, x *float32, a float32, n int)",
                              "\tfor i := range n { y[i] += a * x[i] }"))
    a.ins("MOVQ", "y+0(FP)", "DI")
    a.ins("MOVQ", "x+8(FP)", "SI")
    a.ins("VBROADCASTSS", "a+16(FP)", v(0), c="a in every lane")
    a.ins("MOVQ", "n+24(FP)", "CX")

    def step(vecs):
        for k in range(vecs):
            a.ins("VMOVUPS", "%s(DI)" % isa.off(k), v(1 + k), c="y" + isa.cols(k))
        for k in range(vecs):
            a.ins("VFMADD231PS", "%s(SI)" % isa.off(k), v(0), v(1 + k),
                  c="y%s += a * x%s" % (isa.cols(k), isa.cols(k)))
        for k in range(vecs):
            a.ins("VMOVUPS", v(1 + k), "%s(DI)" % isa.off(k))

    strided(a, isa, name, [("DI", 4, "y"), ("SI", 4, "x")],
            [(4, lambda: step(4)), (1, lambda: step(1))], name + "done")
    a.ret()


def add(isa):
    """y += x."""
    v = isa.v
    name = "add" + isa.name
    a.text(name, 24, isa.twin_doc("add%s(y, x *float32, n int)",
                              "\tfor i := range n { y[i] += x[i] }"))
    a.ins("MOVQ", "y+0(FP)", "DI")
    a.ins("MOVQ", "x+8(FP)", "SI")
    a.ins("MOVQ", "n+16(FP)", "CX")

    def one():
        a.ins("VMOVUPS", "(DI)", v(1), c="y" + isa.cols(0))
        a.ins("VADDPS", "(SI)", v(1), v(1), c="y%s + x%s" % (isa.cols(0), isa.cols(0)))
        a.ins("VMOVUPS", v(1), "(DI)")

    strided(a, isa, name, [("DI", 4, "y"), ("SI", 4, "x")], [(1, one)], name + "done")
    a.ret()


a.header("vec_amd64.py", """Whole vectors only: n is a multiple of 8 (AVX2) or 16 (AVX-512); the Go
wrappers in vec_amd64.go finish the tail.""")
for kernel in (dot, axpy, add):
    for isa in LEVELS:
        kernel(isa)
a.print()
