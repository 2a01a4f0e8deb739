package gguf

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

// Caps from docs/spec/formats.md B.8. Real models have < 5,000 tensors, < 100 keys,
// vocabularies < 300,000 tokens and chat templates of a few KiB.
const (
	maxTensors      = 65536
	maxKVs          = 65536
	maxKeyLen       = 65535
	maxNameLen      = 63 // llama.cpp: GGML_MAX_NAME 64 with the C terminator
	maxStringLen    = 1 << 20
	maxTemplateLen  = 16 << 20
	maxArrayLen     = 1 << 24
	maxDims         = 4
	maxElements     = 1 << 40
	defaultAlign    = 32
	maxAlign        = 4096
	minAlign        = 8
	headerBytes     = 4 + 4 + 8 + 8
	minKVBytes      = 8 + 1 + 4 + 1 // key length, 1-byte key, value type, 1-byte value
	minTensorBytes  = 8 + 1 + 4 + 8 + 4 + 8
	templateKey     = "tokenizer.chat_template"
	alignmentKey    = "general.alignment"
	architectureKey = "general.architecture"
)

// reader is a cursor over the whole file; every read checks the bytes that
// remain first, so nothing past the end is touched and nothing is allocated
// from a count that the file could not hold.
type reader struct {
	file string
	b    []byte
	pos  uint64
	key  string // key or tensor being read, for errors
	tens string
}

func (r *reader) fail(format string, args ...any) error {
	return &FileError{File: r.file, Key: r.key, Tensor: r.tens, Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) remaining() uint64 { return uint64(len(r.b)) - r.pos }

func (r *reader) bytes(n uint64, what string) ([]byte, error) {
	if n > r.remaining() {
		return nil, r.fail("truncated: %s needs %d bytes at offset %d, file has %d", what, n, r.pos, len(r.b))
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s, nil
}

func (r *reader) u32(what string) (uint32, error) {
	s, err := r.bytes(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(s), nil
}

func (r *reader) u64(what string) (uint64, error) {
	s, err := r.bytes(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(s), nil
}

// str reads a GGUF string (u64 length, bytes) of at most limit bytes.
func (r *reader) str(what string, limit uint64) (string, error) {
	n, err := r.u64(what + " length")
	if err != nil {
		return "", err
	}
	if n > limit {
		return "", r.fail("%s of %d bytes is longer than the limit of %d", what, n, limit)
	}
	s, err := r.bytes(n, what)
	if err != nil {
		return "", err
	}
	return string(s), nil
}

// parse reads and checks the whole file (docs/spec/formats.md B.8, every step).
func parse(name string, b []byte) (*File, error) {
	r := &reader{file: name, b: b}
	f := &File{Path: name, data: b, KV: map[string]Value{}, byName: map[string]int{}}
	if err := r.header(f); err != nil {
		return nil, err
	}
	nTensors, nKV, err := r.counts()
	if err != nil {
		return nil, err
	}
	for range nKV {
		if err := r.keyValue(f); err != nil {
			return nil, err
		}
	}
	r.key = ""
	if err := f.readAlignment(r); err != nil {
		return nil, err
	}
	for range nTensors {
		if err := r.tensorInfo(f); err != nil {
			return nil, err
		}
	}
	r.tens = ""
	if err := r.placeData(f); err != nil {
		return nil, err
	}
	return f, nil
}

func (r *reader) header(f *File) error {
	if uint64(len(r.b)) < headerBytes {
		return r.fail("%d bytes, too short for a GGUF header (%d)", len(r.b), headerBytes)
	}
	if string(r.b[:4]) != Magic {
		return r.fail("not a GGUF file (magic %q, want \"GGUF\")", r.b[:4])
	}
	r.pos = 4
	v, _ := r.u32("version")
	switch {
	case v == 0:
		return r.fail("version 0 is invalid")
	case v&0xffff == 0:
		return r.fail("version %#x looks byte-swapped: big-endian GGUF files are not supported", v)
	case v == 1:
		return r.fail("GGUF version 1 is no longer supported (want 2 or 3)")
	case v > 3:
		return r.fail("GGUF version %d is not supported (want 2 or 3)", v)
	}
	f.Version = int(v)
	return nil
}

func (r *reader) counts() (nTensors, nKV uint64, err error) {
	nTensors, _ = r.u64("tensor_count")
	nKV, _ = r.u64("kv_count")
	rem := r.remaining()
	switch {
	case nTensors > maxTensors:
		return 0, 0, r.fail("tensor_count %d is above the limit of %d", nTensors, maxTensors)
	case nKV > maxKVs:
		return 0, 0, r.fail("kv_count %d is above the limit of %d", nKV, maxKVs)
	case nKV*minKVBytes+nTensors*minTensorBytes > rem:
		return 0, 0, r.fail("truncated: %d keys and %d tensors cannot fit in the %d bytes left", nKV, nTensors, rem)
	}
	return nTensors, nKV, nil
}

func (r *reader) keyValue(f *File) error {
	r.key = ""
	key, err := r.str("key", maxKeyLen)
	if err != nil {
		return err
	}
	r.key = key
	if err := checkKey(key); err != nil {
		return r.fail("%v", err)
	}
	if _, dup := f.KV[key]; dup {
		return r.fail("duplicate key")
	}
	t, err := r.u32("value type")
	if err != nil {
		return err
	}
	v, err := r.value(ValueType(t), key)
	if err != nil {
		return err
	}
	f.KV[key] = v
	f.Keys = append(f.Keys, key)
	return nil
}

// checkKey: 1 … 65,535 bytes of printable ASCII (the spec's lower_snake_case
// dotted names, loosened to any printable ASCII as writers differ).
func checkKey(k string) error {
	if k == "" {
		return fmt.Errorf("empty key")
	}
	for i := range len(k) {
		if c := k[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("key has byte %#02x at %d (want printable ASCII)", c, i)
		}
	}
	return nil
}

func (r *reader) value(t ValueType, key string) (Value, error) {
	v := Value{Type: t}
	switch {
	case t == TypeString:
		limit := uint64(maxStringLen)
		if key == templateKey {
			limit = maxTemplateLen
		}
		s, err := r.str("string value", limit)
		v.str = s
		return v, err
	case t == TypeArray:
		return r.array()
	case t.size() > 0:
		s, err := r.bytes(t.size(), t.String()+" value")
		if err != nil {
			return v, err
		}
		v.raw = s
		if t == TypeBool && s[0] > 1 {
			return v, r.fail("bool value %d (want 0 or 1)", s[0])
		}
		return v, nil
	}
	return v, r.fail("unknown value type %d", uint32(t))
}

func (r *reader) array() (Value, error) {
	et, err := r.u32("array element type")
	if err != nil {
		return Value{}, err
	}
	elem := ValueType(et)
	v := Value{Type: TypeArray, Elem: elem}
	if elem == TypeArray {
		return v, r.fail("nested arrays are not supported")
	}
	if elem != TypeString && elem.size() == 0 {
		return v, r.fail("unknown array element type %d", et)
	}
	n, err := r.u64("array length")
	if err != nil {
		return v, err
	}
	if n > maxArrayLen {
		return v, r.fail("array of %d elements is above the limit of %d", n, maxArrayLen)
	}
	v.n = int(n)
	if elem != TypeString {
		v.raw, err = r.bytes(n*elem.size(), fmt.Sprintf("array of %d %s", n, elem))
		if err == nil && elem == TypeBool {
			for i, c := range v.raw {
				if c > 1 {
					return v, r.fail("bool element %d is %d (want 0 or 1)", i, c)
				}
			}
		}
		return v, err
	}
	if n*8 > r.remaining() {
		return v, r.fail("truncated: array of %d strings needs at least %d bytes, %d left", n, n*8, r.remaining())
	}
	v.strs = make([]string, n)
	for i := range v.strs {
		if v.strs[i], err = r.str(fmt.Sprintf("string element %d", i), maxStringLen); err != nil {
			return v, err
		}
	}
	return v, nil
}

// readAlignment applies general.alignment: UINT32, a power of two in
// [8, 4096] (docs/spec/formats.md B.8 step 10); 32 when absent.
func (f *File) readAlignment(r *reader) error {
	f.Alignment = defaultAlign
	v, ok := f.KV[alignmentKey]
	if !ok {
		return nil
	}
	r.key = alignmentKey
	defer func() { r.key = "" }()
	if v.Type != TypeUint32 {
		return r.fail("type %s, want uint32", v.Type)
	}
	a := uint64(binary.LittleEndian.Uint32(v.raw))
	if a < minAlign || a > maxAlign || a&(a-1) != 0 {
		return r.fail("alignment %d is not a power of two in [%d, %d]", a, minAlign, maxAlign)
	}
	f.Alignment = int(a)
	return nil
}

func (r *reader) tensorInfo(f *File) error {
	r.tens = ""
	name, err := r.str("tensor name", maxNameLen)
	if err != nil {
		return err
	}
	r.tens = name
	if name == "" {
		return r.fail("empty tensor name")
	}
	if !utf8.ValidString(name) || containsNUL(name) {
		return r.fail("tensor name is not valid UTF-8 without NUL")
	}
	if _, dup := f.byName[name]; dup {
		return r.fail("duplicate tensor name")
	}
	nd, err := r.u32("n_dims")
	if err != nil {
		return err
	}
	if nd < 1 || nd > maxDims {
		return r.fail("n_dims %d (want 1 … %d)", nd, maxDims)
	}
	t := Tensor{Name: name, Dims: make([]uint64, nd)}
	elems := uint64(1)
	for j := range t.Dims {
		if t.Dims[j], err = r.u64("dimension"); err != nil {
			return err
		}
		if t.Dims[j] < 1 || t.Dims[j] > maxElements {
			return r.fail("dimension %d is %d (want 1 … 2^40)", j, t.Dims[j])
		}
		hi, lo := bits.Mul64(elems, t.Dims[j])
		if hi != 0 || lo > maxElements {
			return r.fail("shape %v has more than 2^40 elements", t.Dims[:j+1])
		}
		elems = lo
	}
	ty, err := r.u32("type")
	if err != nil {
		return err
	}
	t.Type = Type(ty)
	if !t.Type.Supported() {
		return r.fail("type %s is not supported (Loupe reads %s)", t.Type, SupportedTypes)
	}
	lay := layouts[t.Type]
	if t.Dims[0]%lay.elems != 0 {
		return r.fail("first dimension %d is not a multiple of the %s block of %d", t.Dims[0], t.Type, lay.elems)
	}
	// elems ≤ 2^40 and bytes per block ≤ 210: no overflow
	t.Bytes = elems / lay.elems * lay.bytes
	if t.Offset, err = r.u64("offset"); err != nil {
		return err
	}
	f.byName[name] = len(f.Tensors)
	f.Tensors = append(f.Tensors, t)
	return nil
}

func containsNUL(s string) bool {
	for i := range len(s) {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

// placeData checks that tensors lie back to back in the order of their
// infos, each at an aligned offset equal to the running padded sum (the
// llama.cpp rule: no overlap, no holes), all inside the file.
func (r *reader) placeData(f *File) error {
	a := uint64(f.Alignment)
	start := alignUp(r.pos, a)
	if len(f.Tensors) > 0 && start > uint64(len(r.b)) {
		return r.fail("truncated: tensor data would start at %d, file has %d bytes", start, len(r.b))
	}
	f.DataOffset = int64(start)
	size := uint64(len(r.b))
	var want uint64
	for i := range f.Tensors {
		t := &f.Tensors[i]
		r.tens = t.Name
		if t.Offset%a != 0 {
			return r.fail("offset %d is not a multiple of the alignment %d", t.Offset, a)
		}
		if t.Offset != want {
			return r.fail("offset %d, expected %d (tensors must be back to back in order)", t.Offset, want)
		}
		// start, want ≤ size after the checks below; t.Bytes ≤ 2^40·210/1
		if t.Bytes > size || want > size-start || t.Bytes > size-start-want {
			return r.fail("data [%d, %d) is not within the file of %d bytes (truncated or corrupt)",
				start+want, start+want+t.Bytes, size)
		}
		t.Data = r.b[start+want : start+want+t.Bytes : start+want+t.Bytes]
		want = alignUp(want+t.Bytes, a)
	}
	r.tens = ""
	return nil
}

// alignUp rounds x up to a multiple of a (a power of two); x < 2^63 here.
func alignUp(x, a uint64) uint64 { return (x + a - 1) &^ (a - 1) }
