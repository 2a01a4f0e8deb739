package app

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
)

// Choosing the heads to switch off: Ctrl+click on the grid, the heads
// field, and the presets (the heads that look most at the source, heads
// drawn at random).

// toggleHead adds a head to, or removes it from, the heads to switch off.
func (u *UI) toggleHead(l, h int) {
	u.st.ToggleHead(trace.Head{Layer: l, Head: h})
	u.showHeads(true)
}

// showHeads puts the selected heads in the field (unless typing there) and
// on the grid.
func (u *UI) showHeads(field bool) {
	if field {
		u.cmp.quiet = true
		u.bar.Heads.SetText(trace.FormatHeads(u.st.Heads, u.headBase()))
		u.cmp.quiet = false
	}
	u.attn.SetSelectedHeads(u.st.Heads)
	u.bar.Help.SetText(views.HeadsHelp(len(u.st.Heads), u.headBase()))
}

// headsTyped reads the heads field as the user types; a half-typed list
// keeps the last valid selection.
func (u *UI) headsTyped(text string) {
	if u.cmp.quiet {
		return
	}
	hs, err := trace.ParseHeads(text, u.headBase())
	if err != nil {
		u.bar.Help.SetText(err.Error())
		return
	}
	if u.backend != nil {
		if err := trace.CheckHeads(hs, u.st.Info.Layers, u.st.Info.Heads, u.headBase()); err != nil {
			u.bar.Help.SetText(err.Error())
			return
		}
	}
	u.st.Heads = hs
	u.showHeads(false)
}

// presetN reads the presets' N (heads to switch off), failing aloud when
// it is not a count.
func (u *UI) presetN() (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(u.bar.N.Text))
	if err != nil || n < 1 {
		u.fail("N", fmt.Errorf("%q is not a number of heads (1 or more)", u.bar.N.Text))
		return 0, false
	}
	return n, true
}

// presetTop selects the N heads with the largest share on the source for
// the query shown, and reruns without them.
func (u *UI) presetTop() {
	n, ok := u.presetN()
	if !ok {
		return
	}
	q := u.st.Query
	a, ok := stats.AttentionAt(u.st.Attention, q)
	if !ok {
		a, ok = stats.AttentionAt(u.st.Attention, stats.LastCaptured(u.st.Attention, q))
	}
	if !ok {
		u.fail(tr("app.err.no_attention", nil), errors.New(tr("app.hint.select_captured", nil)))
		return
	}
	src := u.attn.Source()
	u.st.Heads = stats.TopHeads(stats.SourceGrid(a, src), n)
	u.showHeads(true)
	note := views.TopHeadsNote(n, u.st.Tokens, src, a.QueryPos)
	u.bar.Help.SetText(note)
	u.switchOffWith(note)
}

// presetRandom selects N heads drawn at random with the seed shown, and
// reruns without them.
func (u *UI) presetRandom() {
	n, ok := u.presetN()
	if !ok {
		return
	}
	seed, err := strconv.ParseUint(strings.TrimSpace(u.bar.Seed.Text), 10, 64)
	if err != nil {
		u.fail(tr("views.controls.seed", nil), fmt.Errorf("%q is not a whole number ≥ 0", u.bar.Seed.Text))
		return
	}
	if u.backend == nil {
		u.fail(tr("app.err.no_model_loaded", nil), errors.New(tr("app.hint.open_model", nil)))
		return
	}
	u.st.Heads = randomAttentionHeads(u.st.Info, n, seed)
	u.showHeads(true)
	note := views.RandomHeadsNote(n, seed)
	u.bar.Help.SetText(note)
	u.switchOffWith(note)
}

// randomAttentionHeads draws n heads of the layers that have attention: a
// hybrid model's Gated DeltaNet layers have no heads to switch off.
func randomAttentionHeads(info trace.ModelInfo, n int, seed uint64) []trace.Head {
	var att []int
	for l := range info.Layers {
		if info.HasAttention(l) {
			att = append(att, l)
		}
	}
	hs := stats.RandomHeads(len(att), info.Heads, n, seed)
	for i := range hs {
		hs[i].Layer = att[hs[i].Layer]
	}
	return hs
}
