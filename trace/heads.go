package trace

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseHeads reads a list of heads written "L:H, L:H …" (commas or spaces
// between them). base is the number of the first layer and head in the text:
// 0 as in code and on the command line, 1 as the article
// “The two times of an answer” counts. The heads
// come back 0-based, in the order given, without repeats.
func ParseHeads(spec string, base int) ([]Head, error) {
	var out []Head
	for _, f := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' }) {
		l, h, ok := strings.Cut(f, ":")
		if !ok {
			l, h, ok = strings.Cut(f, ".")
		}
		li, errL := strconv.Atoi(strings.TrimSpace(l))
		hi, errH := strconv.Atoi(strings.TrimSpace(h))
		if !ok || errL != nil || errH != nil {
			return nil, fmt.Errorf("%q is not layer:head (for example %d:%d)", f, base+18, base+1)
		}
		if li < base || hi < base {
			return nil, fmt.Errorf("%q: layers and heads are counted from %d", f, base)
		}
		hd := Head{Layer: li - base, Head: hi - base}
		if !slices.Contains(out, hd) {
			out = append(out, hd)
		}
	}
	return out, nil
}

// CheckHeads refuses a head outside a model of the given layers × heads,
// naming it in the numbering of base.
func CheckHeads(hs []Head, layers, heads, base int) error {
	for _, h := range hs {
		switch {
		case h.Layer < 0 || h.Layer >= layers:
			return fmt.Errorf("head %d:%d: layer %d is out of range (the model has %d layers, %d…%d)",
				h.Layer+base, h.Head+base, h.Layer+base, layers, base, layers-1+base)
		case h.Head < 0 || h.Head >= heads:
			return fmt.Errorf("head %d:%d: head %d is out of range (the model has %d heads per layer, %d…%d)",
				h.Layer+base, h.Head+base, h.Head+base, heads, base, heads-1+base)
		}
	}
	return nil
}

// FormatHeads writes heads as ParseHeads reads them, in the numbering of base.
func FormatHeads(hs []Head, base int) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = fmt.Sprintf("%d:%d", h.Layer+base, h.Head+base)
	}
	return strings.Join(parts, ", ")
}
