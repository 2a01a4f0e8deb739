package safetensors

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode/utf8"
)

// Write creates a safetensors file holding tensors (Data set) and metadata.
// It refuses to replace an existing file. See WriteStream for the layout.
func Write(path string, tensors []Tensor, metadata map[string]string) error {
	for _, t := range tensors {
		size, msg := byteSize(t.DType, t.Shape)
		if msg == "" && uint64(len(t.Data)) != size {
			return fmt.Errorf("safetensors %s: tensor %q: %d data bytes, %s %v needs %d", path, t.Name, len(t.Data), t.DType, t.Shape, size)
		}
	}
	return WriteStream(path, tensors, metadata, func(t Tensor, w io.Writer) error {
		_, err := w.Write(t.Data)
		return err
	})
}

// WriteStream creates path (never replacing an existing file) and writes the
// header for tensors (Name, DType, Shape; Data unused), then calls fill once
// per tensor in file order to write exactly its bytes, so a 3 GB model never
// sits in memory. Like the official writer, the buffer holds tensors by
// descending element size, then by name: with the header padded with spaces
// to a multiple of 8, every tensor starts at a multiple of its element size
// and readers can view it without copying. On error the file is removed.
func WriteStream(path string, tensors []Tensor, metadata map[string]string, fill func(t Tensor, w io.Writer) error) (err error) {
	order, header, err := layout(tensors, metadata)
	if err != nil {
		return fmt.Errorf("safetensors %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("safetensors %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("safetensors %s: %w", path, cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := w.Write(header); err != nil {
		return fmt.Errorf("safetensors %s: %w", path, err)
	}
	for _, t := range order {
		want, _ := byteSize(t.DType, t.Shape)
		cw := &CountWriter{W: w}
		if err := fill(t, cw); err != nil {
			return fmt.Errorf("safetensors %s: tensor %q: %w", path, t.Name, err)
		}
		if cw.N != want {
			return fmt.Errorf("safetensors %s: tensor %q: wrote %d bytes, want %d", path, t.Name, cw.N, want)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("safetensors %s: %w", path, err)
	}
	if st, err := f.Stat(); err == nil && st.Size() >= dropCachedFrom {
		if err := dropCached(f); err != nil {
			return fmt.Errorf("safetensors %s: %w", path, err)
		}
	}
	return nil
}

// dropCachedFrom is the file size from which WriteStream writes the new
// file back and drops it from the page cache (see dropCached), so the
// first run maps it with 2 MiB pages. Smaller files (tests, the demo
// model) skip the fsync.
var dropCachedFrom int64 = 256 << 20

// layout checks the tensors, orders them in the buffer and returns the
// 8-byte length prefix plus the space-padded JSON header.
func layout(tensors []Tensor, metadata map[string]string) ([]Tensor, []byte, error) {
	order := append([]Tensor(nil), tensors...)
	seen := map[string]bool{}
	for _, t := range order {
		if err := checkWritable(t, seen); err != nil {
			return nil, nil, err
		}
	}
	sort.Slice(order, func(i, j int) bool {
		bi, bj := dtypeBits[order[i].DType], dtypeBits[order[j].DType]
		if bi != bj {
			return bi > bj
		}
		return order[i].Name < order[j].Name
	})
	offsets := map[string][2]uint64{}
	var at uint64
	for _, t := range order {
		size, _ := byteSize(t.DType, t.Shape)
		offsets[t.Name] = [2]uint64{at, at + size}
		at += size
	}
	js, err := headerJSON(tensors, offsets, metadata)
	if err != nil {
		return nil, nil, err
	}
	js = append(js, strings.Repeat(" ", (8-len(js)%8)%8)...)
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(js)))
	return order, append(out, js...), nil
}

func checkWritable(t Tensor, seen map[string]bool) error {
	switch {
	case t.Name == "" || t.Name == "__metadata__" || strings.IndexByte(t.Name, 0) >= 0 || !utf8.ValidString(t.Name):
		return fmt.Errorf("tensor name %q is not allowed", t.Name)
	case seen[t.Name]:
		return fmt.Errorf("tensor %q given twice", t.Name)
	case len(t.Shape) > maxRank:
		return fmt.Errorf("tensor %q: rank %d above %d", t.Name, len(t.Shape), maxRank)
	}
	seen[t.Name] = true
	for _, d := range t.Shape {
		if d < 0 || uint64(d) > maxDim {
			return fmt.Errorf("tensor %q: shape %v has a dimension out of range", t.Name, t.Shape)
		}
	}
	if _, msg := byteSize(t.DType, t.Shape); msg != "" {
		return fmt.Errorf("tensor %q: %s", t.Name, msg)
	}
	return nil
}

type headerEntry struct {
	DType       DType     `json:"dtype"`
	Shape       []int     `json:"shape"`
	DataOffsets [2]uint64 `json:"data_offsets"`
}

// headerJSON writes __metadata__ first, then the tensors by name.
func headerJSON(tensors []Tensor, offsets map[string][2]uint64, metadata map[string]string) ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	if len(metadata) > 0 {
		for k, v := range metadata {
			if strings.ContainsRune(k+v, 0) || !utf8.ValidString(k+v) {
				return nil, errors.New("metadata holds a NUL byte or invalid UTF-8")
			}
		}
		m, _ := json.Marshal(metadata) // string map: cannot fail; keys sorted
		b.WriteString(`"__metadata__":`)
		b.Write(m)
	}
	names := make([]Tensor, len(tensors))
	copy(names, tensors)
	sort.Slice(names, func(i, j int) bool { return names[i].Name < names[j].Name })
	for i, t := range names {
		if i > 0 || len(metadata) > 0 {
			b.WriteByte(',')
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		k, _ := json.Marshal(t.Name)
		e, _ := json.Marshal(headerEntry{t.DType, shape, offsets[t.Name]})
		b.Write(k)
		b.WriteByte(':')
		b.Write(e)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// CountWriter counts the bytes written through it (the GGUF writer uses
// it too, to check each tensor's size).
type CountWriter struct {
	W io.Writer
	N uint64
}

func (c *CountWriter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += uint64(n)
	return n, err
}
