package kernels

import "math"

func sqrt64(x float64) float64 { return math.Sqrt(x) }

func exp32(x float32) float32 { return float32(math.Exp(float64(x))) }
