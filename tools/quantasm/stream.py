"""The weight streams' prefetch, shared by the decode kernels that read
several streams at once (quant_amd64.py, quant8_amd64.py, gemv_amd64.py,
gemvrows_amd64.py).

Each step of a row loop asks for the lines AHEAD bytes beyond the weights
it reads (PREFETCHT0, one per 64 bytes the step spans; kernels/gemv_amd64.s
explains the hint). Rows lie one after another, so the stream runs on
across rows, per-row calls and past a matrix's end, where a prefetch is
harmless.

AHEAD is 2 KiB. The kernels read three or four streams at once, and each
stream's lines, asked for AHEAD bytes early, wait in L1 until the loads
reach them: 8 KiB ahead kept up to 32 KiB of four streams there, all of
a 32 KiB L1 (Zen 3, Intel's E-cores) and two thirds of a 48 KiB one. On
the Sapphire Rapids VM, Qwen2.5-1.5B decode (passes/s, medians of three
interleaved rounds, docs/performance.md) went from 8 KiB to 2 KiB:
AVX2 code Q4_K_M 13.69 → 14.50 on one thread and 23.58 → 26.79 on two,
Q8_0 8.87 → 9.00 and 15.86 → 17.15, BF16 4.68 → 5.01 and 8.91 → 9.44;
AVX-512 code Q4_K_M 14.65 → 15.31 and 26.14 → 28.18. 1 KiB read no
faster than 2.
"""

AHEAD = 2048

# The far prefetch: PREFETCHT1 (into L2) FAR_AHEAD bytes ahead, in the
# twin of the four-stream AVX512-VNNI Q6_K kernel that Zen 4 runs
# (dotRows4Q6KFarVNNI). There, Qwen2.5-1.5B's Q6_K decode read 69-71 %
# of the probe beside it with PREFETCHT0 2 KiB and 85-89 % with this on
# one thread, 69-84 % and 84-86 % on two (docs/performance.md). The
# same change read Q8_0 and bf16 faster on one thread but slower on two,
# Q4_K and Q5_K no faster, and no other CPU was measured: those kernels
# keep PREFETCHT0 AHEAD.
FAR_AHEAD = 4096

def prefetch_lines(ins, nbytes, at="%d(SI)", far=False):
    """Emits the prefetches of one step over nbytes of weights at SI (or
    the address at formats with the offset): PREFETCHT0 AHEAD bytes
    ahead, or with far PREFETCHT1 FAR_AHEAD bytes ahead."""
    hint, ahead = ("PREFETCHT1", FAR_AHEAD) if far else ("PREFETCHT0", AHEAD)
    for k in range(-(-nbytes // 64)):
        ins(hint, at % (ahead + 64 * k))
