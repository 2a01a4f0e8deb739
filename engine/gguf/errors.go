package gguf

import (
	"errors"
	"fmt"
)

// ErrBadFile is wrapped by every error about a malformed or hostile file.
var ErrBadFile = errors.New("bad GGUF file")

// FileError is one problem in one file, naming the metadata key or the
// tensor when the problem is about one:
// `gguf model.gguf: tensor "blk.0.attn_q.weight": type Q3_K is not supported`.
type FileError struct {
	File   string
	Key    string // metadata key, "" when not about one
	Tensor string // tensor name, "" when not about one
	Msg    string
}

func (e *FileError) Error() string {
	switch {
	case e.Tensor != "":
		return fmt.Sprintf("gguf %s: tensor %q: %s", e.File, e.Tensor, e.Msg)
	case e.Key != "":
		return fmt.Sprintf("gguf %s: key %q: %s", e.File, e.Key, e.Msg)
	}
	return fmt.Sprintf("gguf %s: %s", e.File, e.Msg)
}

// Unwrap makes errors.Is(err, ErrBadFile) true.
func (e *FileError) Unwrap() error { return ErrBadFile }
