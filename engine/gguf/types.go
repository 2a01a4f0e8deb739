package gguf

import "fmt"

// Type is a tensor's ggml_type id (docs/spec/formats.md B.5).
type Type uint32

// The tensor types Loupe reads. Every other id is refused by name.
const (
	F32  Type = 0
	F16  Type = 1
	Q4_0 Type = 2
	Q8_0 Type = 8
	Q4_K Type = 12
	Q5_K Type = 13
	Q6_K Type = 14
	BF16 Type = 30
)

// typeNames names every ggml_type id we know of, supported or not, so that
// an error can say "Q5_K" instead of "type 13". Ids 4, 5, 31-33 and 36-38
// were removed from ggml; newer trees add ids beyond 39.
var typeNames = map[Type]string{
	0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 6: "Q5_0", 7: "Q5_1", 8: "Q8_0", 9: "Q8_1",
	10: "Q2_K", 11: "Q3_K", 12: "Q4_K", 13: "Q5_K", 14: "Q6_K", 15: "Q8_K",
	16: "IQ2_XXS", 17: "IQ2_XS", 18: "IQ3_XXS", 19: "IQ1_S", 20: "IQ4_NL", 21: "IQ3_S",
	22: "IQ2_S", 23: "IQ4_XS", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 28: "F64",
	29: "IQ1_M", 30: "BF16", 34: "TQ1_0", 35: "TQ2_0", 39: "MXFP4", 40: "NVFP4", 41: "Q1_0",
}

func (t Type) String() string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("%d (unknown)", uint32(t))
}

// layout is a supported type's block: elements per block, bytes per block.
type layout struct{ elems, bytes uint64 }

// layouts are the block layouts of the supported types (ggml-common.h):
// Q8_0 = f16 d + 32 int8; Q4_0 = f16 d + 16 bytes of nibbles; Q4_K = f16 d,
// f16 dmin, 12 bytes of 6-bit scales and mins, 128 bytes of nibbles; Q5_K =
// Q4_K's header, 32 bytes of fifth bits, 128 bytes of nibbles; Q6_K =
// 128 bytes low nibbles, 64 bytes high 2-bit pairs, 16 int8 scales, f16 d.
var layouts = map[Type]layout{
	F32: {1, 4}, F16: {1, 2}, BF16: {1, 2},
	Q8_0: {32, 34}, Q4_0: {32, 18}, Q4_K: {256, 144}, Q5_K: {256, 176}, Q6_K: {256, 210},
}

// Supported reports whether Loupe can read tensors of type t.
func (t Type) Supported() bool { _, ok := layouts[t]; return ok }

// BlockElems is the number of elements in one block (1 for F32/F16/BF16).
func (t Type) BlockElems() int { return int(layouts[t].elems) }

// BlockBytes is the size in bytes of one block.
func (t Type) BlockBytes() int { return int(layouts[t].bytes) }

// Quantized reports whether t stores blocks with scales (Q*).
func (t Type) Quantized() bool { return t.Supported() && layouts[t].elems > 1 }

// Magic is the first four bytes of every GGUF file (docs/spec/formats.md B.1).
const Magic = "GGUF"

// SupportedTypes lists the names of the types Loupe reads, for messages.
const SupportedTypes = "F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q5_K, Q6_K"

// ValueType is a metadata value's type id (docs/spec/formats.md B.2).
type ValueType uint32

const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

var valueTypeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32",
	"float32", "bool", "string", "array", "uint64", "int64", "float64"}

func (v ValueType) String() string {
	if int(v) < len(valueTypeNames) {
		return valueTypeNames[v]
	}
	return fmt.Sprintf("value type %d", uint32(v))
}

// size is the encoded size of a fixed-size value type; 0 for string/array.
func (v ValueType) size() uint64 {
	switch v {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

func (v ValueType) isInt() bool {
	switch v {
	case TypeUint8, TypeInt8, TypeUint16, TypeInt16, TypeUint32, TypeInt32, TypeUint64, TypeInt64:
		return true
	}
	return false
}

func (v ValueType) signed() bool {
	return v == TypeInt8 || v == TypeInt16 || v == TypeInt32 || v == TypeInt64
}
