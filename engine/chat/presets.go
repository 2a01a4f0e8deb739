package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"loupe/trace"
)

// Preset is a named set of sampling knobs, one click in the app.
type Preset struct {
	Name              string  `json:"name"`
	Temperature       float64 `json:"temperature"` // 0: greedy
	TopK              int     `json:"top_k"`       // 0: off
	TopP              float64 `json:"top_p"`       // 1: off
	MinP              float64 `json:"min_p"`
	PresencePenalty   float64 `json:"presence_penalty"`
	RepetitionPenalty float64 `json:"repetition_penalty"` // 1: off
}

// Apply sets the sampling knobs of s to p's, leaving max tokens, seed,
// threads and kernels alone.
func (p Preset) Apply(s *trace.Settings) {
	s.Temperature, s.TopK, s.TopP, s.MinP = p.Temperature, p.TopK, p.TopP, p.MinP
	s.PresencePenalty, s.RepeatPenalty = p.PresencePenalty, p.RepetitionPenalty
}

// GenerationConfigFile is where a model folder keeps its sampling defaults.
const GenerationConfigFile = "generation_config.json"

// ReadGenerationPreset reads the sampling defaults of a folder's
// generation_config.json as a preset named "model card
// (generation_config.json)". Fields left out take transformers'
// GenerationConfig defaults (temperature 1, top_k 50, top_p 1); do_sample
// false (or absent) is greedy. ok is false when the file does not exist.
func ReadGenerationPreset(dir string) (p Preset, ok bool, err error) {
	path := filepath.Join(dir, GenerationConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Preset{}, false, nil
	}
	if err != nil {
		return Preset{}, false, err
	}
	p, err = ParseGenerationPreset(data)
	if err != nil {
		return Preset{}, false, fmt.Errorf("%s: %w", path, err)
	}
	return p, true, nil
}

// ParseGenerationPreset reads generation_config.json bytes (see
// ReadGenerationPreset).
func ParseGenerationPreset(data []byte) (Preset, error) {
	var g struct {
		DoSample          *bool    `json:"do_sample"`
		Temperature       *float64 `json:"temperature"`
		TopK              *int     `json:"top_k"`
		TopP              *float64 `json:"top_p"`
		MinP              *float64 `json:"min_p"`
		RepetitionPenalty *float64 `json:"repetition_penalty"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return Preset{}, fmt.Errorf("bad generation_config.json: %v", err)
	}
	p := Preset{Name: "model card (generation_config.json)", Temperature: 1, TopK: 50, TopP: 1, RepetitionPenalty: 1}
	set := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
		}
	}
	set(&p.Temperature, g.Temperature)
	set(&p.TopP, g.TopP)
	set(&p.MinP, g.MinP)
	set(&p.RepetitionPenalty, g.RepetitionPenalty)
	if g.TopK != nil {
		p.TopK = *g.TopK
	}
	if g.DoSample == nil || !*g.DoSample {
		p.Name, p.Temperature = "model card: greedy (generation_config.json)", 0
	}
	switch {
	case p.Temperature < 0, p.TopK < 0, !(p.TopP > 0 && p.TopP <= 1), p.MinP < 0 || p.MinP > 1, !(p.RepetitionPenalty > 0):
		return Preset{}, fmt.Errorf("bad generation_config.json: sampling values out of range (temperature %g, top_k %d, top_p %g, min_p %g, repetition_penalty %g)",
			p.Temperature, p.TopK, p.TopP, p.MinP, p.RepetitionPenalty)
	}
	return p, nil
}

// Qwen3CardPresets are the Qwen3 model card's "Best Practices" (docs/spec/qwen3.md
// §6): thinking 0.6 / 0.95 / 20, non-thinking 0.7 / 0.8 / 20, min_p 0.
// Greedy decoding is advised against with thinking: it repeats itself.
var Qwen3CardPresets = []Preset{
	{Name: "recommended for thinking (Qwen3 card)", Temperature: 0.6, TopK: 20, TopP: 0.95, RepetitionPenalty: 1},
	{Name: "recommended without thinking (Qwen3 card)", Temperature: 0.7, TopK: 20, TopP: 0.8, RepetitionPenalty: 1},
}
