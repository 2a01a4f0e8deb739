"""The weight stream's prefetch, shared by quant_amd64.py and quant8_amd64.py.

Each step of a row loop asks for the lines AHEAD bytes beyond the weights
it reads (PREFETCHT0, one per 64 bytes the step spans), as the bf16 decode
kernel does (kernels/gemv_amd64.s explains the hint and the distance).
Rows lie one after another, so the stream runs on across rows, per-row
calls and past a matrix's end, where a prefetch is harmless.
"""

AHEAD = 8192

def prefetch_lines(ins, nbytes, at="%d(SI)"):
    """Emits the prefetches of one step over nbytes of weights at SI (or
    the address at formats with the offset)."""
    for k in range(-(-nbytes // 64)):
        ins("PREFETCHT0", at % (AHEAD + 64 * k))
