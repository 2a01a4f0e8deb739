package trace

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseHeads(t *testing.T) {
	got, err := ParseHeads("18:1, 18:5 3:0,18:1", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Head{{18, 1}, {18, 5}, {3, 0}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	one, err := ParseHeads("19:2", 1)
	if err != nil || len(one) != 1 || one[0] != (Head{18, 1}) {
		t.Fatalf("1-based 19:2 = %v %v, want 18:1", one, err)
	}
	if FormatHeads(got, 1) != "19:2, 19:6, 4:1" {
		t.Errorf("FormatHeads = %q", FormatHeads(got, 1))
	}
	for _, bad := range []string{"18", "a:b", "1:2:3", "-1:0", "18:"} {
		if _, err := ParseHeads(bad, 0); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := ParseHeads("0:3", 1); err == nil {
		t.Error("0:3 parsed with numbering from 1")
	}
	if hs, err := ParseHeads("  ", 0); err != nil || len(hs) != 0 {
		t.Errorf("blank: %v %v", hs, err)
	}
}

func TestCheckHeads(t *testing.T) {
	if err := CheckHeads([]Head{{27, 11}}, 28, 12, 0); err != nil {
		t.Error(err)
	}
	err := CheckHeads([]Head{{28, 0}}, 28, 12, 0)
	if err == nil || !strings.Contains(err.Error(), "layer 28 is out of range") {
		t.Errorf("layer 28: %v", err)
	}
	err = CheckHeads([]Head{{3, 12}}, 28, 12, 0)
	if err == nil || !strings.Contains(err.Error(), "head 12 is out of range") {
		t.Errorf("head 12: %v", err)
	}
}

func TestParseExperts(t *testing.T) {
	es, err := ParseExperts("1:2, 0:5,1:2 0.7", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []Expert{{1, 2}, {0, 5}, {0, 7}}
	if fmt.Sprint(es) != fmt.Sprint(want) {
		t.Fatalf("ParseExperts = %v, want %v", es, want)
	}
	if s := FormatExperts(es, 1); s != "2:3, 1:6, 1:8" {
		t.Errorf("FormatExperts from 1 = %q", s)
	}
	if _, err := ParseExperts("3", 0); err == nil || !strings.Contains(err.Error(), "layer:expert") {
		t.Errorf("a bad spec: %v", err)
	}
	off := ExpertsOff(append(es, Expert{0, 1}), 3)
	if fmt.Sprint(off) != "[[1 5 7] [2] []]" {
		t.Errorf("ExpertsOff = %v", off)
	}
	if ExpertsOff(nil, 3) != nil {
		t.Error("no experts off should be nil")
	}
}
