package safetensors

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"loupe/kernels"
)

// rawFile builds a file image by hand: u64 N, the header, the data. Tests
// use it to write what our Write never would.
func rawFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(b, header...), data...)
}

func writeRaw(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func le16(vs ...uint16) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}

func le32f(vs ...float32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func sampleTensors() []Tensor {
	return []Tensor{
		{Name: "b.bf16", DType: "BF16", Shape: []int{3}, Data: le16(0x3f80, 0xc000, 0x0001)}, // 1, -2, smallest subnormal
		{Name: "a.f32", DType: "F32", Shape: []int{2, 2}, Data: le32f(1.5, -0.25, 3e-39, float32(math.Inf(1)))},
		{Name: "c.f16", DType: "F16", Shape: []int{1}, Data: le16(0x3555)},
		{Name: "d.i64", DType: "I64", Shape: []int{}, Data: make([]byte, 8)},
		{Name: "e.empty", DType: "BF16", Shape: []int{0, 4}, Data: nil},
		{Name: "f.u8", DType: "U8", Shape: []int{5}, Data: []byte{1, 2, 3, 4, 5}},
	}
}

func TestWriteOpenRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.safetensors")
	meta := map[string]string{"format": "pt", "note": "<&>"}
	in := sampleTensors()
	if err := Write(p, in, meta); err != nil {
		t.Fatal(err)
	}
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := []string{"a.f32", "b.bf16", "c.f16", "d.i64", "e.empty", "f.u8"}
	if got := s.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names = %v, want %v", got, want)
	}
	for _, w := range in {
		g, ok := s.Tensor(w.Name)
		if !ok {
			t.Fatalf("tensor %q missing", w.Name)
		}
		if g.DType != w.DType || !reflect.DeepEqual(g.Shape, w.Shape) || string(g.Data) != string(w.Data) || g.File != p {
			t.Errorf("tensor %q = %+v, want %+v", w.Name, g, w)
		}
	}
	if !reflect.DeepEqual(s.Metadata(), meta) {
		t.Errorf("Metadata = %v, want %v", s.Metadata(), meta)
	}
	st, _ := os.Stat(p)
	if s.FileBytes() != st.Size() {
		t.Errorf("FileBytes = %d, want %d", s.FileBytes(), st.Size())
	}
	raw, _ := os.ReadFile(p)
	n := binary.LittleEndian.Uint64(raw)
	if n%8 != 0 || raw[8+n-1] != '}' && raw[8+n-1] != ' ' {
		t.Errorf("header length %d not padded to 8 with spaces", n)
	}
}

func TestDecode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.safetensors")
	if err := Write(p, sampleTensors(), nil); err != nil {
		t.Fatal(err)
	}
	s, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bt, _ := s.Tensor("b.bf16")
	b, err := bt.BF16()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b, []kernels.BF16{0x3f80, 0xc000, 0x0001}) {
		t.Errorf("BF16 = %#v", b)
	}
	if unsafe.Pointer(&b[0]) != unsafe.Pointer(&bt.Data[0]) {
		t.Error("aligned BF16 was copied, want a view")
	}
	// Widening is exact: 0x0001 is 2^-133 (smallest bf16 subnormal).
	checkF32(t, bt, []float32{1, -2, float32(math.Ldexp(1, -133))})
	ft, _ := s.Tensor("a.f32")
	f := checkF32(t, ft, []float32{1.5, -0.25, 3e-39, float32(math.Inf(1))})
	if unsafe.Pointer(&f[0]) != unsafe.Pointer(&ft.Data[0]) {
		t.Error("aligned F32 was copied, want a view")
	}
	ht, _ := s.Tensor("c.f16")
	checkF32(t, ht, []float32{0.333251953125})
	if h, err := ht.F16(); err != nil || !reflect.DeepEqual(h, []kernels.F16{0x3555}) || unsafe.Pointer(&h[0]) != unsafe.Pointer(&ht.Data[0]) {
		t.Errorf("F16 = %#v, %v: want a view of 0x3555", h, err)
	}
	if _, err := bt.F16(); err == nil || !strings.Contains(err.Error(), "want F16") {
		t.Errorf("F16 of BF16: err = %v", err)
	}
	it, _ := s.Tensor("d.i64")
	if _, err := it.F32(); err == nil || !strings.Contains(err.Error(), `"d.i64"`) {
		t.Errorf("F32 of I64: err = %v, want one naming the tensor", err)
	}
	if _, err := ft.BF16(); err == nil || !strings.Contains(err.Error(), "want BF16") {
		t.Errorf("BF16 of F32: err = %v", err)
	}
	et, _ := s.Tensor("e.empty")
	if v, err := et.BF16(); err != nil || len(v) != 0 {
		t.Errorf("empty BF16 = %v, %v", v, err)
	}
}

func checkF32(t *testing.T, tn Tensor, want []float32) []float32 {
	t.Helper()
	got, err := tn.F32()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: F32 = %v, want %v", tn.Name, got, want)
	}
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Errorf("%s[%d] = %g, want %g", tn.Name, i, got[i], want[i])
		}
	}
	return got
}

// A conforming file may put a BF16 tensor at an odd offset (after a 1-byte
// U8 tensor): the reader copies instead of failing or misreading.
func TestMisalignedCopies(t *testing.T) {
	h := `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},` +
		`"b":{"dtype":"BF16","shape":[2],"data_offsets":[1,5]},` +
		`"c":{"dtype":"F32","shape":[1],"data_offsets":[5,9]}}`
	h += strings.Repeat(" ", (8-len(h)%8)%8)
	data := append(append([]byte{7}, le16(0x3f80, 0x4000)...), le32f(-3.5)...)
	s, err := Open(writeRaw(t, "odd.safetensors", rawFile(h, data)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bt, _ := s.Tensor("b")
	b, err := bt.BF16()
	if err != nil || !reflect.DeepEqual(b, []kernels.BF16{0x3f80, 0x4000}) {
		t.Errorf("misaligned BF16 = %v, %v", b, err)
	}
	ct, _ := s.Tensor("c")
	checkF32(t, ct, []float32{-3.5})
	bt.DType = "F16" // the same odd offset read as f16 elements
	if h, err := bt.F16(); err != nil || !reflect.DeepEqual(h, []kernels.F16{0x3f80, 0x4000}) {
		t.Errorf("misaligned F16 = %v, %v", h, err)
	}
}

func TestWriteRefusesExisting(t *testing.T) {
	p := writeRaw(t, "keep.safetensors", []byte("user data"))
	err := Write(p, sampleTensors(), nil)
	if err == nil || !errors.Is(err, os.ErrExist) {
		t.Fatalf("Write over an existing file: err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "user data" {
		t.Fatal("existing file was modified")
	}
}

func TestWriteRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := [][]Tensor{
		{{Name: "x", DType: "F32", Shape: []int{2}, Data: make([]byte, 4)}},
		{{Name: "x", DType: "F99", Shape: []int{1}, Data: make([]byte, 4)}},
		{{Name: "x", DType: "U8", Shape: []int{1}, Data: []byte{1}}, {Name: "x", DType: "U8", Shape: []int{1}, Data: []byte{1}}},
		{{Name: "__metadata__", DType: "U8", Shape: []int{1}, Data: []byte{1}}},
		{{Name: "x", DType: "U8", Shape: []int{-1}}},
	}
	for i, ts := range bad {
		p := filepath.Join(dir, "bad.safetensors")
		if err := Write(p, ts, nil); err == nil {
			t.Errorf("case %d: Write accepted %+v", i, ts)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("case %d: failed Write left a file", i)
			os.Remove(p)
		}
	}
}

// Header length not a multiple of 8 (an old writer's bug) must be accepted.
func TestUnpaddedHeaderAccepted(t *testing.T) {
	h := `{"x":{"dtype":"U8","shape":[3],"data_offsets":[0,3]}}`
	if len(h)%8 == 0 {
		h += " "
	}
	s, err := Open(writeRaw(t, "u.safetensors", rawFile(h, []byte{1, 2, 3})))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

const okEntry = `{"dtype":"U8","shape":[4],"data_offsets":[0,4]}`

func TestOpenRejects(t *testing.T) {
	huge := binary.LittleEndian.AppendUint64(nil, 1<<63)
	pastEnd := binary.LittleEndian.AppendUint64(nil, 64)
	cases := []struct {
		name, want string
		file       []byte
	}{
		{"short", "shorter than the 8-byte", []byte{1, 2, 3}},
		{"huge header length", "exceeds the 100000000-byte cap", append(huge, "{}"...)},
		{"header past end", "runs past the end", append(pastEnd, "{}"...)},
		{"bad JSON", "header JSON", rawFile(`{"x":`, nil)},
		{"bad JSON 2", "header JSON", rawFile(`{"x" 1}`, nil)},
		{"not an object", "does not start with '{'", rawFile(`[]`, nil)},
		{"empty header", "does not start with '{'", rawFile(``, nil)},
		{"invalid UTF-8", "not valid UTF-8", rawFile("{\"\xff\":1}", nil)},
		{"data after header", "after its closing", rawFile(`{}{}`, nil)},
		{"duplicate name", `"x": appears twice`, rawFile(`{"x":`+okEntry+`,"x":`+okEntry+`}`, []byte{1, 2, 3, 4})},
		{"duplicate field", `field "dtype" appears twice`, rawFile(`{"x":{"dtype":"U8","dtype":"U8","shape":[4],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4})},
		{"unknown field", `unknown field "offsets"`, rawFile(`{"x":{"dtype":"U8","shape":[4],"offsets":[0,4]}}`, []byte{1, 2, 3, 4})},
		{"missing field", `missing field "data_offsets"`, rawFile(`{"x":{"dtype":"U8","shape":[4]}}`, []byte{1, 2, 3, 4})},
		{"unknown dtype", `unknown dtype "Q4"`, rawFile(`{"x":{"dtype":"Q4","shape":[4],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4})},
		{"negative dim", "non-negative integer", rawFile(`{"x":{"dtype":"U8","shape":[-4],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4})},
		{"fraction offset", "non-negative integer", rawFile(`{"x":{"dtype":"U8","shape":[4],"data_offsets":[0,4.0]}}`, []byte{1, 2, 3, 4})},
		{"offset above 2^64", "non-negative integer", rawFile(`{"x":{"dtype":"U8","shape":[4],"data_offsets":[0,18446744073709551616]}}`, []byte{1, 2, 3, 4})},
		{"three offsets", "more than 2", rawFile(`{"x":{"dtype":"U8","shape":[4],"data_offsets":[0,4,4]}}`, []byte{1, 2, 3, 4})},
		{"one offset", "has 1 numbers", rawFile(`{"x":{"dtype":"U8","shape":[4],"data_offsets":[0]}}`, []byte{1, 2, 3, 4})},
		{"rank 9", "more than 8", rawFile(`{"x":{"dtype":"U8","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,1]}}`, []byte{1})},
		{"nested shape", "want integers", rawFile(`{"x":{"dtype":"U8","shape":[[4]],"data_offsets":[0,4]}}`, []byte{1, 2, 3, 4})},
		{"end before begin", `tensor "x": data_offsets [10, 4] end before begin`, rawFile(`{"x":{"dtype":"U8","shape":[4],"data_offsets":[10,4]}}`, make([]byte, 10))},
		{"overlap", `overlap tensor "a"`, rawFile(`{"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}`, make([]byte, 6))},
		{"same bytes twice", `overlap tensor "a"`, rawFile(`{"a":`+okEntry+`,"b":`+okEntry+`}`, make([]byte, 4))},
		{"hole", "leave a hole", rawFile(`{"a":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}}`, make([]byte, 6))},
		{"lying header", "run past the end of the 4-byte data buffer", rawFile(`{"x":{"dtype":"U8","shape":[1000],"data_offsets":[0,1000]}}`, make([]byte, 4))},
		{"wrong dtype size", "hold 4 bytes, but F32 [2] needs 8", rawFile(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, make([]byte, 4))},
		{"shape overflow", "overflows 64 bits", rawFile(`{"x":{"dtype":"U8","shape":[1099511627776,1099511627776],"data_offsets":[0,4]}}`, make([]byte, 4))},
		{"dimension too large", "too large", rawFile(`{"x":{"dtype":"U8","shape":[0,1099511627777],"data_offsets":[0,0]}}`, nil)},
		{"trailing bytes", "1 bytes after the last tensor", rawFile(`{"x":`+okEntry+`}`, make([]byte, 5))},
		{"metadata not strings", "want a string", rawFile(`{"__metadata__":{"format":1}}`, nil)},
		{"metadata not object", "where \"{\" was expected", rawFile(`{"__metadata__":"pt"}`, nil)},
		{"NUL in name", "NUL byte", rawFile(`{"x\u0000y":`+okEntry+`}`, make([]byte, 4))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeRaw(t, "bad.safetensors", c.file)
			s, err := Open(p)
			if err == nil {
				s.Close()
				t.Fatalf("Open accepted the file")
			}
			if !errors.Is(err, ErrBadFile) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v\nwant ErrBadFile naming %s and containing %q", err, p, c.want)
			}
		})
	}
}

// Every strict prefix of a valid file is truncated and must be refused.
func TestTruncatedPrefixes(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.safetensors")
	if err := Write(full, sampleTensors(), map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(full)
	for n := 0; n < len(b); n++ {
		p := filepath.Join(dir, "cut.safetensors")
		os.WriteFile(p, b[:n], 0o644)
		if s, err := Open(p); err == nil {
			s.Close()
			t.Fatalf("prefix of %d/%d bytes accepted", n, len(b))
		} else if !errors.Is(err, ErrBadFile) {
			t.Fatalf("prefix of %d bytes: %v is not ErrBadFile", n, err)
		}
	}
}

func TestOpenFolderErrors(t *testing.T) {
	if _, err := Open(t.TempDir()); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty folder: err = %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none.safetensors")); err == nil {
		t.Error("missing file accepted")
	}
}

// A file that fails validation must not stay mapped (found by FuzzOpen:
// the worker's memory grew with every rejected input).
func TestRejectedFileUnmapped(t *testing.T) {
	p := writeRaw(t, "leak.safetensors", rawFile(`{"x":`+okEntry+`}`, make([]byte, 5)))
	if _, err := Open(p); err == nil {
		t.Fatal("bad file accepted")
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps")
	}
	if strings.Contains(string(maps), p) {
		t.Fatalf("%s is still mapped after a failed Open", p)
	}
}
