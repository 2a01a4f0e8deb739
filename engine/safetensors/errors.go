package safetensors

import (
	"errors"
	"fmt"
)

// ErrBadFile is wrapped by every error about a malformed or hostile file.
var ErrBadFile = errors.New("bad safetensors file")

// FileError describes one problem in one file, and in one tensor when Tensor
// is set: `safetensors model.safetensors: tensor "x": data_offsets [10, 4] end before begin`.
type FileError struct {
	File   string
	Tensor string // "" when the problem is not about one tensor
	Msg    string
}

func (e *FileError) Error() string {
	if e.Tensor != "" {
		return fmt.Sprintf("safetensors %s: tensor %q: %s", e.File, e.Tensor, e.Msg)
	}
	return fmt.Sprintf("safetensors %s: %s", e.File, e.Msg)
}

// Unwrap makes errors.Is(err, ErrBadFile) true.
func (e *FileError) Unwrap() error { return ErrBadFile }

func badFile(file, format string, args ...any) error {
	return &FileError{File: file, Msg: fmt.Sprintf(format, args...)}
}

func badTensor(file, tensor, format string, args ...any) error {
	return &FileError{File: file, Tensor: tensor, Msg: fmt.Sprintf(format, args...)}
}
