package perf

import "loupe/kernels"

// fmaLoop is the compute probe's inner loop: iters rounds of independent
// multiply-adds in registers at the active kernel level, returning the
// operations done. A variable so tests can count its calls.
var fmaLoop = kernels.FMAPeakLoop
