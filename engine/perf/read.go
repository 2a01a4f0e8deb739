package perf

// readBlock is the unit each worker reads: 256 bytes, four cache lines, the
// unrolled step of the vector loop (8 × 32-byte loads).
const (
	readBlock = 256
	readWords = readBlock / 8
)

// readSum returns Σ buf[i] (mod 2⁶⁴) over len(buf), a multiple of
// readWords. It is the streaming read of the bandwidth probe: one load per
// word and an add that keeps it live. It reads buf's four quarters side by
// side, as the decode kernels read a matrix (kernels.MatVecQ8): one core
// reads several streams far apart faster than one, each stream with a
// hardware prefetcher of its own (on a Sapphire Rapids VM, one core: 10.3
// GB/s as one stream, 12.9 as two, 14.4 as four, 14.8 as eight), and the
// probe must measure the most the kernels can read.
func readSum(buf []uint64) uint64 {
	n := len(buf) / 4 // a multiple of 8: len(buf) is one of readWords
	if useAVX512 && n > 0 {
		return readSumAVX512(&buf[0], n, 8*n)
	}
	if useAVX2 && n > 0 {
		return readSumAVX2(&buf[0], n, 8*n)
	}
	return readSumGeneric(buf)
}

// readSumGeneric is the readable loop: four streams, one per quarter of
// buf, two independent accumulators each, so the adds never wait on one
// another and the loads stay in flight.
func readSumGeneric(buf []uint64) uint64 {
	n := len(buf) / 4
	q0, q1, q2, q3 := buf[:n], buf[n:2*n], buf[2*n:3*n], buf[3*n:4*n]
	var s0, s1, s2, s3, s4, s5, s6, s7 uint64
	for i := 0; i+2 <= n; i += 2 {
		s0 += q0[i]
		s1 += q0[i+1]
		s2 += q1[i]
		s3 += q1[i+1]
		s4 += q2[i]
		s5 += q2[i+1]
		s6 += q3[i]
		s7 += q3[i+1]
	}
	return s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7
}

// readLoopName names the loop readSum runs.
func readLoopName() string {
	if useAVX512 {
		return "avx512"
	}
	if useAVX2 {
		return "avx2"
	}
	return "generic"
}
