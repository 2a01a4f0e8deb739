package tokenizer

import (
	"container/heap"
	"fmt"
	"strings"
	"unicode/utf8"
)

// SentencePiece-style tokenizers (Llama 2, TinyLlama, the llama2.c
// models): spaces become ▁ (U+2581), a ▁ is prepended to the text, and
// adjacent symbols merge best-first, starting from single characters.
// Characters no token covers fall back to byte tokens <0x00>…<0xFF>.
//
// Two priorities exist. GGUF "llama" vocabularies carry a score per token:
// llama.cpp merges the adjacent pair whose concatenation is the token with
// the highest score (leftmost on ties). tokenizer.json files carry a BPE
// model with merges: Hugging Face merges the pair of lowest merge rank.

const metaspace = "▁"

type spmModel struct {
	scores     []float32 // id → score (GGUF); nil: merge ranks decide
	byteTok    [256]int  // <0xXX> token of each byte, -1 when missing
	unk        int       // <unk>, -1 when none
	prefix     uint8     // where ▁ is prepended (prefixNone…)
	splitWords bool      // Metaspace split: each ▁-led word merges alone
	stripFirst bool      // decoding drops the first space after BOS
}

// Where the dummy prefix ▁ goes: every text segment (the start, and after
// each added token), as llama.cpp and the legacy Prepend normalizer do;
// Metaspace "always" the same unless the segment starts with ▁ already;
// Metaspace "first" only at the start of the text, likewise.
const (
	prefixNone = iota
	prefixEvery
	prefixMetaAlways
	prefixMetaFirst
)

// encodeSPM: BOS, then the text cut at added tokens (when special), each
// text segment escaped and merged (llama.cpp's llm_tokenizer_spm; a space
// prefix is added where the previous fragment was BOS, a special token or
// the start).
func (t *Tokenizer) encodeSPM(text string, special bool) []int {
	ids := make([]int, 0, len(text)/3+2)
	if t.addBOS {
		ids = append(ids, t.bos)
	}
	prevSpecial, first := true, true
	seg := func(s string, id int) {
		atStart := first
		first = false
		if id >= 0 {
			ids = append(ids, id)
			prevSpecial = true
			return
		}
		s = strings.ReplaceAll(s, " ", metaspace)
		switch p := t.spm.prefix; {
		case p == prefixEvery && prevSpecial,
			p == prefixMetaAlways && !strings.HasPrefix(s, metaspace),
			p == prefixMetaFirst && atStart && !strings.HasPrefix(s, metaspace):
			s = metaspace + s
		}
		ids = t.spmText(ids, s)
		prevSpecial = false
	}
	if special {
		t.matcher.split(text, seg)
	} else if text != "" {
		seg(text, -1)
	}
	return ids
}

// spmText merges escaped text, word by word when splitWords.
func (t *Tokenizer) spmText(ids []int, s string) []int {
	if !t.spm.splitWords {
		return t.spmWord(ids, s)
	}
	for s != "" {
		end := strings.Index(s[1:], metaspace)
		if end < 0 {
			return t.spmWord(ids, s)
		}
		ids = t.spmWord(ids, s[:end+1])
		s = s[end+1:]
	}
	return ids
}

type spmSym struct {
	start, n   int   // text[start:start+n]; n = 0 once merged into its left
	id         int32 // vocab id of the text, -1 when none
	prev, next int
}

type spmPair struct {
	prio        float64 // lower merges first
	left, right int
	size        int // n of the merged symbol: stale when the sides changed
	id          int32
}

type spmHeap []spmPair

func (h spmHeap) Len() int { return len(h) }
func (h spmHeap) Less(i, j int) bool {
	if h[i].prio != h[j].prio {
		return h[i].prio < h[j].prio
	}
	return h[i].left < h[j].left
}
func (h spmHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *spmHeap) Push(x any)   { *h = append(*h, x.(spmPair)) }
func (h *spmHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// spmWord merges one escaped word: one symbol per character, then the
// best adjacent pair again and again; symbols left without a token are
// emitted as byte tokens (or <unk>).
func (t *Tokenizer) spmWord(ids []int, s string) []int {
	if s == "" {
		return ids
	}
	syms := make([]spmSym, 0, len(s))
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRuneInString(s[i:])
		id := int32(-1)
		if v, ok := t.vocab[s[i:i+w]]; ok {
			id = int32(v)
		}
		syms = append(syms, spmSym{start: i, n: w, id: id, prev: len(syms) - 1, next: len(syms) + 1})
		i += w
	}
	syms[len(syms)-1].next = -1
	var h spmHeap
	for i := 1; i < len(syms); i++ {
		t.spmTryPair(&h, s, syms, i-1, i)
	}
	heap.Init(&h)
	for h.Len() > 0 {
		p := heap.Pop(&h).(spmPair)
		l, r := &syms[p.left], &syms[p.right]
		if l.n == 0 || r.n == 0 || l.n+r.n != p.size {
			continue // stale: a side merged since
		}
		l.n += r.n
		l.id = p.id
		r.n = 0
		l.next = r.next
		if r.next >= 0 {
			syms[r.next].prev = p.left
		}
		t.spmTryPair(&h, s, syms, l.prev, p.left)
		t.spmTryPair(&h, s, syms, p.left, l.next)
	}
	for i := 0; i >= 0; i = syms[i].next {
		ids = t.spmEmit(ids, s[syms[i].start:syms[i].start+syms[i].n], syms[i].id)
	}
	return ids
}

// spmTryPair queues the merge of symbols a and b when it exists.
func (t *Tokenizer) spmTryPair(h *spmHeap, s string, syms []spmSym, a, b int) {
	if a < 0 || b < 0 {
		return
	}
	sa, sb := &syms[a], &syms[b]
	p := spmPair{left: a, right: b, size: sa.n + sb.n}
	if t.spm.scores != nil {
		id, ok := t.vocab[s[sa.start:sa.start+sa.n+sb.n]]
		if !ok || id >= len(t.spm.scores) {
			return
		}
		p.prio, p.id = -float64(t.spm.scores[id]), int32(id)
	} else {
		if sa.id < 0 || sb.id < 0 {
			return
		}
		m, ok := t.merges[pairKey(sa.id, sb.id)]
		if !ok {
			return
		}
		p.prio, p.id = float64(m.rank), m.id
	}
	heap.Push(h, p)
}

// spmEmit appends a final symbol: its token, or its bytes as byte tokens.
func (t *Tokenizer) spmEmit(ids []int, text string, id int32) []int {
	if id >= 0 {
		return append(ids, int(id))
	}
	for i := 0; i < len(text); i++ {
		if b := t.spm.byteTok[text[i]]; b >= 0 {
			ids = append(ids, b)
		} else if t.spm.unk >= 0 {
			ids = append(ids, t.spm.unk)
		}
	}
	return ids
}

// byteTokenValue reads "<0xAB>" as 0xAB.
func byteTokenValue(s string) (byte, bool) {
	var b byte
	if len(s) != 6 || !strings.HasPrefix(s, "<0x") || s[5] != '>' {
		return 0, false
	}
	if _, err := fmt.Sscanf(s[3:5], "%02X", &b); err != nil {
		return 0, false
	}
	return b, fmt.Sprintf("<0x%02X>", b) == s
}

// setBytesSPM precomputes TokenBytes: ▁ is a space, a byte token its byte,
// an added token its content.
func (t *Tokenizer) setBytesSPM(isByte func(id int) bool) {
	t.offs = make([]uint32, len(t.pieces)+1)
	t.bytes = make([]byte, 0, len(t.pieces)*6)
	for id, p := range t.pieces {
		if b, ok := byteTokenValue(p); ok && isByte(id) {
			t.bytes = append(t.bytes, b)
		} else if t.IsAdded(id) {
			t.bytes = append(t.bytes, p...)
		} else {
			t.bytes = append(t.bytes, strings.ReplaceAll(p, metaspace, " ")...)
		}
		t.offs[id+1] = uint32(len(t.bytes))
	}
}
