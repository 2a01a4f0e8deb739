package sample

// splitMix64 is the generator docs/spec/sampling.md §5 fixes, written out so a Go
// release can never change the streams: distinct seeds give distinct
// streams, the same seed always the same one.
type splitMix64 struct{ s uint64 }

func (r *splitMix64) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	x := r.s
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// uniform is (next >> 11)·2⁻⁵³, a float64 in [0, 1).
func (r *splitMix64) uniform() float64 {
	return float64(r.next()>>11) * (1.0 / (1 << 53))
}
