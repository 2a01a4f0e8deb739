package views

import (
	"image"
	"image/color"
	"sort"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"

	"loupe/viz"
)

// A hybrid model's Gated DeltaNet layers have no attention map: the grid
// draws their rows as hatched gaps with a label, never as zeros.

// hatchColour is the gap rows' stripes: a mid grey that reads on both
// themes and is no colour of the viridis scale.
var hatchColour = color.NRGBA{128, 128, 128, 110}

// hatchRow paints pixel row y of a gap with diagonal stripes.
func hatchRow(img *image.NRGBA, y, w int) {
	for x := range w {
		if (x+y)%8 < 2 {
			img.Set(x, y, hatchColour)
		}
	}
}

// refreshGaps rebuilds one label per gap row that has text.
func (r *heatRenderer) refreshGaps() {
	rows := make([]int, 0, len(r.h.Gaps))
	for row, lbl := range r.h.Gaps {
		if lbl != "" {
			rows = append(rows, row)
		}
	}
	sort.Ints(rows)
	r.labels = r.labels[:0]
	for _, row := range rows {
		t := canvas.NewText((viz.Theme{Lang: Lang}).GapLabel(r.h.Gaps[row]), theme.Color(theme.ColorNameForeground))
		t.TextSize = theme.TextSize() * 0.8
		r.labels = append(r.labels, t)
	}
	r.layoutGaps(r.h.Size())
}

// layoutGaps centres each label on its row.
func (r *heatRenderer) layoutGaps(s fyne.Size) {
	rows, _ := r.h.Dims()
	if rows == 0 || len(r.labels) == 0 {
		return
	}
	keys := make([]int, 0, len(r.h.Gaps))
	for row, lbl := range r.h.Gaps {
		if lbl != "" {
			keys = append(keys, row)
		}
	}
	sort.Ints(keys)
	rh := s.Height / float32(rows)
	for i, row := range keys {
		if i >= len(r.labels) {
			break
		}
		t := r.labels[i].(*canvas.Text)
		ms := t.MinSize()
		y := float32(r.h.flip(row))*rh + (rh-ms.Height)/2
		t.Move(fyne.NewPos(max(0, (s.Width-ms.Width)/2), y))
		t.Resize(ms)
	}
}

// maxHeads is the widest layer of a capture (DeltaNet layers have none).
func maxHeads(w [][][]float32) int {
	n := 0
	for _, heads := range w {
		n = max(n, len(heads))
	}
	return n
}

// unlabelled is gaps without their text (the narrow mean column).
func unlabelled(gaps map[int]string) map[int]string {
	if gaps == nil {
		return nil
	}
	out := make(map[int]string, len(gaps))
	for l := range gaps {
		out[l] = ""
	}
	return out
}
