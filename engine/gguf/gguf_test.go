package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sample is a small valid file: every value type, two tensors of
// different types (F32 [4, 2], Q8_0 [32, 1]).
func sample(t testing.TB) []byte {
	t.Helper()
	q8 := make([]byte, 34)
	binary.LittleEndian.PutUint16(q8, 0x3c00) // d = 1
	for i := range 32 {
		q8[2+i] = byte(int8(i - 16))
	}
	f32 := make([]byte, 32)
	for i := range 8 {
		binary.LittleEndian.PutUint32(f32[4*i:], math.Float32bits(float32(i)))
	}
	kvs := []KV{
		{"general.architecture", "llama"},
		{"llama.block_count", uint32(2)},
		{"llama.rope.freq_base", float32(10000)},
		{"x.u8", uint8(7)}, {"x.i8", int8(-7)}, {"x.u16", uint16(7)}, {"x.i16", int16(-7)},
		{"x.i32", int32(-7)}, {"x.u64", uint64(1 << 40)}, {"x.i64", int64(-1)}, {"x.f64", 0.5},
		{"x.bool", true},
		{"tokenizer.ggml.tokens", []string{"a", "b", "▁c"}},
		{"tokenizer.ggml.scores", []float32{0, -1, -2}},
		{"tokenizer.ggml.token_type", []int32{1, 1, 6}},
	}
	tensors := []WriteTensor{
		{Name: "a.weight", Type: F32, Dims: []uint64{4, 2}, Data: f32},
		{Name: "b.weight", Type: Q8_0, Dims: []uint64{32, 1}, Data: q8},
	}
	var buf bytes.Buffer
	if err := Write(&buf, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTrip(t *testing.T) {
	b := sample(t)
	f, err := Parse("s.gguf", b)
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || f.Alignment != 32 || len(f.Tensors) != 2 || len(f.Keys) != 15 {
		t.Fatalf("version %d align %d tensors %d keys %d", f.Version, f.Alignment, len(f.Tensors), len(f.Keys))
	}
	if s, ok, err := f.String("general.architecture"); s != "llama" || !ok || err != nil {
		t.Errorf("architecture %q %v %v", s, ok, err)
	}
	if n, _, err := f.Int("llama.block_count", 1, 512); n != 2 || err != nil {
		t.Errorf("block_count %d %v", n, err)
	}
	if n, _, err := f.Int("x.i8", -10, 10); n != -7 || err != nil {
		t.Errorf("i8 %d %v", n, err)
	}
	if _, _, err := f.Int("x.u64", 0, 1<<30); err == nil {
		t.Error("u64 above the range accepted")
	}
	if _, _, err := f.Int("x.f64", 0, 1); err == nil {
		t.Error("float read as an integer")
	}
	if x, _, err := f.Float("llama.rope.freq_base"); x != 10000 || err != nil {
		t.Errorf("freq_base %v %v", x, err)
	}
	if b, _, err := f.Bool("x.bool"); !b || err != nil {
		t.Errorf("bool %v %v", b, err)
	}
	if s, _, err := f.Strings("tokenizer.ggml.tokens"); len(s) != 3 || s[2] != "▁c" || err != nil {
		t.Errorf("tokens %q %v", s, err)
	}
	if x, _, err := f.Float32s("tokenizer.ggml.scores"); len(x) != 3 || x[2] != -2 || err != nil {
		t.Errorf("scores %v %v", x, err)
	}
	if _, _, err := f.Float32s("tokenizer.ggml.token_type"); err == nil {
		t.Error("int32 array read as float32 (PR #26690)")
	}
	if x, _, err := f.Ints("tokenizer.ggml.token_type", 0, 6); len(x) != 3 || x[2] != 6 || err != nil {
		t.Errorf("token_type %v %v", x, err)
	}
	a, _ := f.Tensor("a.weight")
	if a.Rows() != 2 || a.Cols() != 4 || len(a.Data) != 32 || math.Float32frombits(binary.LittleEndian.Uint32(a.Data[28:])) != 7 {
		t.Errorf("a.weight %+v", a)
	}
	q, _ := f.Tensor("b.weight")
	if q.Type != Q8_0 || q.Offset != 32 || len(q.Data) != 34 || q.Data[2] != 0xf0 {
		t.Errorf("b.weight %+v", q)
	}
	if (f.DataOffset % 32) != 0 {
		t.Errorf("data offset %d", f.DataOffset)
	}
}

func TestOpenFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.gguf")
	if err := WriteFile(p, nil, []WriteTensor{{Name: "x", Type: BF16, Dims: []uint64{2}, Data: []byte{1, 2, 3, 4}}}); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, nil, nil); err == nil {
		t.Error("WriteFile replaced an existing file")
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := f.Tensor("x")
	if !bytes.Equal(x.Data, []byte{1, 2, 3, 4}) {
		t.Errorf("data %v", x.Data)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing.gguf")); !errors.Is(err, ErrBadFile) {
		t.Errorf("missing file: %v", err)
	}
}

// raw builds a file field by field for the hostile cases.
type raw struct{ b []byte }

func (r *raw) u32(v uint32) *raw    { r.b = binary.LittleEndian.AppendUint32(r.b, v); return r }
func (r *raw) u64(v uint64) *raw    { r.b = binary.LittleEndian.AppendUint64(r.b, v); return r }
func (r *raw) str(s string) *raw    { r.u64(uint64(len(s))); r.b = append(r.b, s...); return r }
func (r *raw) bytes(b ...byte) *raw { r.b = append(r.b, b...); return r }
func (r *raw) pad(a int) *raw {
	for len(r.b)%a != 0 {
		r.b = append(r.b, 0)
	}
	return r
}

func head(tensors, kvs uint64) *raw {
	return (&raw{}).bytes('G', 'G', 'U', 'F').u32(3).u64(tensors).u64(kvs)
}

// tensor appends one tensor info.
func (r *raw) tensor(name string, typ uint32, off uint64, dims ...uint64) *raw {
	r.str(name).u32(uint32(len(dims)))
	for _, d := range dims {
		r.u64(d)
	}
	return r.u32(typ).u64(off)
}

// TestHostile: each file breaks one rule of docs/spec/formats.md B.8 and must give
// an error naming the key or tensor and the problem.
func TestHostile(t *testing.T) {
	big := strings.Repeat("k", 70000)
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"magic", (&raw{}).bytes('G', 'G', 'M', 'L').u32(3).u64(0).u64(0).b, "not a GGUF file"},
		{"version 0", (&raw{}).bytes('G', 'G', 'U', 'F').u32(0).u64(0).u64(0).b, "version 0"},
		{"version 1", (&raw{}).bytes('G', 'G', 'U', 'F').u32(1).u64(0).u64(0).b, "version 1"},
		{"version 4", (&raw{}).bytes('G', 'G', 'U', 'F').u32(4).u64(0).u64(0).b, "version 4"},
		{"big-endian", (&raw{}).bytes('G', 'G', 'U', 'F').u32(3 << 24).u64(0).u64(0).b, "big-endian"},
		{"tensor count", head(1<<40, 0).b, "tensor_count"},
		{"kv count", head(0, 1<<62).b, "kv_count"},
		{"counts beyond the file", head(100, 100).b, "cannot fit"},
		{"key length beyond file", head(0, 1).u64(1<<60).u32(0).bytes(0, 0, 0, 0, 0).b, "longer than the limit"},
		{"key length", head(0, 1).str(big).u32(0).bytes(0).b, "longer than the limit"},
		{"empty key", head(0, 1).str("").u32(0).bytes(make([]byte, 16)...).b, "empty key"},
		{"key NUL", head(0, 1).str("a\x00b").u32(0).bytes(0).b, "printable ASCII"},
		{"duplicate key", head(0, 2).str("a").u32(0).bytes(1).str("a").u32(0).bytes(1).b, `key "a": duplicate`},
		{"value type", head(0, 1).str("a").u32(13).bytes(0, 0, 0, 0).b, `key "a": unknown value type 13`},
		{"bool 2", head(0, 1).str("a").u32(7).bytes(2, 0, 0, 0).b, "want 0 or 1"},
		{"string beyond file", head(0, 1).str("a").u32(8).u64(100).bytes(1, 2).b, "truncated"},
		{"string cap", head(0, 1).str("a").u32(8).u64(2<<20).bytes(1, 2).b, "longer than the limit"},
		{"nested array", head(0, 1).str("a").u32(9).u32(9).u64(1).b, "nested arrays"},
		{"array element type", head(0, 1).str("a").u32(9).u32(77).u64(1).b, "element type 77"},
		{"array count cap", head(0, 1).str("a").u32(9).u32(0).u64(1 << 30).b, "above the limit"},
		{"array beyond file", head(0, 1).str("a").u32(9).u32(12).u64(1000).b, "truncated"},
		{"string array beyond file", head(0, 1).str("a").u32(9).u32(8).u64(1<<20).bytes(0, 0, 0, 0).b, "at least"},
		{"alignment type", head(0, 1).str("general.alignment").u32(10).u64(32).b, "want uint32"},
		{"alignment 48", head(0, 1).str("general.alignment").u32(4).u32(48).bytes(0, 0, 0, 0, 0).b, "power of two"},
		{"alignment 0", head(0, 1).str("general.alignment").u32(4).u32(0).bytes(0, 0, 0, 0, 0).b, "power of two"},
		{"tensor name 64", head(1, 0).tensor(strings.Repeat("n", 64), 0, 0, 1).b, "longer than the limit"},
		{"tensor name empty", head(1, 0).tensor("", 0, 0, 1).bytes(make([]byte, 16)...).b, "empty tensor name"},
		{"n_dims 0", head(1, 0).tensor("t", 0, 0).bytes(make([]byte, 20)...).b, `tensor "t": n_dims 0`},
		{"n_dims 5", head(1, 0).tensor("t", 0, 0, 1, 1, 1, 1, 1).b, "n_dims 5"},
		{"dim 0", head(1, 0).tensor("t", 0, 0, 0).b, "dimension 0 is 0"},
		{"dim huge", head(1, 0).tensor("t", 0, 0, 1<<62).b, "dimension 0 is"},
		{"elements overflow", head(1, 0).tensor("t", 0, 0, 1<<40, 1<<40).b, "more than 2^40"},
		{"Q3_K refused by name", head(1, 0).tensor("t", 11, 0, 256).b, `tensor "t": type Q3_K is not supported`},
		{"unknown type", head(1, 0).tensor("t", 1000, 0, 256).b, "type 1000 (unknown) is not supported"},
		{"block multiple", head(1, 0).tensor("t", 8, 0, 33).b, "not a multiple of the Q8_0 block"},
		{"duplicate tensor", head(2, 0).tensor("t", 0, 0, 1).tensor("t", 0, 32, 1).pad(32).bytes(make([]byte, 64)...).b, `tensor "t": duplicate`},
		{"offset unaligned", head(1, 0).tensor("t", 0, 4, 1).pad(32).bytes(make([]byte, 64)...).b, "not a multiple of the alignment"},
		{"offset hole", head(1, 0).tensor("t", 0, 32, 1).pad(32).bytes(make([]byte, 64)...).b, "expected 0"},
		{"overlap", head(2, 0).tensor("t", 0, 0, 16).tensor("u", 0, 32, 16).pad(32).bytes(make([]byte, 128)...).b, `tensor "u": offset 32, expected 64`},
		{"data beyond file (Bleeding Llama)", head(1, 0).tensor("t", 0, 0, 1024).pad(32).bytes(make([]byte, 64)...).b, "not within the file"},
		{"wrapping row count (PR #18674)", head(1, 0).tensor("token_embd.weight", 0, 0, 1<<2, 1<<38).pad(32).b, "not within the file"},
		{"truncated tensor infos", head(1, 0).str("t").u32(1).b, "truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("h.gguf", c.file)
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrBadFile) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "h.gguf") {
				t.Fatalf("error %q, want it to name the file and contain %q", err, c.want)
			}
		})
	}
}

// TestPrefixes: every truncation of a valid file is an error.
func TestPrefixes(t *testing.T) {
	b := sample(t)
	for n := range len(b) - 1 {
		if _, err := Parse("p.gguf", b[:n]); err == nil {
			// the tail after the last tensor's data is padding: a file cut
			// inside the final padding is still whole
			last := b[:n]
			f, _ := Parse("p.gguf", last)
			if f == nil || f.DataOffset+int64(f.Tensors[1].Offset+f.Tensors[1].Bytes) > int64(n) {
				t.Fatalf("prefix of %d bytes accepted", n)
			}
		}
	}
}

// TestBitFlips: a flipped bit anywhere gives an error or a file whose
// tensors stay inside it; never a panic.
func TestBitFlips(t *testing.T) {
	b := sample(t)
	for i := range len(b) {
		for bit := range 8 {
			c := bytes.Clone(b)
			c[i] ^= 1 << bit
			checkAccepted(t, c)
		}
	}
}

// checkAccepted parses data and, if it is accepted, reads every value and
// checks every tensor lies inside the file.
func checkAccepted(t *testing.T, data []byte) {
	f, err := Parse("f.gguf", data)
	if err != nil {
		return
	}
	for _, k := range f.Keys {
		f.String(k)
		f.Int(k, math.MinInt64, math.MaxInt64)
		f.Float(k)
		f.Bool(k)
		f.Strings(k)
		f.Float32s(k)
		f.Ints(k, math.MinInt64, math.MaxInt64)
	}
	var total uint64
	for _, tn := range f.Tensors {
		total += uint64(len(tn.Data))
		if uint64(len(tn.Data)) != tn.Bytes {
			t.Fatalf("tensor %s: %d bytes of data for %d", tn.Name, len(tn.Data), tn.Bytes)
		}
	}
	if total > uint64(len(data)) {
		t.Fatalf("tensors hold %d bytes, file has %d", total, len(data))
	}
}

// FuzzOpen feeds arbitrary bytes to the parser: an error or a checked file,
// never a panic or an allocation beyond the file's size.
func FuzzOpen(f *testing.F) {
	f.Add(sample(f))
	f.Add(head(1, 0).tensor("t", 0, 0, 16).pad(32).bytes(make([]byte, 64)...).b)
	f.Add(head(0, 1).str("general.alignment").u32(4).u32(64).b)
	f.Add(head(0, 1).str("a").u32(9).u32(8).u64(2).str("x").str("y").b)
	if regress, err := filepath.Glob("testdata/*.gguf"); err == nil {
		for _, p := range regress {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkAccepted(t, data) })
}

// regressions are hostile files kept under testdata/ (written by
// LOUPE_WRITE_TESTDATA=1 go test -run TestWriteRegressions): the ggml and
// Ollama attack shapes of docs/spec/formats.md B.7.
var regressions = map[string][]byte{
	"bleeding-llama.gguf":     head(1, 0).tensor("token_embd.weight", 0, 0, 1024, 1024).pad(32).bytes(make([]byte, 64)...).b,
	"pr18674-wrap.gguf":       head(1, 0).tensor("token_embd.weight", 0, 0, 4, 1<<38).pad(32).bytes(make([]byte, 64)...).b,
	"q3k.gguf":                head(1, 0).tensor("blk.0.attn_q.weight", 11, 0, 256).pad(32).bytes(make([]byte, 110)...).b,
	"duplicate-key.gguf":      head(0, 2).str("general.architecture").u32(8).str("llama").str("general.architecture").u32(8).str("qwen2").b,
	"cve-2024-23605-nkv.gguf": head(0, 0x0400000000000001).bytes(make([]byte, 64)...).b,
	"ndims-overflow.gguf":     head(1, 0).tensor("t", 0, 0, 1, 1, 1, 1, 1, 1, 1, 1).b,
	"string-huge.gguf":        head(0, 1).str("a").u32(8).u64(1 << 62).bytes(make([]byte, 32)...).b,
}

func TestWriteRegressions(t *testing.T) {
	if os.Getenv("LOUPE_WRITE_TESTDATA") != "1" {
		t.Skip("set LOUPE_WRITE_TESTDATA=1 to rewrite testdata/")
	}
	for name, b := range regressions {
		if err := os.WriteFile(filepath.Join("testdata", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRegressions: the hostile files kept under testdata/ are refused.
func TestRegressions(t *testing.T) {
	ps, _ := filepath.Glob("testdata/*.gguf")
	if len(ps) == 0 {
		t.Fatal("no regression files in testdata/")
	}
	for _, p := range ps {
		if _, err := Open(p); err == nil || !strings.Contains(err.Error(), filepath.Base(p)) {
			t.Errorf("%s: %v", p, err)
		}
	}
}
