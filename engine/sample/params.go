// Package sample turns a logit vector into the next token as docs/spec/sampling.md
// specifies: repetition penalty → frequency/presence penalties → greedy
// argmax, or temperature → top_k → top_p → min_p → one seeded draw.
package sample

import (
	"errors"
	"fmt"
	"math"
)

// ErrSettings is wrapped by every error about a sampling setting.
var ErrSettings = errors.New("invalid settings")

// Params are the sampling settings of one generation.
type Params struct {
	Temperature float64 // 0 (or below 1e-5, as vLLM) = greedy argmax
	TopK        int     // 0 = off
	TopP        float64 // 1 = off; 0 < TopP ≤ 1
	MinP        float64 // 0 = off; 0 ≤ MinP ≤ 1

	PresencePenalty   float64 // 0 = off; −2 … 2 (OpenAI range)
	FrequencyPenalty  float64 // 0 = off; −2 … 2
	RepetitionPenalty float64 // 1 = off; > 0
}

// Greedy is argmax decoding with every filter and penalty off.
func Greedy() Params { return Params{TopP: 1, RepetitionPenalty: 1} }

// greedyBelow: temperatures this small divide logits into overflow, so they
// mean greedy (vLLM's rule).
const greedyBelow = 1e-5

// IsGreedy reports whether p picks the argmax without drawing.
func (p Params) IsGreedy() bool { return p.Temperature < greedyBelow }

// Validate checks every setting and names the first one out of range.
func (p Params) Validate() error {
	switch {
	case !(p.Temperature >= 0) || math.IsInf(p.Temperature, 0):
		return settingError("temperature", p.Temperature, "want 0 (greedy) or a positive finite number")
	case p.TopK < 0:
		return fmt.Errorf("%w: top_k %d: want 0 (off) or a positive count", ErrSettings, p.TopK)
	case !(p.TopP > 0 && p.TopP <= 1):
		return settingError("top_p", p.TopP, "want 0 < top_p ≤ 1 (1 = off)")
	case !(p.MinP >= 0 && p.MinP <= 1):
		return settingError("min_p", p.MinP, "want 0 ≤ min_p ≤ 1 (0 = off)")
	case !(p.PresencePenalty >= -2 && p.PresencePenalty <= 2):
		return settingError("presence_penalty", p.PresencePenalty, "want −2 … 2 (0 = off)")
	case !(p.FrequencyPenalty >= -2 && p.FrequencyPenalty <= 2):
		return settingError("frequency_penalty", p.FrequencyPenalty, "want −2 … 2 (0 = off)")
	case !(p.RepetitionPenalty > 0) || math.IsInf(p.RepetitionPenalty, 0):
		return settingError("repetition_penalty", p.RepetitionPenalty, "want a positive finite number (1 = off)")
	}
	return nil
}

func settingError(name string, v float64, want string) error {
	return fmt.Errorf("%w: %s %g: %s", ErrSettings, name, v, want)
}
