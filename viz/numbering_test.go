package viz

import (
	"slices"
	"testing"
)

func TestNumbering(t *testing.T) {
	if got := FromOne.Layer(18) + ", " + FromOne.Head(1); got != "layer 19, head 2" {
		t.Errorf("from 1: %q, want the article's layer 19, head 2", got)
	}
	if got := FromZero.Layer(18) + ", " + FromZero.Head(1); got != "layer 18, head 1" {
		t.Errorf("from 0: %q", got)
	}
	var zero Numbering
	if zero != FromOne || FromOne.Range(28) != "1…28" || FromZero.Range(12) != "0…11" {
		t.Errorf("zero value %v, ranges %q %q", zero, FromOne.Range(28), FromZero.Range(12))
	}
}

// labels returns the labelled tick texts.
func labels(t indexTicks) []string {
	var out []string
	for _, tk := range t.Ticks(0, 0) {
		if tk.Label != "" {
			out = append(out, tk.Label)
		}
	}
	return out
}

func TestIndexTicksFit(t *testing.T) {
	// 28 layers with room for every one: 1…28, all of them.
	all := labels(fitIndexTicks(28, 1, 28*20, 12))
	if len(all) != 28 || all[0] != "1" || all[27] != "28" {
		t.Errorf("roomy: %v", all)
	}
	// Half the room: every second, counted from 1 (2, 4, … 28).
	half := labels(fitIndexTicks(28, 1, 28*8, 12))
	if !slices.Equal(half[:3], []string{"2", "4", "6"}) || half[len(half)-1] != "28" {
		t.Errorf("tight: %v", half)
	}
	// From 0 the multiples are 0, 2, 4…
	z := labels(fitIndexTicks(28, 0, 28*8, 12))
	if !slices.Equal(z[:3], []string{"0", "2", "4"}) {
		t.Errorf("from 0: %v", z)
	}
	// Every index keeps its tick mark even when unlabelled.
	if n := len(fitIndexTicks(3139, 1, 300, 12).Ticks(0, 0)); n != 3139 {
		t.Errorf("%d ticks for 3,139 indices", n)
	}
}
