package views

import (
	"fmt"
	"slices"
	"strings"

	"loupe/i18n"
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
			return tr("views.cmp.nothing", nil)
		}
		return "«" + Shown(strings.Join(parts, "")) + "»"
	}
	switch {
	case al.Same:
		return tr("views.cmp.same_prompt", nil)
	case al.Substituted:
		where := tr("views.cmp.positions", i18n.Args{"First": al.ChangedA[0], "Last": al.ChangedA[1] - 1})
		if al.ChangedA[1]-al.ChangedA[0] == 1 {
			where = tr("views.cmp.position", i18n.Args{"Pos": al.ChangedA[0]})
		}
		return tr("views.cmp.substituted", i18n.Args{"Where": where, "A": span(a, al.ChangedA), "B": span(b, al.ChangedB)})
	}
	return tr("views.cmp.shifted", i18n.Args{"A": span(a, al.ChangedA), "NA": al.ChangedA[1] - al.ChangedA[0],
		"B": span(b, al.ChangedB), "NB": al.ChangedB[1] - al.ChangedB[0]})
}

// DeltaLine is the delta as the article writes it: «purple» 90.3 % ⟶ 92.5 % (Δp +2.2 points).
func DeltaLine(d stats.Delta) string {
	if !d.HasA {
		return tr("views.cmp.no_a", i18n.Args{"Pos": d.Pos})
	}
	name := "«" + clip(Shown(d.Token.Text), 24) + "»"
	switch {
	case !d.HasB:
		return tr("views.cmp.no_b", i18n.Args{"Name": name, "P": nums().Percent(d.Token.P)})
	case !d.InB:
		return tr("views.cmp.below_top", i18n.Args{"Name": name, "P": nums().Percent(d.Token.P),
			"N": len(d.StepB.Top), "Chosen": clip(Shown(d.ChosenB.Text), 24), "PB": nums().Percent(d.ChosenB.P)})
	}
	s := tr("views.cmp.delta", i18n.Args{"Name": name, "PA": nums().Percent(d.Token.P), "PB": nums().Percent(d.PB),
		"D": nums().Signed(100*(d.PB-d.Token.P), 1)})
	if d.Diverged {
		s += tr("views.cmp.b_chose", i18n.Args{"Chosen": clip(Shown(d.ChosenB.Text), 24), "P": nums().Percent(d.ChosenB.P)})
	}
	return s
}

// RunLabel names a run of the history in one short line: its number, how
// it was decoded, the heads switched off, and the start of its prompt.
func RunLabel(i int, r *trace.Run, base int) string {
	mode := tr("views.cmp.greedy", nil)
	if r.Settings.Temperature > 0 {
		mode = tr("views.cmp.label_sampled", i18n.Args{"T": nums().Number(fmt.Sprintf("%.2g", r.Settings.Temperature)), "Seed": r.Settings.Seed})
	}
	if r.Origin != "" {
		mode = r.Origin
	}
	s := tr("views.cmp.label", i18n.Args{"N": i + 1, "Mode": mode, "Kernels": r.Settings.Kernels})
	if b := r.Settings.Branch; b != nil {
		s += tr("views.cmp.label_branch", i18n.Args{"N": b.At + 1})
	}
	if n := len(r.Settings.Ablate); n > 0 {
		s += Lang.N("views.cmp.label_heads_off", n, i18n.Args{"N": n})
	}
	if n := len(r.Settings.DisableExperts); n > 0 {
		s += Lang.N("views.cmp.label_experts_off", n, i18n.Args{"N": n})
	}
	if k := r.Settings.TopKExperts; k > 0 {
		s += Lang.N("views.cmp.label_topk", k, i18n.Args{"N": k})
	}
	return s + " · " + clip(strings.Join(strings.Fields(r.Prompt), " "), 40)
}

// DescribePair says what differs between the settings of two runs.
func DescribePair(a, b *trace.Run, base int) string {
	var d []string
	if a == b {
		return tr("views.cmp.same_run", nil)
	}
	if a.Prompt != b.Prompt {
		d = append(d, tr("views.cmp.d.prompt", nil))
	}
	sa, sb := a.Settings, b.Settings
	mode := func(s trace.Settings) string {
		if s.Temperature == 0 {
			return tr("views.cmp.greedy", nil)
		}
		return tr("views.cmp.sampled", i18n.Args{"T": nums().Number(fmt.Sprintf("%.2g", s.Temperature)), "K": s.TopK,
			"P": nums().Number(fmt.Sprintf("%.2g", s.TopP)), "M": nums().Number(fmt.Sprintf("%.2g", s.MinP)), "Seed": s.Seed})
	}
	if mode(sa) != mode(sb) {
		d = append(d, tr("views.cmp.d.decoding", i18n.Args{"A": mode(sa), "B": mode(sb)}))
	}
	if sa.Kernels != sb.Kernels {
		d = append(d, tr("views.cmp.d.kernels", i18n.Args{"A": sa.Kernels, "B": sb.Kernels}))
	}
	if sa.Threads != sb.Threads {
		d = append(d, tr("views.cmp.d.threads", i18n.Args{"A": sa.Threads, "B": sb.Threads}))
	}
	if !slices.Equal(sa.Ablate, sb.Ablate) {
		d = append(d, tr("views.cmp.d.heads", i18n.Args{"A": headList(sa.Ablate, base), "B": headList(sb.Ablate, base)}))
	}
	if !slices.Equal(sa.DisableExperts, sb.DisableExperts) {
		d = append(d, tr("views.cmp.d.experts", i18n.Args{"A": expertList(sa.DisableExperts, base), "B": expertList(sb.DisableExperts, base)}))
	}
	if sa.TopKExperts != sb.TopKExperts {
		d = append(d, tr("views.cmp.d.topk", i18n.Args{"A": topKText(sa.TopKExperts), "B": topKText(sb.TopKExperts)}))
	}
	if a.Model.Path != b.Model.Path {
		d = append(d, tr("views.cmp.d.model", nil))
	}
	if ba, bb := branchText(a), branchText(b); ba != bb {
		d = append(d, tr("views.cmp.d.forced", i18n.Args{"A": ba, "B": bb}))
	}
	if len(d) == 0 {
		return tr("views.cmp.same_all", nil)
	}
	return tr("views.cmp.differ", i18n.Args{"List": strings.Join(d, ", ")})
}

// branchText names the token a run forced (tr("views.none", nil) when it forced none).
func branchText(r *trace.Run) string {
	b := r.Settings.Branch
	if b == nil {
		return tr("views.none", nil)
	}
	if b.At >= 0 && b.At < len(r.Steps) {
		return tr("views.cmp.forced_text", i18n.Args{"Text": clip(Shown(r.Steps[b.At].Chosen.Text), 20), "N": b.At + 1})
	}
	return tr("views.cmp.forced_id", i18n.Args{"ID": b.Token, "N": b.At + 1})
}

func headList(hs []trace.Head, base int) string {
	if len(hs) == 0 {
		return tr("views.none", nil)
	}
	return trace.FormatHeads(hs, base)
}

// expertList is experts as layer:expert pairs, tr("views.none", nil) when empty.
func expertList(es []trace.Expert, base int) string {
	if len(es) == 0 {
		return tr("views.none", nil)
	}
	return trace.FormatExperts(es, base)
}

// topKText is a run's experts per token: its own k, or the model's.
func topKText(k int) string {
	if k == 0 {
		return tr("views.cmp.models_k", nil)
	}
	return fmt.Sprint(k)
}
