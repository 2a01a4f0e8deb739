package trace

// The attention of one query position is L·H·(pos+1) floats: 4 MB for a
// 28 × 12 model at position 3,000. Keeping the capture of every generated
// token costs memory that grows with the square of the answer (a 3,000-token
// answer: 6 GB), so a window keeps the newest ones within a byte budget and
// recomputes the others from the KV cache when they are looked at.

// Bytes is the memory of the captured weights, 4 bytes a float.
func (a *Attention) Bytes() int64 {
	var n int64
	for _, heads := range a.Weights {
		for _, w := range heads {
			n += int64(len(w)) * 4
		}
	}
	return n
}

// TrimAttention keeps the captures pinned says to keep and, of the
// others, the newest (the last in att) that fit together in budget bytes,
// from the last back to the first that does not fit; the last capture of
// att always stays. The order is kept, att is reused,
// and the slots freed are cleared so that their weights can be collected.
// budget ≤ 0 keeps everything.
func TrimAttention(att []Attention, budget int64, pinned func(pos int) bool) []Attention {
	if budget <= 0 || len(att) == 0 {
		return att
	}
	keep := make([]bool, len(att))
	var used int64
	full := false
	for i := len(att) - 1; i >= 0; i-- {
		if pinned != nil && pinned(att[i].QueryPos) {
			keep[i] = true
			continue
		}
		b := att[i].Bytes()
		if full = full || i < len(att)-1 && used+b > budget; !full {
			keep[i] = true
			used += b
		}
	}
	out := att[:0]
	for i, a := range att {
		if keep[i] {
			out = append(out, a)
		}
	}
	clear(att[len(out):])
	return out
}
