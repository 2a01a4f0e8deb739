//go:build amd64 && !purego

#include "textflag.h"

// The peak loops keep every operand in registers: a = a·m + c in 12
// independent chains (more than FMA latency × FMA pipes = 4 × 2), so the
// loop runs at the FMA issue rate. m < 1 keeps the values bounded and
// normal, so no denormal slow path is ever taken.

// func fmaPeakAVX2(iters int)
TEXT ·fmaPeakAVX2(SB), NOSPLIT, $0-8
	MOVQ         iters+0(FP), CX
	MOVL         $0x3f7fbe77, AX // m = 0.999
	MOVQ         AX, X14
	VBROADCASTSS X14, Y14
	MOVL         $0x3a83126f, AX // c = 0.001
	MOVQ         AX, X15
	VBROADCASTSS X15, Y15
	VXORPS       Y0, Y0, Y0
	VXORPS       Y1, Y1, Y1
	VXORPS       Y2, Y2, Y2
	VXORPS       Y3, Y3, Y3
	VXORPS       Y4, Y4, Y4
	VXORPS       Y5, Y5, Y5
	VXORPS       Y6, Y6, Y6
	VXORPS       Y7, Y7, Y7
	VXORPS       Y8, Y8, Y8
	VXORPS       Y9, Y9, Y9
	VXORPS       Y10, Y10, Y10
	VXORPS       Y11, Y11, Y11

peak2loop:
	VFMADD213PS Y15, Y14, Y0  // a0 = a0·m + c
	VFMADD213PS Y15, Y14, Y1  // a1 = a1·m + c
	VFMADD213PS Y15, Y14, Y2
	VFMADD213PS Y15, Y14, Y3
	VFMADD213PS Y15, Y14, Y4
	VFMADD213PS Y15, Y14, Y5
	VFMADD213PS Y15, Y14, Y6
	VFMADD213PS Y15, Y14, Y7
	VFMADD213PS Y15, Y14, Y8
	VFMADD213PS Y15, Y14, Y9
	VFMADD213PS Y15, Y14, Y10
	VFMADD213PS Y15, Y14, Y11
	DECQ        CX
	JNZ         peak2loop
	VZEROUPPER
	RET

// func fmaPeakAVX512(iters int): fmaPeakAVX2 with 16 lanes.
TEXT ·fmaPeakAVX512(SB), NOSPLIT, $0-8
	MOVQ         iters+0(FP), CX
	MOVL         $0x3f7fbe77, AX // m = 0.999
	VPBROADCASTD AX, Z14
	MOVL         $0x3a83126f, AX // c = 0.001
	VPBROADCASTD AX, Z15
	VPXORD       Z0, Z0, Z0
	VPXORD       Z1, Z1, Z1
	VPXORD       Z2, Z2, Z2
	VPXORD       Z3, Z3, Z3
	VPXORD       Z4, Z4, Z4
	VPXORD       Z5, Z5, Z5
	VPXORD       Z6, Z6, Z6
	VPXORD       Z7, Z7, Z7
	VPXORD       Z8, Z8, Z8
	VPXORD       Z9, Z9, Z9
	VPXORD       Z10, Z10, Z10
	VPXORD       Z11, Z11, Z11

peak5loop:
	VFMADD213PS Z15, Z14, Z0  // a0 = a0·m + c
	VFMADD213PS Z15, Z14, Z1  // a1 = a1·m + c
	VFMADD213PS Z15, Z14, Z2
	VFMADD213PS Z15, Z14, Z3
	VFMADD213PS Z15, Z14, Z4
	VFMADD213PS Z15, Z14, Z5
	VFMADD213PS Z15, Z14, Z6
	VFMADD213PS Z15, Z14, Z7
	VFMADD213PS Z15, Z14, Z8
	VFMADD213PS Z15, Z14, Z9
	VFMADD213PS Z15, Z14, Z10
	VFMADD213PS Z15, Z14, Z11
	DECQ        CX
	JNZ         peak5loop
	VZEROUPPER
	RET

// func fmaPeakBF16(iters int)
//
// a += pairs(p, q) with VDPBF16PS in 12 chains; p = q = bf16 2^-7, so each
// lane grows by 2^-13 a step and stays far from overflow.
TEXT ·fmaPeakBF16(SB), NOSPLIT, $0-8
	MOVQ         iters+0(FP), CX
	MOVL         $0x3c003c00, AX // two bf16 2^-7
	VPBROADCASTD AX, Z16
	VPBROADCASTD AX, Z17
	VPXORD       Z0, Z0, Z0
	VPXORD       Z1, Z1, Z1
	VPXORD       Z2, Z2, Z2
	VPXORD       Z3, Z3, Z3
	VPXORD       Z4, Z4, Z4
	VPXORD       Z5, Z5, Z5
	VPXORD       Z6, Z6, Z6
	VPXORD       Z7, Z7, Z7
	VPXORD       Z8, Z8, Z8
	VPXORD       Z9, Z9, Z9
	VPXORD       Z10, Z10, Z10
	VPXORD       Z11, Z11, Z11

peakbfloop:
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xc0 // VDPBF16PS Z16, Z17, Z0: a0 += pairs(p, q)
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xc8 // VDPBF16PS Z16, Z17, Z1: a1 += pairs(p, q)
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xd0 // VDPBF16PS Z16, Z17, Z2: a2 += pairs(p, q)
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xd8 // VDPBF16PS Z16, Z17, Z3: a3 += pairs(p, q)
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xe0 // VDPBF16PS Z16, Z17, Z4: a4 += pairs(p, q)
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xe8 // VDPBF16PS Z16, Z17, Z5: a5 += pairs(p, q)
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xf0 // VDPBF16PS Z16, Z17, Z6: a6 += pairs(p, q)
	BYTE $0x62; BYTE $0xb2; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xf8 // VDPBF16PS Z16, Z17, Z7: a7 += pairs(p, q)
	BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xc0 // VDPBF16PS Z16, Z17, Z8: a8 += pairs(p, q)
	BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xc8 // VDPBF16PS Z16, Z17, Z9: a9 += pairs(p, q)
	BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xd0 // VDPBF16PS Z16, Z17, Z10: a10 += pairs(p, q)
	BYTE $0x62; BYTE $0x32; BYTE $0x76; BYTE $0x40; BYTE $0x52; BYTE $0xd8 // VDPBF16PS Z16, Z17, Z11: a11 += pairs(p, q)
	DECQ CX
	JNZ  peakbfloop
	VZEROUPPER
	RET
