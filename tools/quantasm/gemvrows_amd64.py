#!/usr/bin/env python3
"""Writes kernels/gemvrows_amd64.s: the bf16 decode row loops that read
several streams (gemvRows4BF16PairAVX512, gemvRows3BF16PairAVX2).

Run `python3 tools/quantasm/gemvrows_amd64.py > kernels/gemvrows_amd64.s` after
editing. Per row they run the operations of the one-stream kernel
gemvRowsBF16PairAVX2 (kernels/gemv_amd64.s, which explains the pairs), in
its order, so every output keeps its bits; the readable reference is
matVecBF16Generic.

One core reads memory faster from several streams far apart than from one
(each stream has a hardware prefetcher of its own; on a Sapphire Rapids
VM, 1 GiB: 10.3 GB/s as one stream, 12.9 as two, 14.4 as four), so the Go
driver (matVecBF16Rows) gives each stream an equal band of the rows: four
where AVX512-VL's registers Y16-Y31 hold the sixteen accumulators, three
in AVX2's sixteen registers.
"""

from stream import AHEAD

out = []
def e(s=""): out.append(s)
def ins(op, *a, c=""):
    l = "\t%-12s %s" % (op, ", ".join(a))
    if c:
        l = "%-44s // %s" % (l, c)
    e(l)

def kernel(name, S, avx512):
    """The row loop of S streams: row k·rows + r (at w + k·stride + r·2·ldw
    bytes) to out[k·rows + r]; x split into xe, xo by the driver."""
    W = ['SI', 'BX', 'DI', 'R11'][:S]
    if avx512:
        acc = [['Y%d' % (16 + 4 * k + i) for i in range(4)] for k in range(S)]
        tmp = [['Y4', 'Y5', 'Y6', 'Y7'], ['Y8', 'Y9', 'Y10', 'Y11']] * 2
        zero = 'VPXORD'
    else:
        # three streams' accumulators in Y0-Y11 leave Y12-Y14 for the
        # weights: each half line is widened and used before the next
        acc = [['Y%d' % (4 * k + i) for i in range(4)] for k in range(S)]
        tmp = [['Y12', 'Y13', 'Y14', 'Y13']] * S
        zero = 'VXORPS'
    e('TEXT ·%s(SB), NOSPLIT, $0-64' % name)
    ins('MOVQ', 'out+0(FP)', 'DX')
    ins('MOVQ', 'rows+8(FP)', 'R12')
    ins('MOVQ', 'w+16(FP)', 'SI')
    ins('MOVQ', 'ldw+24(FP)', 'R13')
    ins('SHLQ', '$1', 'R13', c='row stride in bytes')
    ins('MOVQ', 'xe+32(FP)', 'R8')
    ins('MOVQ', 'xo+40(FP)', 'R9')
    ins('MOVQ', 'n+48(FP)', 'CX')
    ins('MOVQ', 'stride+56(FP)', 'AX')
    for k in range(1, S):
        ins('LEAQ', '(%s)(AX*1)' % W[k - 1], W[k], c='stream %d' % k)
    ins('SHRQ', '$1', 'CX', c='pairs')
    ins('VPCMPEQD', 'Y15', 'Y15', 'Y15')
    ins('VPSLLD', '$16', 'Y15', 'Y15', c='0xFFFF0000 per lane')
    L = name
    e('%srow:' % L)
    for k in range(S):
        for r in acc[k]:
            ins(zero, r, r, r)
    ins('XORQ', 'AX', 'AX', c='j = 0')
    ins('MOVQ', 'CX', 'R10')
    ins('ANDQ', '$-16', 'R10', c='pairs in whole 64-byte lines')
    ins('JE', '%stail' % L)
    e('%sloop:' % L)
    if avx512:
        ins('VMOVUPS', '(R8)(AX*4)', 'Y0', c='xe[j:j+8]')
        ins('VMOVUPS', '(R9)(AX*4)', 'Y1', c='xo[j:j+8]')
        ins('VMOVUPS', '32(R8)(AX*4)', 'Y2')
        ins('VMOVUPS', '32(R9)(AX*4)', 'Y3')
        xs = ['Y0', 'Y1', 'Y2', 'Y3']
    else:
        xs = ['(R8)(AX*4)', '(R9)(AX*4)', '32(R8)(AX*4)', '32(R9)(AX*4)']
    for k in range(S):
        a, b, c, d = tmp[k]
        se0, so0, se1, so1 = acc[k]
        w = W[k]
        ins('PREFETCHT0', '%d(%s)(AX*4)' % (AHEAD, w), c='AHEAD (2 KiB) ahead')
        if not avx512:
            for h, (u, v, se, so) in enumerate([(a, b, se0, so0), (c, d, se1, so1)]):
                ins('VMOVDQU', '%d(%s)(AX*4)' % (32 * h, w), u, c='stream %d: pairs j+%d … j+%d' % (k, 8 * h, 8 * h + 7))
                ins('VPSLLD', '$16', u, v)
                ins('VPAND', 'Y15', u, u)
                ins('VFMADD231PS', xs[2 * h], v, se)
                ins('VFMADD231PS', xs[2 * h + 1], u, so)
            continue
        ins('VMOVDQU', '(%s)(AX*4)' % w, a, c='stream %d: pairs j … j+7' % k)
        ins('VMOVDQU', '32(%s)(AX*4)' % w, c)
        ins('VPSLLD', '$16', a, b)
        ins('VPSLLD', '$16', c, d)
        ins('VPAND', 'Y15', a, a)
        ins('VPAND', 'Y15', c, c)
        ins('VFMADD231PS', xs[0], b, se0)
        ins('VFMADD231PS', xs[1], a, so0)
        ins('VFMADD231PS', xs[2], d, se1)
        ins('VFMADD231PS', xs[3], c, so1)
    ins('ADDQ', '$16', 'AX')
    ins('CMPQ', 'AX', 'R10')
    ins('JL', '%sloop' % L)
    e('%stail:' % L)
    ins('CMPQ', 'AX', 'CX', c='a last half line?')
    ins('JGE', '%ssum' % L)
    for k in range(S):
        a, b, c, d = tmp[k]
        se0, so0, se1, so1 = acc[k]
        w = W[k]
        ins('VMOVDQU', '(%s)(AX*4)' % w, a)
        ins('VPSLLD', '$16', a, b)
        ins('VPAND', 'Y15', a, a)
        ins('VFMADD231PS', '(R8)(AX*4)', b, se0)
        ins('VFMADD231PS', '(R9)(AX*4)', a, so0)
    e('%ssum:' % L)
    ins('MOVQ', 'rows+8(FP)', 'AX')
    ins('SHLQ', '$2', 'AX', c="the streams' outputs, bytes apart")
    outs = ['(DX)', '(DX)(AX*1)', '(DX)(AX*2)', '(DX)(AX*1)']
    for k in range(S):
        se0, so0, se1, so1 = acc[k]
        # AVX2's second stream folds in place: Y0-Y3 hold stream 0's sums.
        s0, s2, s1 = (se0, se1, 'X' + so0[1:]) if not avx512 and k > 0 else ('Y0', 'Y2', 'X1')
        x0 = 'X' + s0[1:]
        ins('VADDPS', so0, se0, s0, c='s = se + so')
        ins('VADDPS', so1, se1, s2)
        ins('VADDPS', s2, s0, s0)
        ins('VEXTRACTF128', '$1', s0, s1, c='fold 8 lanes to 4')
        ins('VADDPS', s1, x0, x0)
        ins('VHADDPS', x0, x0, x0)
        ins('VHADDPS', x0, x0, x0)
        if k == 3:
            ins('LEAQ', '(AX)(AX*2)', 'AX')
        ins('VMOVSS', x0, outs[k], c='out[%d·rows + r]' % k)
    ins('ADDQ', '$4', 'DX', c='next row')
    for k in range(S):
        ins('ADDQ', 'R13', W[k])
    ins('DECQ', 'R12')
    ins('JNZ', '%srow' % L)
    ins('VZEROUPPER')
    ins('RET')
    e()

e("//go:build amd64 && !purego")
e()
e("// Code generated by tools/quantasm/gemvrows_amd64.py; DO NOT EDIT.")
e()
e('#include "textflag.h"')
e()
e("// func gemvRows4BF16PairAVX512(out *float32, rows int, w *BF16, ldw int, xe, xo *float32, n, stride int)")
e("//")
e("// gemvRowsBF16PairAVX2 over four streams: for r < rows and k < 4, the row")
e("// at w + k·stride + r·2·ldw bytes goes to out[k·rows + r]. The 8-lane")
e("// vectors of the one-stream kernel, the sixteen accumulators in Y16–Y31 and")
e("// x in Y0–Y3, loaded once a step for the four rows; each stream")
e("// prefetches AHEAD (2 KiB) ahead of itself. n is a multiple of 16,")
e("// rows ≥ 1.")
kernel("gemvRows4BF16PairAVX512", 4, True)
e("// func gemvRows3BF16PairAVX2(out *float32, rows int, w *BF16, ldw int, xe, xo *float32, n, stride int)")
e("//")
e("// gemvRows4BF16PairAVX512 with three streams, for AVX2's sixteen")
e("// registers: the accumulators of stream k in Y4k–Y4k+3, the weights")
e("// widened half a line at a time in Y12–Y14, x read from memory.")
kernel("gemvRows3BF16PairAVX2", 3, False)
print("\n".join(out))
