package trace

import "testing"

// capture is an Attention of L × H rows of pos+1 floats.
func capture(L, H, pos int) Attention {
	a := Attention{QueryPos: pos, Weights: make([][][]float32, L)}
	for l := range a.Weights {
		a.Weights[l] = make([][]float32, H)
		for h := range a.Weights[l] {
			a.Weights[l][h] = make([]float32, pos+1)
		}
	}
	return a
}

func TestAttentionBytes(t *testing.T) {
	a := capture(3, 2, 9)
	a.Weights[1] = nil // a layer without attention
	if got, want := a.Bytes(), int64(2*2*10*4); got != want {
		t.Errorf("Bytes = %d, want %d", got, want)
	}
}

// TestTrimAttentionBounded grows a run token by token, trimming as a window
// does, and checks that what is kept stays within the budget (plus the
// newest capture) however long the run gets, that the pinned captures and
// the newest ones stay, and that the dropped slots are cleared.
func TestTrimAttentionBounded(t *testing.T) {
	const L, H, prompt = 4, 3, 5
	budget := int64(L * H * 4 * 200) // about two captures at position 100
	pinned := func(pos int) bool { return pos < prompt || pos == 7 }
	var att []Attention
	for pos := range 2000 {
		att = append(att, capture(L, H, pos))
		att = TrimAttention(att, budget, pinned)
		var free int64
		for _, a := range att {
			if !pinned(a.QueryPos) {
				free += a.Bytes()
			}
		}
		newest := att[len(att)-1]
		if newest.QueryPos != pos {
			t.Fatalf("at %d the newest capture kept is %d", pos, newest.QueryPos)
		}
		if free > budget && free != newest.Bytes() {
			t.Fatalf("at %d the unpinned captures weigh %d bytes, budget %d", pos, free, budget)
		}
		for i := 1; i < len(att); i++ {
			if att[i].QueryPos <= att[i-1].QueryPos {
				t.Fatalf("at %d the order is lost: %d after %d", pos, att[i].QueryPos, att[i-1].QueryPos)
			}
		}
	}
	var kept []int
	for _, a := range att {
		kept = append(kept, a.QueryPos)
	}
	if len(kept) != prompt+1+1 || kept[prompt] != 7 || kept[prompt+1] != 1999 {
		t.Errorf("kept %v, want the prompt 0…4, the pinned 7 and the newest 1999", kept)
	}
	if c := att[:cap(att)][len(att)]; c.Weights != nil {
		t.Error("a dropped slot still holds its weights")
	}
}

func TestTrimAttentionNoBudgetKeepsAll(t *testing.T) {
	att := []Attention{capture(1, 1, 0), capture(1, 1, 1)}
	if got := TrimAttention(att, 0, nil); len(got) != 2 {
		t.Errorf("budget 0 kept %d of 2", len(got))
	}
}
