package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxHeaderSize caps the JSON header (the reference's MAX_HEADER_SIZE): a
// hostile N must not make us read or allocate more.
const MaxHeaderSize = 100_000_000

const (
	maxRank = 8       // our models need ≤ 2; the cap keeps a hostile shape small
	maxDim  = 1 << 40 // larger dimensions cannot describe bytes of a real file
)

// entry is one tensor as the header declares it; begin and end are relative
// to the start of the byte buffer.
type entry struct {
	name       string
	dtype      DType
	shape      []int
	begin, end uint64
}

// parseFile checks a whole file image (docs/spec/formats.md A.4 steps 1–6) and returns
// its tensors, with Data slicing buf, and its __metadata__.
func parseFile(file string, buf []byte) (map[string]Tensor, map[string]string, error) {
	if len(buf) < 8 {
		return nil, nil, badFile(file, "file is %d bytes, shorter than the 8-byte header length", len(buf))
	}
	n := binary.LittleEndian.Uint64(buf)
	if n > MaxHeaderSize {
		return nil, nil, badFile(file, "header length %d exceeds the %d-byte cap", n, MaxHeaderSize)
	}
	if n > uint64(len(buf)-8) {
		return nil, nil, badFile(file, "header length %d runs past the end of the %d-byte file", n, len(buf))
	}
	entries, meta, err := decodeHeader(file, buf[8:8+n])
	if err != nil {
		return nil, nil, err
	}
	data := buf[8+n:]
	if err := checkLayout(file, entries, uint64(len(data))); err != nil {
		return nil, nil, err
	}
	tensors := make(map[string]Tensor, len(entries))
	for _, e := range entries {
		tensors[e.name] = Tensor{Name: e.name, DType: e.dtype, Shape: e.shape,
			Data: data[e.begin:e.end:e.end], File: file}
	}
	return tensors, meta, nil
}

// checkLayout is the reference's validate(): sorted by offset, every tensor
// begins where the previous one ended (no overlap, no hole), its byte range
// holds exactly elements × dtype size, and the last one ends at the end of
// the file.
func checkLayout(file string, entries []entry, dataLen uint64) error {
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.begin != b.begin {
			return a.begin < b.begin
		}
		if a.end != b.end {
			return a.end < b.end
		}
		return a.name < b.name
	})
	var start uint64
	prev := ""
	for _, e := range entries {
		if e.end < e.begin {
			return badTensor(file, e.name, "data_offsets [%d, %d] end before begin", e.begin, e.end)
		}
		if e.begin < start {
			return badTensor(file, e.name, "data_offsets [%d, %d] overlap tensor %q, which ends at %d", e.begin, e.end, prev, start)
		}
		if e.begin > start {
			return badTensor(file, e.name, "data_offsets [%d, %d] leave a hole: the previous tensor ends at %d", e.begin, e.end, start)
		}
		if e.end > dataLen {
			return badTensor(file, e.name, "data_offsets [%d, %d] run past the end of the %d-byte data buffer (file truncated?)", e.begin, e.end, dataLen)
		}
		size, err := byteSize(e.dtype, e.shape)
		if err != "" {
			return badTensor(file, e.name, "%s", err)
		}
		if e.end-e.begin != size {
			return badTensor(file, e.name, "data_offsets [%d, %d] hold %d bytes, but %s %v needs %d", e.begin, e.end, e.end-e.begin, e.dtype, e.shape, size)
		}
		start, prev = e.end, e.name
	}
	if start != dataLen {
		return badFile(file, "%d bytes after the last tensor (tensors cover %d of %d data bytes)", dataLen-start, start, dataLen)
	}
	return nil
}

// byteSize is elements × bits / 8 with every product overflow-checked; the
// returned string is the problem, "" when there is none.
func byteSize(dt DType, shape []int) (uint64, string) {
	bitSize, ok := dtypeBits[dt]
	if !ok {
		return 0, "unknown dtype " + strconv.Quote(string(dt))
	}
	elems := uint64(1)
	for _, d := range shape {
		hi, lo := bits.Mul64(elems, uint64(d))
		if hi != 0 {
			return 0, "element count of shape overflows 64 bits"
		}
		elems = lo
	}
	hi, nbits := bits.Mul64(elems, bitSize)
	if hi != 0 {
		return 0, "byte size of shape overflows 64 bits"
	}
	if nbits%8 != 0 {
		return 0, "sub-byte tensor does not end on a byte boundary"
	}
	return nbits / 8, ""
}

// headerDecoder walks the header JSON token by token: encoding/json's
// Unmarshal would silently keep the last of two duplicated keys and read
// numbers as float64.
type headerDecoder struct {
	file string
	dec  *json.Decoder
}

func decodeHeader(file string, header []byte) ([]entry, map[string]string, error) {
	if !utf8.Valid(header) {
		return nil, nil, badFile(file, "header is not valid UTF-8")
	}
	if len(header) == 0 || header[0] != '{' {
		return nil, nil, badFile(file, "header does not start with '{'")
	}
	h := headerDecoder{file: file, dec: json.NewDecoder(bytes.NewReader(header))}
	h.dec.UseNumber()
	return h.object()
}

func (h *headerDecoder) object() ([]entry, map[string]string, error) {
	if err := h.delim('{', ""); err != nil {
		return nil, nil, err
	}
	var entries []entry
	meta := map[string]string{}
	seen := map[string]bool{}
	for h.dec.More() {
		name, err := h.str("", "tensor name")
		if err != nil {
			return nil, nil, err
		}
		if seen[name] {
			return nil, nil, badTensor(h.file, name, "appears twice in the header")
		}
		seen[name] = true
		if name == "__metadata__" {
			if meta, err = h.metadata(); err != nil {
				return nil, nil, err
			}
			continue
		}
		e, err := h.entry(name)
		if err != nil {
			return nil, nil, err
		}
		entries = append(entries, e)
	}
	if err := h.delim('}', ""); err != nil {
		return nil, nil, err
	}
	if _, err := h.dec.Token(); err != io.EOF {
		return nil, nil, badFile(h.file, "header has data after its closing '}'")
	}
	return entries, meta, nil
}

// metadata reads __metadata__: an object of string values only.
func (h *headerDecoder) metadata() (map[string]string, error) {
	if err := h.delim('{', "__metadata__"); err != nil {
		return nil, err
	}
	meta := map[string]string{}
	for h.dec.More() {
		k, err := h.str("__metadata__", "metadata key")
		if err != nil {
			return nil, err
		}
		if _, dup := meta[k]; dup {
			return nil, badFile(h.file, "__metadata__ key %q appears twice", k)
		}
		v, err := h.str("__metadata__", "metadata value of "+strconv.Quote(k))
		if err != nil {
			return nil, err
		}
		meta[k] = v
	}
	return meta, h.delim('}', "__metadata__")
}

// entry reads {"dtype": …, "shape": […], "data_offsets": [b, e]}: exactly
// these three fields, each once.
func (h *headerDecoder) entry(name string) (entry, error) {
	e := entry{name: name}
	if err := h.delim('{', name); err != nil {
		return e, err
	}
	seen := map[string]bool{}
	for h.dec.More() {
		field, err := h.str(name, "field name")
		if err != nil {
			return e, err
		}
		if seen[field] {
			return e, badTensor(h.file, name, "field %q appears twice", field)
		}
		seen[field] = true
		if err := h.field(&e, field); err != nil {
			return e, err
		}
	}
	for _, f := range []string{"dtype", "shape", "data_offsets"} {
		if !seen[f] {
			return e, badTensor(h.file, name, "missing field %q", f)
		}
	}
	return e, h.delim('}', name)
}

func (h *headerDecoder) field(e *entry, field string) error {
	switch field {
	case "dtype":
		s, err := h.str(e.name, "dtype")
		if err != nil {
			return err
		}
		if _, ok := dtypeBits[DType(s)]; !ok {
			return badTensor(h.file, e.name, "unknown dtype %q", s)
		}
		e.dtype = DType(s)
	case "shape":
		dims, err := h.uints(e.name, "shape", maxRank)
		if err != nil {
			return err
		}
		e.shape = make([]int, len(dims))
		for i, d := range dims {
			if d > maxDim || d > math.MaxInt {
				return badTensor(h.file, e.name, "shape dimension %d is too large", d)
			}
			e.shape[i] = int(d)
		}
	case "data_offsets":
		off, err := h.uints(e.name, "data_offsets", 2)
		if err != nil {
			return err
		}
		if len(off) != 2 {
			return badTensor(h.file, e.name, "data_offsets has %d numbers, want 2", len(off))
		}
		e.begin, e.end = off[0], off[1]
	default:
		return badTensor(h.file, e.name, "unknown field %q", field)
	}
	return nil
}

// uints reads an array of at most max non-negative integers that fit in u64
// (no sign, fraction or exponent).
func (h *headerDecoder) uints(tensor, what string, max int) ([]uint64, error) {
	if err := h.delim('[', tensor); err != nil {
		return nil, err
	}
	var out []uint64
	for h.dec.More() {
		tok, err := h.dec.Token()
		if err != nil {
			return nil, h.syntax(tensor, err)
		}
		num, ok := tok.(json.Number)
		if !ok {
			return nil, badTensor(h.file, tensor, "%s holds %v, want integers", what, tok)
		}
		v, err := strconv.ParseUint(num.String(), 10, 64)
		if err != nil {
			return nil, badTensor(h.file, tensor, "%s holds %s, want a non-negative integer below 2^64", what, num)
		}
		if len(out) == max {
			return nil, badTensor(h.file, tensor, "%s has more than %d numbers", what, max)
		}
		out = append(out, v)
	}
	return out, h.delim(']', tensor)
}

// str reads a string token without NUL bytes.
func (h *headerDecoder) str(tensor, what string) (string, error) {
	tok, err := h.dec.Token()
	if err != nil {
		return "", h.syntax(tensor, err)
	}
	s, ok := tok.(string)
	if !ok {
		return "", h.problem(tensor, "%s is %v, want a string", what, tok)
	}
	if strings.IndexByte(s, 0) >= 0 {
		return "", h.problem(tensor, "%s contains a NUL byte", what)
	}
	return s, nil
}

func (h *headerDecoder) delim(want json.Delim, tensor string) error {
	tok, err := h.dec.Token()
	if err != nil {
		return h.syntax(tensor, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return h.problem(tensor, "header JSON has %v where %q was expected", tok, string(want))
	}
	return nil
}

func (h *headerDecoder) syntax(tensor string, err error) error {
	if err == io.EOF {
		return h.problem(tensor, "header JSON ends early")
	}
	return h.problem(tensor, "header JSON: %v", err)
}

func (h *headerDecoder) problem(tensor, format string, args ...any) error {
	if tensor == "" {
		return badFile(h.file, format, args...)
	}
	return badTensor(h.file, tensor, format, args...)
}
