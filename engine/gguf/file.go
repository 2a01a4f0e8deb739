// Package gguf reads and writes GGUF files (docs/spec/formats.md part B), the format
// of llama.cpp, Ollama and LM Studio: a header, typed metadata key/values,
// tensor infos, then aligned tensor data.
//
// Files are untrusted input: Open checks every rule of docs/spec/formats.md B.8 before
// handing out a tensor or a value, and every failure wraps ErrBadFile with
// the file, the key or tensor, and the problem. Reads are bounded by the
// real file size, so a hostile count never allocates more than the file
// could hold. Tensor data is a view into a read-only memory map.
package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"unicode/utf8"

	"loupe/engine/safetensors"
)

// File is an opened GGUF file. Its tensors' Data are views into the memory
// map: valid until Close, and writing to them faults.
type File struct {
	Path       string
	Version    int // 2 or 3
	Alignment  int
	DataOffset int64 // file offset of tensor_data
	Keys       []string
	KV         map[string]Value
	Tensors    []Tensor

	byName map[string]int
	data   []byte
	mapped bool
}

// Tensor is one tensor: Dims in GGUF order (Dims[0] fastest), so a
// Hugging Face weight [out, in] has Dims [in, out].
type Tensor struct {
	Name   string
	Type   Type
	Dims   []uint64
	Offset uint64 // relative to tensor_data
	Bytes  uint64
	Data   []byte
}

// Rows and Cols view a tensor as a row-major matrix: Cols = Dims[0], Rows =
// the product of the other dimensions.
func (t *Tensor) Cols() int { return int(t.Dims[0]) }

func (t *Tensor) Rows() int {
	n := 1
	for _, d := range t.Dims[1:] {
		n *= int(d)
	}
	return n
}

// Elements is the product of Dims.
func (t *Tensor) Elements() int { return t.Cols() * t.Rows() }

// Open maps path read-only and checks it (docs/spec/formats.md B.8).
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	if !st.Mode().IsRegular() {
		return nil, &FileError{File: path, Msg: "not a regular file"}
	}
	if st.Size() < headerBytes {
		return nil, &FileError{File: path, Msg: fmt.Sprintf("%d bytes, too short for a GGUF header (%d)", st.Size(), headerBytes)}
	}
	b, err := safetensors.MapFile(fh, st.Size())
	if err != nil {
		return nil, &FileError{File: path, Msg: "map: " + err.Error()}
	}
	f, err := parse(path, b)
	if err != nil {
		safetensors.UnmapFile(b)
		return nil, err
	}
	f.mapped = true
	return f, nil
}

// Parse checks an in-memory file; name is used in errors.
func Parse(name string, b []byte) (*File, error) { return parse(name, b) }

// Close releases the memory map; the tensors' Data must not be used after.
func (f *File) Close() error {
	if !f.mapped || f.data == nil {
		return nil
	}
	b := f.data
	f.data, f.mapped = nil, false
	return safetensors.UnmapFile(b)
}

// FileBytes is the size of the file.
func (f *File) FileBytes() int64 { return int64(len(f.data)) }

// Tensor finds a tensor by name.
func (f *File) Tensor(name string) (*Tensor, bool) {
	i, ok := f.byName[name]
	if !ok {
		return nil, false
	}
	return &f.Tensors[i], true
}

// Value is one metadata value as stored: scalars keep their encoded bytes,
// numeric arrays a view of their elements, string arrays their strings.
type Value struct {
	Type ValueType
	Elem ValueType // element type of an array
	raw  []byte    // scalar bytes, or numeric array elements
	str  string
	strs []string
	n    int // array length
}

// Len is the number of elements of an array (0 for a scalar).
func (v Value) Len() int { return v.n }

func (f *File) keyErr(key, format string, args ...any) error {
	return &FileError{File: f.Path, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Has reports whether the metadata holds key.
func (f *File) Has(key string) bool { _, ok := f.KV[key]; return ok }

// String returns a string value, checked to be UTF-8; ok is false when the
// key is absent, an error when it has another type.
func (f *File) String(key string) (s string, ok bool, err error) {
	v, ok := f.KV[key]
	if !ok {
		return "", false, nil
	}
	if v.Type != TypeString {
		return "", true, f.keyErr(key, "type %s, want string", v.Type)
	}
	if !utf8.ValidString(v.str) {
		return "", true, f.keyErr(key, "string is not valid UTF-8")
	}
	return v.str, true, nil
}

// Int returns an integer value of any integer type, checked to lie in
// [lo, hi] (docs/spec/formats.md B.8 step 9: refuse rather than reinterpret).
func (f *File) Int(key string, lo, hi int64) (n int64, ok bool, err error) {
	v, ok := f.KV[key]
	if !ok {
		return 0, false, nil
	}
	if !v.Type.isInt() {
		return 0, true, f.keyErr(key, "type %s, want an integer", v.Type)
	}
	n, fits := intAt(v.Type, v.raw)
	if !fits || n < lo || n > hi {
		return 0, true, f.keyErr(key, "value %s is outside [%d, %d]", formatInt(v.Type, v.raw), lo, hi)
	}
	return n, true, nil
}

// intAt decodes the integer of type t at b; fits is false for a uint64
// above the int64 range.
func intAt(t ValueType, b []byte) (n int64, fits bool) {
	switch t {
	case TypeUint8:
		return int64(b[0]), true
	case TypeInt8:
		return int64(int8(b[0])), true
	case TypeUint16:
		return int64(binary.LittleEndian.Uint16(b)), true
	case TypeInt16:
		return int64(int16(binary.LittleEndian.Uint16(b))), true
	case TypeUint32:
		return int64(binary.LittleEndian.Uint32(b)), true
	case TypeInt32:
		return int64(int32(binary.LittleEndian.Uint32(b))), true
	case TypeUint64:
		u := binary.LittleEndian.Uint64(b)
		return int64(u), u <= math.MaxInt64
	case TypeInt64:
		return int64(binary.LittleEndian.Uint64(b)), true
	}
	return 0, false
}

func formatInt(t ValueType, b []byte) string {
	if t == TypeUint64 {
		return fmt.Sprint(binary.LittleEndian.Uint64(b))
	}
	n, _ := intAt(t, b)
	return fmt.Sprint(n)
}

// Float returns a float32 or float64 value (finite).
func (f *File) Float(key string) (x float64, ok bool, err error) {
	v, ok := f.KV[key]
	if !ok {
		return 0, false, nil
	}
	switch v.Type {
	case TypeFloat32:
		x = float64(math.Float32frombits(binary.LittleEndian.Uint32(v.raw)))
	case TypeFloat64:
		x = math.Float64frombits(binary.LittleEndian.Uint64(v.raw))
	default:
		return 0, true, f.keyErr(key, "type %s, want float32", v.Type)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, true, f.keyErr(key, "value %v is not finite", x)
	}
	return x, true, nil
}

// Bool returns a bool value.
func (f *File) Bool(key string) (b, ok bool, err error) {
	v, ok := f.KV[key]
	if !ok {
		return false, false, nil
	}
	if v.Type != TypeBool {
		return false, true, f.keyErr(key, "type %s, want bool", v.Type)
	}
	return v.raw[0] == 1, true, nil
}

// Strings returns a string array.
func (f *File) Strings(key string) (s []string, ok bool, err error) {
	v, ok := f.KV[key]
	if !ok {
		return nil, false, nil
	}
	if v.Type != TypeArray || v.Elem != TypeString {
		return nil, true, f.keyErr(key, "type %s, want an array of strings", v.describe())
	}
	return v.strs, true, nil
}

// Float32s returns an array of float32 (exactly that element type: the
// lesson of llama.cpp PR #26690).
func (f *File) Float32s(key string) (x []float32, ok bool, err error) {
	v, ok := f.KV[key]
	if !ok {
		return nil, false, nil
	}
	if v.Type != TypeArray || v.Elem != TypeFloat32 {
		return nil, true, f.keyErr(key, "type %s, want an array of float32", v.describe())
	}
	x = make([]float32, v.n)
	for i := range x {
		x[i] = math.Float32frombits(binary.LittleEndian.Uint32(v.raw[4*i:]))
	}
	return x, true, nil
}

// Ints returns an array of any integer element type, each checked to lie
// in [lo, hi].
func (f *File) Ints(key string, lo, hi int64) (x []int64, ok bool, err error) {
	v, ok := f.KV[key]
	if !ok {
		return nil, false, nil
	}
	if v.Type != TypeArray || !v.Elem.isInt() {
		return nil, true, f.keyErr(key, "type %s, want an array of integers", v.describe())
	}
	x = make([]int64, v.n)
	sz := int(v.Elem.size())
	for i := range x {
		n, fits := intAt(v.Elem, v.raw[i*sz:])
		if !fits || n < lo || n > hi {
			return nil, true, f.keyErr(key, "element %d is %s, outside [%d, %d]", i, formatInt(v.Elem, v.raw[i*sz:]), lo, hi)
		}
		x[i] = n
	}
	return x, true, nil
}

func (v Value) describe() string {
	if v.Type == TypeArray {
		return "array of " + v.Elem.String()
	}
	return v.Type.String()
}
