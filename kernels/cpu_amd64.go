//go:build amd64 && !purego

package kernels

import (
	"os"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// cpu is what this process may use: cpuid's reading of the CPU less the
// features named in LOUPE_CPU_DISABLE (comma-separated cpuid names, e.g.
// "AVX512F,AVXVNNI"), so that an AVX-512 machine can run exactly the code
// an AVX2-only laptop runs (Zen 3 has neither), not only its level.
var cpu = cpuWithout(os.Getenv("LOUPE_CPU_DISABLE"))

// cpuWithout returns cpuid.CPU with the listed features switched off;
// unknown names are ignored, as cpuid's own -cpu.disable does.
func cpuWithout(list string) cpuid.CPUInfo {
	c := cpuid.CPU
	for _, name := range strings.Split(list, ",") {
		if id := cpuid.ParseFeature(strings.TrimSpace(name)); id != cpuid.UNKNOWN {
			c.Disable(id)
		}
	}
	return c
}

// CPU capability flags, read once. cpuid reports AVX and AVX-512 only when
// the OS saves the YMM / ZMM and opmask state (XGETBV), so these include OS
// support. Our AVX2 code uses FMA throughout; the AVX-512 code uses EVEX
// forms of 256-bit instructions, hence VL. F16C: VCVTPH2PS widens the f16
// scales of quantised blocks and the weights of F16 files.
var (
	hasAVX2       = cpu.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3, cpuid.F16C)
	hasAVX512     = hasAVX2 && cpu.Supports(cpuid.AVX512F, cpuid.AVX512VL, cpuid.AVX512DQ) // DQ: VXORPS on Z registers
	hasAVX512BF16 = hasAVX512 && cpu.Supports(cpuid.AVX512BF16)
	// hasVNNI: the integer decode kernels use VPDPBUSD on Z registers and
	// word shifts (VPSRLVW), hence BW.
	hasVNNI = hasAVX512 && cpu.Supports(cpuid.AVX512BW, cpuid.AVX512VNNI)
	// hasAVXVNNI: VEX VPDPBUSD on Y registers (Intel cores from Alder Lake
	// on, AVX-512 or not); cpuid sets it only where the OS saves AVX state.
	hasAVXVNNI = hasAVX2 && cpu.Supports(cpuid.AVXVNNI)
)

// halves512 marks AMD's Zen 4 (family 19h with AVX-512; Zen 3, the same
// family, has none), whose cores execute a 512-bit instruction as two
// 256-bit halves. There the 16-lane, four-stream bf16 decode kernel read
// the weights slower than the 8-lane, three-stream one: Qwen2.5-1.5B
// bf16 decode, 4 interleaved rounds, 6.8-7.1 against 7.5-7.9 passes/s on
// one thread and 10.0-12.5 against 10.9-14.4 on two
// (docs/performance.md, "Zen 4 VM"), so the AVX-512 levels decode bf16
// with the AVX2 kernel on it, and Q8_0 too (matVecQ8Halves); Q6_K's
// kernel prefetches further ahead there (rows4Q6KVNNI).
var halves512 = hasAVX512 && cpu.VendorID == cpuid.AMD && cpu.Family == 0x19

// bf16ProductsPay says whether VDPBF16PS makes prefill faster than fp32
// FMAs on this CPU. It does twice an FMA's multiply-adds, which pays
// where it issues as often as FMAs do: AMD's cores (Zen 4, Zen 5: 1.4-1.5
// × faster prefill measured on Zen 5). Intel's (Cooper Lake, Sapphire
// Rapids and later) issue it on one port where FMAs use two, so the
// multiply-adds per cycle are the same and the dot tiles' final sums cost
// the rest: the Xeon VM multiplied an 8960 × 1536 bf16 matrix by 512
// tokens at 93 GFLOP/s with it, 130 in fp32 (BenchmarkMatMulBF16), and a
// Q4_K one at 89 against 140 (BenchmarkMatMulQBandsVsPanels).
var bf16ProductsPay = hasAVX512BF16 && cpu.VendorID == cpuid.AMD

// roundingPays reports whether a level that rounds activations is faster
// than the fp32 level below it on this CPU (Best's question).
func roundingPays(l Level) bool { return l != AVX512BF16 || bf16ProductsPay }

// q8NameAVX2 names the integer decode of the AVX2 kernels on this CPU.
var q8NameAVX2 = pick(hasAVXVNNI, "AVX-VNNI VPDPBUSD", "AVX2 VPMADDUBSW")

// l2Bytes is one core's L2 cache in bytes as cpuid reports it, 1 MiB when
// it does not.
func l2Bytes() int {
	if l2 := cpu.Cache.L2; l2 > 0 {
		return l2
	}
	return 1 << 20
}

var (
	avx2Set = &kernelSet{
		matVecBF16: matVecBF16AVX2,
		matVecF32:  matVecF32AVX2,
		matVecF16:  matVecF16AVX2,
		widenF16:   widenF16AVX2L,
		matMulBF16: matMulBF16AVX2,
		matMulF32:  matMulF32AVX2,
		matMulNN:   matMulNNAVX2,
		dot:        dotAVX2Slice,
		axpy:       axpyAVX2Slice,
		add:        addAVX2Slice,
		fmaPeak:    fmaPeakAVX2Loop,
		rmsNorm:    avx2Elem.rmsNorm,
		softmax:    avx2Elem.softmax,
		siluMul:    avx2Elem.siluMul,
		matVecQ:    matVecQAVX2,
		dequantRow: dequantRowAVX2,
		quantizeX:  quantizeXAVX2L,
		matVecQ8:   matVecQ8AVX2,
		matMulQ:    matMulQAVX2,
		q8Tiles:    tilesX86,
		q8Name:     q8NameAVX2,
	}
	avx512Set = &kernelSet{
		matVecBF16: matVecBF16AVX512,
		matVecF32:  matVecF32AVX512,
		matVecF16:  matVecF16AVX2,
		widenF16:   widenF16AVX2L,
		matMulBF16: matMulBF16AVX512,
		matMulF32:  matMulF32AVX512,
		matMulNN:   matMulNNAVX512,
		dot:        dotAVX512Slice,
		axpy:       axpyAVX512Slice,
		add:        addAVX512Slice,
		fmaPeak:    fmaPeakAVX512Loop,
		rmsNorm:    avx512Elem.rmsNorm,
		softmax:    avx512Elem.softmax,
		siluMul:    avx512Elem.siluMul,
		matVecQ:    matVecQAVX512,
		dequantRow: dequantRowAVX2,
		quantizeX:  quantizeXAVX512,
		matVecQ8:   matVecQ8AVX512,
		matMulQ:    matMulQAVX512,
		q8Tiles:    tilesX86,
		q8Name:     pick(hasVNNI, "AVX512-VNNI VPDPBUSD", q8NameAVX2),
		q8NameQ8_0: q8NameQ8_0AVX512,
	}
	// avx512bf16Set differs from avx512Set in prefill only: decode streams
	// weights at memory speed either way, and widening keeps x exact there.
	avx512bf16Set = &kernelSet{
		matVecBF16:  matVecBF16AVX512,
		matVecF32:   matVecF32AVX512,
		matVecF16:   matVecF16AVX2,
		widenF16:    widenF16AVX2L,
		matMulBF16:  matMulBF16DotBF16,
		matMulBF16X: matMulBF16DotBF16X,
		matMulF32:   matMulF32AVX512,
		matMulNN:    matMulNNAVX512,
		dot:         dotAVX512Slice,
		axpy:        axpyAVX512Slice,
		add:         addAVX512Slice,
		fmaPeak:     fmaPeakBF16Loop,
		fp32Peak:    fmaPeakAVX512Loop,
		rmsNorm:     avx512Elem.rmsNorm,
		softmax:     avx512Elem.softmax,
		siluMul:     avx512Elem.siluMul,
		matVecQ:     matVecQAVX512,
		dequantRow:  dequantRowAVX2,
		quantizeX:   quantizeXAVX512,
		matVecQ8:    matVecQ8AVX512,
		matMulQ:     matMulQAVX512,
		q8Name:      pick(hasVNNI, "AVX512-VNNI VPDPBUSD", q8NameAVX2),
		q8NameQ8_0:  q8NameQ8_0AVX512,
		// VPERMW: AVX512BW
		widenQ4KBF16: pick(cpu.Supports(cpuid.AVX512BW), widenQ4KBF16AVX512, nil),
	}
)
