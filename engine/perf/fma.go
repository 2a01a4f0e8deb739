package perf

import "loupe/kernels"

// fmaLoop is the compute probe's inner loop: iters rounds of independent
// multiply-adds in registers at the active kernel level, returning the
// operations done. A variable so tests can count its calls.
var fmaLoop = kernels.FMAPeakLoop

// fp32Loop is fmaLoop for fp32 products: the same but at AVX512BF16, whose
// own loop is VDPBF16PS.
var fp32Loop = kernels.FP32PeakLoop

// int8Loop is the integer prefill tiles' instructions (kernels.Int8PeakLoop).
var int8Loop = kernels.Int8PeakLoop
