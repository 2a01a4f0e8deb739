package perf

// readBlock is the unit each worker reads: 256 bytes, four cache lines, the
// unrolled step of the vector loop (8 × 32-byte loads).
const (
	readBlock = 256
	readWords = readBlock / 8
)

// readSum returns Σ buf[i] (mod 2⁶⁴) over len(buf), a multiple of
// readWords. It is the streaming read of the bandwidth probe: one load per
// word and an add that keeps it live.
func readSum(buf []uint64) uint64 {
	if useAVX512 && len(buf) > 0 {
		return readSumAVX512(&buf[0], len(buf))
	}
	if useAVX2 && len(buf) > 0 {
		return readSumAVX2(&buf[0], len(buf))
	}
	return readSumGeneric(buf)
}

// readSumGeneric is the readable loop: eight independent accumulators, so
// the adds never wait on one another and the loads stay in flight.
func readSumGeneric(buf []uint64) uint64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 uint64
	for i := 0; i+8 <= len(buf); i += 8 {
		b := buf[i : i+8 : i+8]
		s0 += b[0]
		s1 += b[1]
		s2 += b[2]
		s3 += b[3]
		s4 += b[4]
		s5 += b[5]
		s6 += b[6]
		s7 += b[7]
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
