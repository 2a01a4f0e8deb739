package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"loupe/assets"
	"loupe/engine"
)

// Texts is the experiment of the article's first figure: two prompts, the
// same number of tokens written after each. Reading time follows the
// prompt's length; writing time does not.
const Texts = "texts"

// GoldBug is the passage of Edgar Allan Poe's The Gold-Bug the article
// reads (3,139 tokens with the Qwen2.5 tokenizer).
var GoldBug = assets.GoldBugPassage

// runTexts reads opt.Prompt and opt.Second (cut to leave room in the
// model's context for opt.DecodeTokens) and writes opt.DecodeTokens after
// each. opt.PromptTokens does not cut them: their lengths are the point.
func runTexts(ctx context.Context, m *engine.Model, opt Options, r *Result) error {
	if strings.TrimSpace(opt.Second) == "" {
		return errors.New("experiment: two texts: the second text is empty")
	}
	gbs, err := bandwidth(opt, m.Threads())
	if err != nil {
		return err
	}
	r.BandwidthGBs = gbs
	labels := []string{"your prompt", opt.SecondLabel}
	if labels[1] == "" {
		labels[1] = "the second text"
	}
	for i, text := range []string{opt.Prompt, opt.Second} {
		room := m.Info().MaxPositions - opt.DecodeTokens - 1
		o := opt
		o.Prompt, o.PromptTokens = text, room
		if n := len(m.Encode(text)); n > room {
			r.Notes = append(r.Notes, fmt.Sprintf("%s cut to its first %d of %d tokens to leave room for %d written in the model's context", labels[i], room, n, opt.DecodeTokens))
		}
		opt.Progress(float64(i)/2, fmt.Sprintf("%s: reading it, writing %d tokens", labels[i], opt.DecodeTokens))
		p, err := runPoint(ctx, m, o, gbs)
		if err != nil {
			return err
		}
		// The figure draws the run's timing (tokens over seconds): the
		// point's speeds, the CSV's and the sentence's, are the same.
		p.PrefillTokS, p.DecodeTokS = p.TimedRates()
		p.Value, p.Label = labels[i], labels[i]
		r.Points = append(r.Points, p)
	}
	return nil
}
