package safetensors

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"loupe/kernels"
)

// Tensor is one tensor of a file. Data is a view into the read-only memory
// map: writing to it faults.
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	Data  []byte
	File  string // shard file path, for error messages
}

// NumElements is the product of Shape (1 for a scalar).
func (t Tensor) NumElements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// littleEndian: zero-copy views reinterpret the file's little-endian bytes,
// which is only right on a little-endian machine.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// BF16 returns the elements of a BF16 tensor: a zero-copy view when the data
// is 2-byte aligned, a copy otherwise (docs/spec/formats.md A.4 step 8).
func (t Tensor) BF16() ([]kernels.BF16, error) { return view16[kernels.BF16](t, "BF16") }

// F16 returns the elements of an F16 tensor as BF16 returns a BF16
// tensor's.
func (t Tensor) F16() ([]kernels.F16, error) { return view16[kernels.F16](t, "F16") }

// view16 views t's data as 2-byte elements of dtype: in place when aligned
// on a little-endian machine, else copied.
func view16[E ~uint16](t Tensor, dtype DType) ([]E, error) {
	if t.DType != dtype {
		return nil, t.errorf("dtype %s, want %s", t.DType, dtype)
	}
	n, err := t.checkedLen(2)
	if err != nil || n == 0 {
		return []E{}, err
	}
	if littleEndian && uintptr(unsafe.Pointer(&t.Data[0]))%2 == 0 {
		return unsafe.Slice((*E)(unsafe.Pointer(&t.Data[0])), n), nil
	}
	out := make([]E, n)
	for i := range out {
		out[i] = E(binary.LittleEndian.Uint16(t.Data[2*i:]))
	}
	return out, nil
}

// F32 returns the elements as float32: a zero-copy view of an aligned F32
// tensor, else a copy; BF16 and F16 are widened exactly.
func (t Tensor) F32() ([]float32, error) {
	switch t.DType {
	case "F32":
		n, err := t.checkedLen(4)
		if err != nil || n == 0 {
			return []float32{}, err
		}
		if littleEndian && uintptr(unsafe.Pointer(&t.Data[0]))%4 == 0 {
			return unsafe.Slice((*float32)(unsafe.Pointer(&t.Data[0])), n), nil
		}
		return widen(t.Data, n, 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }), nil
	case "BF16":
		n, err := t.checkedLen(2)
		if err != nil {
			return nil, err
		}
		return widen(t.Data, n, 2, func(b []byte) float32 { return kernels.BF16(binary.LittleEndian.Uint16(b)).Float32() }), nil
	case "F16":
		n, err := t.checkedLen(2)
		if err != nil {
			return nil, err
		}
		return widen(t.Data, n, 2, func(b []byte) float32 { return kernels.F16ToF32(binary.LittleEndian.Uint16(b)) }), nil
	}
	return nil, t.errorf("dtype %s cannot be read as float32 (want F32, BF16 or F16)", t.DType)
}

func widen(data []byte, n, size int, conv func([]byte) float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = conv(data[i*size:])
	}
	return out
}

// checkedLen guards against a hand-built Tensor whose Data and Shape disagree.
func (t Tensor) checkedLen(size int) (int, error) {
	n := t.NumElements()
	if n < 0 || len(t.Data) != n*size {
		return 0, t.errorf("%d data bytes for shape %v of %d-byte elements", len(t.Data), t.Shape, size)
	}
	return n, nil
}

func (t Tensor) errorf(format string, args ...any) error {
	return &FileError{File: t.File, Tensor: t.Name, Msg: fmt.Sprintf(format, args...)}
}
