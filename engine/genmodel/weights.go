package genmodel

import (
	"encoding/binary"
	"hash/fnv"
	"io"
	"math"
	"runtime"
	"sync"

	"loupe/kernels"
)

// initRule draws each value as mean + std·n with n ≈ N(0, 1).
type initRule struct{ mean, std float64 }

// logitStd is the standard deviation of a logit before softmax. After the
// final RMSNorm the hidden vector has norm ≈ √h, so embedding rows of std
// logitStd/√h give logits of std ≈ logitStd: over 151,936 ids that is a
// softmax whose top token holds a few percent, neither one-hot nor uniform.
const logitStd = 3.0

func embedding(h int) initRule { return initRule{0, logitStd / math.Sqrt(float64(h))} }

// matrix keeps activations at unit scale: y = x·Wᵀ with x of RMS 1 and
// W ~ N(0, 1/fan_in) has RMS ≈ 1.
func matrix(fanIn int) initRule { return initRule{0, 1 / math.Sqrt(float64(fanIn))} }

func norm() initRule { return initRule{1, 0.05} }
func bias() initRule { return initRule{0, 0.05} }

// blockElems: every block of a tensor has its own generator seeded from
// (seed, tensor name, block), so the bytes do not depend on the number of
// workers or on the order tensors are written in.
const blockElems = 1 << 16

type splitMix64 struct{ s uint64 }

func (r *splitMix64) next() uint64 {
	r.s += 0x9E3779B97F4A7C15
	x := r.s
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

func blockRNG(seed, nameHash uint64, block int) splitMix64 {
	a := splitMix64{s: nameHash ^ uint64(block)*0xD1B54A32D192ED03}
	return splitMix64{s: seed ^ a.next()}
}

// irwinHall4 turns one 64-bit draw into ≈ N(0, 1): the sum of four
// 16-bit uniforms has mean 2 and variance 4/12; it is bounded at ±2√3
// (fine for random weights) and costs no log or sin.
func irwinHall4(x uint64) float64 {
	s := float64(x&0xffff+x>>16&0xffff+x>>32&0xffff+x>>48) / 65536
	return (s - 2) * math.Sqrt(3)
}

func nameHash(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// fillBlock encodes elements [block·blockElems, +len(dst)/size) of a tensor.
func fillBlock(dst []byte, rule initRule, seed, hash uint64, block int, f32 bool) {
	r := blockRNG(seed, hash, block)
	if f32 {
		for i := 0; i < len(dst); i += 4 {
			v := float32(rule.mean + rule.std*irwinHall4(r.next()))
			binary.LittleEndian.PutUint32(dst[i:], math.Float32bits(v))
		}
		return
	}
	for i := 0; i < len(dst); i += 2 {
		v := float32(rule.mean + rule.std*irwinHall4(r.next()))
		binary.LittleEndian.PutUint16(dst[i:], uint16(kernels.FromFloat32(v)))
	}
}

// chunkBlocks blocks (4 Mi elements, ≤ 16 MiB) are generated in parallel
// and then written, so memory stays flat for a 3 GB model.
const chunkBlocks = 64

// writeTensor streams one tensor's random values to w.
func writeTensor(w io.Writer, spec TensorSpec, seed uint64, f32 bool, buf []byte) error {
	size := 2
	if f32 {
		size = 4
	}
	n := 1
	for _, d := range spec.Shape {
		n *= d
	}
	hash := nameHash(spec.Name)
	blocks := (n + blockElems - 1) / blockElems
	for first := 0; first < blocks; first += chunkBlocks {
		last := min(first+chunkBlocks, blocks)
		end := min(last*blockElems, n)
		out := buf[:(end-first*blockElems)*size]
		parallelBlocks(first, last, func(b int) {
			lo, hi := b*blockElems, min((b+1)*blockElems, n)
			off := (lo - first*blockElems) * size
			fillBlock(out[off:off+(hi-lo)*size], spec.init, seed, hash, b, f32)
		})
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}

func parallelBlocks(first, last int, do func(b int)) {
	workers := min(runtime.GOMAXPROCS(0), last-first)
	var wg sync.WaitGroup
	for wk := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := first + wk; b < last; b += workers {
				do(b)
			}
		}()
	}
	wg.Wait()
}
