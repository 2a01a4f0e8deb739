//go:build !unix

package tokenizer

import "time"

// processCPU is unavailable here: the CPU metrics read 0.
func processCPU() time.Duration { return 0 }
