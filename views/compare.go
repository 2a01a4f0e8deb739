package views

import (
	"fmt"
	"slices"
	"strings"

	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
)

// This file writes the sentences of comparing two runs (an ablation, a
// variant prompt, any two runs of the history); the arithmetic is in
// loupe/trace/stats and the panel that shows it is comparepanel.go.

// DescribeAlignment says in a sentence how the prompts of A and B line up.
func DescribeAlignment(al stats.Alignment, a, b []trace.Token) string {
	span := func(toks []trace.Token, r [2]int) string {
		var parts []string
		for i := r[0]; i < r[1] && i < len(toks); i++ {
			parts = append(parts, toks[i].Text)
		}
		if len(parts) == 0 {
			return "nothing"
		}
		return "«" + format.Visible(strings.Join(parts, "")) + "»"
	}
	switch {
	case al.Same:
		return "Same prompt: every position of A is the same position of B."
	case al.Substituted:
		where := fmt.Sprintf("positions %d…%d", al.ChangedA[0], al.ChangedA[1]-1)
		if al.ChangedA[1]-al.ChangedA[0] == 1 {
			where = fmt.Sprintf("position %d", al.ChangedA[0])
		}
		return fmt.Sprintf("The prompts differ at %s: %s in A, %s in B; every other token lines up with its twin.",
			where, span(a, al.ChangedA), span(b, al.ChangedB))
	}
	return fmt.Sprintf("The prompts do not align token for token: %s (%d tokens) in A became %s (%d tokens) in B, so "+
		"positions after it are shifted; only the tokens before and after the change are compared.",
		span(a, al.ChangedA), al.ChangedA[1]-al.ChangedA[0], span(b, al.ChangedB), al.ChangedB[1]-al.ChangedB[0])
}

// DeltaLine is the delta as the article writes it: «purple» 90.3 % ⟶ 92.5 % (Δp +2.2 points).
func DeltaLine(d stats.Delta) string {
	if !d.HasA {
		return fmt.Sprintf("A generated no token at position %d.", d.Pos)
	}
	name := "«" + clip(format.Visible(d.Token.Text), 24) + "»"
	switch {
	case !d.HasB:
		return fmt.Sprintf("%s %s in A; B generated no token at this step.", name, nums().Percent(d.Token.P))
	case !d.InB:
		return fmt.Sprintf("%s %s in A ⟶ below B's top %d in B (B chose «%s» %s).", name, nums().Percent(d.Token.P),
			len(d.StepB.Top), clip(format.Visible(d.ChosenB.Text), 24), nums().Percent(d.ChosenB.P))
	}
	s := fmt.Sprintf("%s %s ⟶ %s  (Δp %+.1f points)", name, nums().Percent(d.Token.P), nums().Percent(d.PB), 100*(d.PB-d.Token.P))
	if d.Diverged {
		s += fmt.Sprintf("; B chose «%s» (%s)", clip(format.Visible(d.ChosenB.Text), 24), nums().Percent(d.ChosenB.P))
	}
	return s
}

// RunLabel names a run of the history in one short line: its number, how
// it was decoded, the heads switched off, and the start of its prompt.
func RunLabel(i int, r *trace.Run, base int) string {
	mode := "greedy"
	if r.Settings.Temperature > 0 {
		mode = fmt.Sprintf("T %.2g seed %d", r.Settings.Temperature, r.Settings.Seed)
	}
	s := fmt.Sprintf("run %d · %s · %s", i+1, mode, r.Settings.Kernels)
	if r.Origin != "" {
		s = fmt.Sprintf("run %d · %s · %s", i+1, r.Origin, r.Settings.Kernels)
	}
	if b := r.Settings.Branch; b != nil {
		s += fmt.Sprintf(" · branch at written token %d", b.At+1)
	}
	if n := len(r.Settings.Ablate); n > 0 {
		s += " · " + format.Plural(n, "head") + " off"
	}
	if n := len(r.Settings.DisableExperts); n > 0 {
		s += " · " + format.Plural(n, "expert") + " off"
	}
	if k := r.Settings.TopKExperts; k > 0 {
		s += fmt.Sprintf(" · %d experts a token", k)
	}
	return s + " · " + clip(strings.Join(strings.Fields(r.Prompt), " "), 40)
}

// DescribePair says what differs between the settings of two runs.
func DescribePair(a, b *trace.Run, base int) string {
	var d []string
	if a == b {
		return "A and B are the same run."
	}
	if a.Prompt != b.Prompt {
		d = append(d, "the prompt")
	}
	sa, sb := a.Settings, b.Settings
	mode := func(s trace.Settings) string {
		if s.Temperature == 0 {
			return "greedy"
		}
		return fmt.Sprintf("sampled at T %.2g (top-k %d, top-p %.2g, min-p %.2g) with seed %d", s.Temperature, s.TopK, s.TopP, s.MinP, s.Seed)
	}
	if mode(sa) != mode(sb) {
		d = append(d, fmt.Sprintf("decoding (%s in A, %s in B)", mode(sa), mode(sb)))
	}
	if sa.Kernels != sb.Kernels {
		d = append(d, fmt.Sprintf("kernels (%s in A, %s in B)", sa.Kernels, sb.Kernels))
	}
	if sa.Threads != sb.Threads {
		d = append(d, fmt.Sprintf("threads (%d in A, %d in B)", sa.Threads, sb.Threads))
	}
	if !slices.Equal(sa.Ablate, sb.Ablate) {
		d = append(d, fmt.Sprintf("heads switched off (%s in A, %s in B)", headList(sa.Ablate, base), headList(sb.Ablate, base)))
	}
	if !slices.Equal(sa.DisableExperts, sb.DisableExperts) {
		d = append(d, fmt.Sprintf("experts switched off (%s in A, %s in B)", expertList(sa.DisableExperts, base), expertList(sb.DisableExperts, base)))
	}
	if sa.TopKExperts != sb.TopKExperts {
		d = append(d, fmt.Sprintf("experts per token (%s in A, %s in B)", topKText(sa.TopKExperts), topKText(sb.TopKExperts)))
	}
	if a.Model.Path != b.Model.Path {
		d = append(d, "the model")
	}
	if ba, bb := branchText(a), branchText(b); ba != bb {
		d = append(d, fmt.Sprintf("a forced token (%s in A, %s in B)", ba, bb))
	}
	if len(d) == 0 {
		return "A and B have the same model, prompt and settings."
	}
	return "A and B differ in " + strings.Join(d, ", ") + "."
}

// branchText names the token a run forced ("none" when it forced none).
func branchText(r *trace.Run) string {
	b := r.Settings.Branch
	if b == nil {
		return "none"
	}
	if b.At >= 0 && b.At < len(r.Steps) {
		return fmt.Sprintf("«%s» at written token %d", clip(format.Visible(r.Steps[b.At].Chosen.Text), 20), b.At+1)
	}
	return fmt.Sprintf("token %d at written token %d", b.Token, b.At+1)
}

func headList(hs []trace.Head, base int) string {
	if len(hs) == 0 {
		return "none"
	}
	return trace.FormatHeads(hs, base)
}

// expertList is experts as layer:expert pairs, "none" when empty.
func expertList(es []trace.Expert, base int) string {
	if len(es) == 0 {
		return "none"
	}
	return trace.FormatExperts(es, base)
}

// topKText is a run's experts per token: its own k, or the model's.
func topKText(k int) string {
	if k == 0 {
		return "the model's"
	}
	return fmt.Sprint(k)
}
