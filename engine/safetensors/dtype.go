// Package safetensors reads and writes Hugging Face safetensors files
// (docs/spec/formats.md part A): a u64 header length N, N bytes of JSON describing
// every tensor, then one byte buffer holding all tensor data.
//
// Files are untrusted input: Open checks every rule of docs/spec/formats.md A.4 before
// handing out a tensor, and every failure wraps ErrBadFile with the file, the
// tensor and the problem. Tensor data is a view into a read-only memory map.
package safetensors

// DType is a tensor element type as spelled in the header ("BF16", "F32", …).
type DType string

// dtypeBits is docs/spec/formats.md A.2: bits per element of every dtype the reference
// knows. Sizes are in bits because of the sub-byte F4/F6 types.
var dtypeBits = map[DType]uint64{
	"BOOL": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
	"U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
	"F8_E4M3FNUZ": 8, "F8_E5M2FNUZ": 8,
	"I16": 16, "U16": 16, "F16": 16, "BF16": 16,
	"I32": 32, "U32": 32, "F32": 32,
	"F64": 64, "I64": 64, "U64": 64, "C64": 64,
}

// Bits reports the size of one element in bits; ok is false for a dtype the
// format does not define.
func (d DType) Bits() (bits int, ok bool) {
	b, ok := dtypeBits[d]
	return int(b), ok
}
