package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"loupe/engine/safetensors"
)

// KV is one metadata pair to write. Value is one of string, bool, uint8,
// int8, uint16, int16, uint32, int32, uint64, int64, float32, float64,
// []string, []float32, []int32 or []uint32.
type KV struct {
	Key   string
	Value any
}

// WriteTensor is one tensor to write: Data holds its encoded blocks in the
// layout of Type, Dims in GGUF order (Dims[0] fastest). For large tensors
// Data may be nil and Fill writes the bytes instead (exactly ByteSize()).
type WriteTensor struct {
	Name string
	Type Type
	Dims []uint64
	Data []byte
	Fill func(w io.Writer) error
}

// ByteSize is the encoded size of the tensor.
func (t WriteTensor) ByteSize() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	lay := layouts[t.Type]
	return n / lay.elems * lay.bytes
}

// Write encodes a version 3 file with the default alignment of 32: the
// layout Open checks (tensors back to back, zero padding between them).
func Write(w io.Writer, kvs []KV, tensors []WriteTensor) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	e := &encoder{w: bw}
	e.raw([]byte(Magic))
	e.u32(3)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		e.value(kv.Key, kv.Value)
	}
	var off uint64
	for _, t := range tensors {
		if err := checkWriteTensor(t); err != nil {
			return err
		}
		e.str(t.Name)
		e.u32(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(off)
		off = alignUp(off+t.ByteSize(), defaultAlign)
	}
	e.pad()
	for _, t := range tensors {
		if t.Data != nil {
			e.raw(t.Data)
		} else if e.err == nil {
			cw := &safetensors.CountWriter{W: bw}
			if e.err = t.Fill(cw); e.err == nil && cw.N != t.ByteSize() {
				e.err = fmt.Errorf("gguf: write %s: Fill wrote %d bytes, want %d", t.Name, cw.N, t.ByteSize())
			}
			e.n += cw.N
		}
		e.pad()
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// WriteFile writes a new file at path (refusing to replace one) and drops
// it from the page cache so that the first run maps it with huge pages.
func WriteFile(path string, kvs []KV, tensors []WriteTensor) error {
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	err = Write(fh, kvs, tensors)
	if err == nil {
		err = safetensors.DropCached(fh)
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

func checkWriteTensor(t WriteTensor) error {
	if !t.Type.Supported() {
		return fmt.Errorf("gguf: write %s: type %s is not supported", t.Name, t.Type)
	}
	if len(t.Dims) < 1 || len(t.Dims) > maxDims {
		return fmt.Errorf("gguf: write %s: %d dimensions", t.Name, len(t.Dims))
	}
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	lay := layouts[t.Type]
	if t.Dims[0]%lay.elems != 0 || (t.Fill == nil || t.Data != nil) && uint64(len(t.Data)) != n/lay.elems*lay.bytes {
		return fmt.Errorf("gguf: write %s: %d bytes for %v of %s", t.Name, len(t.Data), t.Dims, t.Type)
	}
	return nil
}

type encoder struct {
	w   *bufio.Writer
	n   uint64
	err error
}

func (e *encoder) raw(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
		e.n += uint64(len(b))
	}
}

func (e *encoder) u32(v uint32) { e.raw(binary.LittleEndian.AppendUint32(nil, v)) }
func (e *encoder) u64(v uint64) { e.raw(binary.LittleEndian.AppendUint64(nil, v)) }

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.raw([]byte(s))
}

func (e *encoder) pad() {
	if r := alignUp(e.n, defaultAlign) - e.n; r > 0 {
		e.raw(make([]byte, r))
	}
}

func (e *encoder) value(key string, v any) {
	switch x := v.(type) {
	case string:
		e.u32(uint32(TypeString))
		e.str(x)
	case bool:
		e.u32(uint32(TypeBool))
		e.raw([]byte{b2u(x)})
	case uint8:
		e.u32(uint32(TypeUint8))
		e.raw([]byte{x})
	case int8:
		e.u32(uint32(TypeInt8))
		e.raw([]byte{byte(x)})
	case uint16:
		e.u32(uint32(TypeUint16))
		e.raw(binary.LittleEndian.AppendUint16(nil, x))
	case int16:
		e.u32(uint32(TypeInt16))
		e.raw(binary.LittleEndian.AppendUint16(nil, uint16(x)))
	case uint32:
		e.u32(uint32(TypeUint32))
		e.u32(x)
	case int32:
		e.u32(uint32(TypeInt32))
		e.u32(uint32(x))
	case uint64:
		e.u32(uint32(TypeUint64))
		e.u64(x)
	case int64:
		e.u32(uint32(TypeInt64))
		e.u64(uint64(x))
	case float32:
		e.u32(uint32(TypeFloat32))
		e.u32(math.Float32bits(x))
	case float64:
		e.u32(uint32(TypeFloat64))
		e.u64(math.Float64bits(x))
	case []string:
		e.arrayHeader(TypeString, len(x))
		for _, s := range x {
			e.str(s)
		}
	case []float32:
		e.arrayHeader(TypeFloat32, len(x))
		for _, f := range x {
			e.u32(math.Float32bits(f))
		}
	case []int32:
		e.arrayHeader(TypeInt32, len(x))
		for _, n := range x {
			e.u32(uint32(n))
		}
	case []uint32:
		e.arrayHeader(TypeUint32, len(x))
		for _, n := range x {
			e.u32(n)
		}
	default:
		if e.err == nil {
			e.err = fmt.Errorf("gguf: write key %q: unsupported value type %T", key, v)
		}
	}
}

func (e *encoder) arrayHeader(t ValueType, n int) {
	e.u32(uint32(TypeArray))
	e.u32(uint32(t))
	e.u64(uint64(n))
}

func b2u(b bool) byte {
	if b {
		return 1
	}
	return 0
}
