package views

import (
	"fmt"

	"loupe/format"
	"loupe/trace"
)

// The sentences of choosing heads to switch off and rerunning without
// them; the bar they appear in is ablatebar.go.

func TokenWords(toks []trace.Token, pos int) string {
	if pos < 0 || pos >= len(toks) {
		return "the source"
	}
	return fmt.Sprintf("«%s» (position %d)", format.Visible(toks[pos].Text), pos)
}

// HeadsWord is "the head" for 1 and "10 heads" for 10.
func HeadsWord(n int) string {
	if n == 1 {
		return "head"
	}
	return fmt.Sprintf("%d heads", n)
}

// HeadsHelp is the line under the heads field: how to choose heads, or how
// many are chosen.
func HeadsHelp(n, base int) string {
	if n == 0 {
		return fmt.Sprintf("Ctrl+click cells of the grid, or type layer:head pairs counted from %d, then Switch off and rerun: "+
			"the same prompt and settings run again with those heads' outputs zeroed.", base)
	}
	return fmt.Sprintf("%s selected (framed in orange on the grid).", format.Plural(n, "head"))
}

// TopHeadsNote says which heads the top-N preset chose.
func TopHeadsNote(n int, toks []trace.Token, source, query int) string {
	return fmt.Sprintf("Preset: the %s that look%s most at %s from position %d.", HeadsWord(n), map[bool]string{true: "s", false: ""}[n == 1], TokenWords(toks, source), query)
}

// RandomHeadsNote says which heads the random preset chose.
func RandomHeadsNote(n int, seed uint64) string {
	return fmt.Sprintf("Preset: %d heads drawn at random with seed %d.", n, seed)
}

// SwitchOffKind says what run B of an ablation is to run A.
func SwitchOffKind(heads []trace.Head, base int) string {
	return fmt.Sprintf("B is A rerun with %s switched off (outputs zeroed before o_proj at every position): %s (layer:head, counted from %d).",
		format.Plural(len(heads), "head"), trace.FormatHeads(heads, base), base)
}
