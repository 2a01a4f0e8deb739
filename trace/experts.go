package trace

import (
	"fmt"
	"slices"
	"strings"
)

// Expert names one expert of one MoE layer (0-based), e.g. one switched
// off for a run.
type Expert struct {
	Layer  int `json:"layer"`
	Expert int `json:"expert"`
}

// ParseExperts reads "L:E[,L:E...]" (layer:expert, counted from base) as
// ParseHeads reads heads.
func ParseExperts(spec string, base int) ([]Expert, error) {
	hs, err := ParseHeads(spec, base)
	if err != nil {
		return nil, fmt.Errorf("%s", strings.NewReplacer("layer:head", "layer:expert", "heads", "experts").Replace(err.Error()))
	}
	out := make([]Expert, 0, len(hs))
	for _, h := range hs {
		out = append(out, Expert{Layer: h.Layer, Expert: h.Head})
	}
	return out, nil
}

// FormatExperts writes experts as ParseExperts reads them, in the
// numbering of base.
func FormatExperts(es []Expert, base int) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = fmt.Sprintf("%d:%d", e.Layer+base, e.Expert+base)
	}
	return strings.Join(parts, ", ")
}

// ExpertsOff lists, per layer of a model of n layers, the experts es
// switches off (each once, in ascending id); nil when es is empty.
func ExpertsOff(es []Expert, layers int) [][]int {
	if len(es) == 0 {
		return nil
	}
	out := make([][]int, layers)
	for _, e := range es {
		if e.Layer >= 0 && e.Layer < layers && !slices.Contains(out[e.Layer], e.Expert) {
			out[e.Layer] = append(out[e.Layer], e.Expert)
		}
	}
	for _, l := range out {
		slices.Sort(l)
	}
	return out
}
