package experiment

import (
	"context"
	"errors"
	"strings"

	"loupe/assets"
	"loupe/engine"
	"loupe/i18n"
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
	num := opt.Lang.Numbers()
	labels := []string{opt.Lang.T("experiment.label.prompt", nil), opt.SecondLabel}
	if labels[1] == "" {
		labels[1] = opt.Lang.T("experiment.label.second", nil)
	}
	for i, text := range []string{opt.Prompt, opt.Second} {
		room := m.Info().MaxPositions - opt.DecodeTokens - 1
		o := opt
		o.Prompt, o.PromptTokens = text, room
		if n := len(m.Encode(text)); n > room {
			r.Notes = append(r.Notes, opt.Lang.T("experiment.note.cut", i18n.Args{"Text": labels[i], "Room": num.Thousands(int64(room)), "N": num.Thousands(int64(n)), "Decode": opt.DecodeTokens}))
		}
		opt.Progress(float64(i)/2, opt.Lang.T("experiment.progress.text", i18n.Args{"Text": labels[i], "Write": opt.DecodeTokens}))
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

// progress is the line a point's run shows while it measures: "kernels
// avx2: reading 128 tokens, writing 32".
func progress(l i18n.Lang, point string, o Options) string {
	return l.T("experiment.progress", i18n.Args{"Point": point, "Read": l.Numbers().Thousands(int64(o.PromptTokens)),
		"Write": l.Numbers().Thousands(int64(o.DecodeTokens))})
}

// threadsName is a thread count as a point's name: "12 threads", "12 fils".
func threadsName(l i18n.Lang, n int) string {
	return l.N("experiment.point.threads", n, i18n.Args{"N": l.Numbers().Thousands(int64(n))})
}
