package views

import (
	"loupe/i18n"
	"loupe/trace"
)

// The sentences of choosing heads to switch off and rerunning without
// them; the bar they appear in is ablatebar.go.

func TokenWords(toks []trace.Token, pos int) string {
	if pos < 0 || pos >= len(toks) {
		return tr("views.ablate.the_source", nil)
	}
	return tr("views.tok_name", i18n.Args{"Text": Shown(toks[pos].Text), "Pos": pos})
}

// HeadsWord is "the head" for 1 and "10 heads" for 10.
func HeadsWord(n int) string {
	if n == 1 {
		return tr("views.ablate.the_head", nil)
	}
	return Lang.N("unit.head", n, i18n.Args{"N": n})
}

// HeadsHelp is the line under the heads field: how to choose heads, or how
// many are chosen.
func HeadsHelp(n, base int) string {
	if n == 0 {
		return tr("views.ablate.help", i18n.Args{"Base": base})
	}
	return Lang.N("views.ablate.selected", n, i18n.Args{"N": n})
}

// TopHeadsNote says which heads the top-N preset chose.
func TopHeadsNote(n int, toks []trace.Token, source, query int) string {
	return Lang.N("views.ablate.top_note", n, i18n.Args{"Heads": HeadsWord(n), "Source": TokenWords(toks, source), "Query": query})
}

// RandomHeadsNote says which heads the random preset chose.
func RandomHeadsNote(n int, seed uint64) string {
	return tr("views.ablate.random_note", i18n.Args{"N": n, "Seed": seed})
}

// SwitchOffKind says what run B of an ablation is to run A.
func SwitchOffKind(heads []trace.Head, base int) string {
	return Lang.N("views.ablate.kind", len(heads), i18n.Args{"N": len(heads), "Heads": trace.FormatHeads(heads, base), "Base": base})
}
