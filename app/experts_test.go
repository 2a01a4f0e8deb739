package app

import (
	"strings"
	"testing"

	"loupe/trace"
)

func TestExpertsCounterfactualWords(t *testing.T) {
	info := trace.ModelInfo{Layers: 2, Experts: 8, ExpertsPerToken: 2}
	off := []trace.Expert{{Layer: 0, Expert: 1}, {Layer: 1, Expert: 7}}
	if err := checkExperts(off, 1, info, 0); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		off  []trace.Expert
		k    int
		want string
	}{
		{[]trace.Expert{{Layer: 2, Expert: 0}}, 0, "expert 3:1 is out of range"},
		{[]trace.Expert{{Layer: 0, Expert: 8}}, 0, "out of range"},
		{nil, 3, "want 1…2"},
	} {
		if err := checkExperts(c.off, c.k, info, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, k %d: %v, want %q", c.off, c.k, err, c.want)
		}
	}
	if err := checkExperts(nil, 1, trace.ModelInfo{Layers: 2}, 0); err == nil {
		t.Error("a dense model has no experts to switch off")
	}
	if s := expertsKind(off, 1, info, 1); s != "B is A with experts 1:2, 2:8 (layer:expert) switched off and with 1 of the model's 2 experts per token." {
		t.Errorf("kind %q", s)
	}
}
