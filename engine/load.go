package engine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"loupe/engine/gguf"
	"loupe/engine/safetensors"
	"loupe/engine/tokenizer"
	"loupe/kernels"
)

// Load opens a model of a registered architecture (arch.go): path is a model folder (config.json,
// tokenizer.json, model.safetensors or a sharded index), or a .safetensors
// or index file whose folder holds config.json and tokenizer.json.
//
// Every tensor's presence, dtype and shape is checked here, so a forward
// pass cannot fail on a malformed file later. Matrices are used in place
// from the memory map (bf16, f16, f32 or quantised blocks; f16 is widened
// to f32 once where the CPU has no f16 kernel: kernels.F16Native); norms
// and biases are widened to f32.
func Load(path string, opt LoadOptions) (_ *Model, err error) {
	defer recoverError(&err)
	m, err := load(path, opt)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return m, nil
}

func load(path string, opt LoadOptions) (*Model, error) {
	if g, ok := ggufPath(path); ok {
		return loadGGUF(g, opt)
	}
	dir, err := modelDir(path)
	if err != nil {
		return nil, err
	}
	cfg, err := readConfig(dir)
	if err != nil {
		return nil, err
	}
	eos, err := readEOS(dir, cfg)
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	if tok.VocabSize() > cfg.VocabSize {
		return nil, fmt.Errorf("%w: tokenizer.json has %d tokens, more than vocab_size %d", ErrBadFile, tok.VocabSize(), cfg.VocabSize)
	}
	set, err := safetensors.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	w, err := loadWeights(set, cfg, opt.Progress)
	if err != nil {
		set.Close()
		return nil, err
	}
	m := newModel(cfg, w, opt.Threads)
	m.eos, m.tok, m.done = eos, tok, set.Close
	m.info = modelInfo(cfg, w, path, dir, set.FileBytes())
	return m, nil
}

// ggufPath reports whether path is a GGUF model: a .gguf file, a file
// that starts with GGUF's magic whatever its name (Ollama keeps its models
// as blobs/sha256-…), or a folder without config.json holding exactly one
// .gguf file.
func ggufPath(path string) (string, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	if !st.IsDir() {
		return path, strings.EqualFold(filepath.Ext(path), ".gguf") || startsWithGGUFMagic(path)
	}
	if _, err := os.Stat(filepath.Join(path, "config.json")); err == nil {
		return "", false
	}
	m, _ := filepath.Glob(filepath.Join(path, "*.gguf"))
	if len(m) != 1 {
		return "", false
	}
	return m[0], true
}

// startsWithGGUFMagic reports whether the file's first four bytes are
// "GGUF" (docs/spec/formats.md B.1).
func startsWithGGUFMagic(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var magic [4]byte
	_, err = io.ReadFull(f, magic[:])
	return err == nil && string(magic[:]) == gguf.Magic
}

// modelDir returns the folder holding config.json and tokenizer.json.
func modelDir(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return path, nil
	}
	if !strings.HasSuffix(path, ".safetensors") && !strings.HasSuffix(path, ".json") {
		return "", fmt.Errorf("%w: want a model folder (config.json, tokenizer.json, *.safetensors), a .safetensors file or its index.json, or a GGUF file", ErrBadFile)
	}
	return filepath.Dir(path), nil
}

func readConfig(dir string) (Config, error) {
	p := filepath.Join(dir, "config.json")
	data, err := os.ReadFile(p)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	cfg, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", p, err)
	}
	return cfg, nil
}

// tensorSet is where the loader finds tensors by their Hugging Face name:
// a safetensors.Set, or a GGUF file seen through its name mapping
// (gguf_load.go), whose tensors carry HF shapes ([out, in]).
type tensorSet interface {
	Tensor(name string) (safetensors.Tensor, bool)
	Names() []string
	FileBytes() int64
}

// loader checks and views the tensors of one set.
type loader struct {
	set      tensorSet
	progress func(float64, string)
	total    int64 // bytes of all tensors we use
	done     int64
	err      error    // the first problem; later calls do nothing
	prefix   string   // "model." or, in a vision-language checkpoint, "model.language_model."
	notUsed  []string // parts of the checkpoint the forward pass skips, for the Model panel
	gguf     bool     // a GGUF file: zero-centred norms are stored as their scales 1 + w
}

// decoderPrefix is where the text decoder's tensors live: under
// "model.language_model." in vision-language checkpoints (Qwen3.5), else
// under "model.".
func decoderPrefix(set tensorSet) string {
	if _, ok := set.Tensor("model.language_model.embed_tokens.weight"); ok {
		return "model.language_model."
	}
	return "model."
}

// checkLayers refuses a config whose layers the weights do not hold,
// before the memory check sizes anything from the config: a config.json
// claiming 100,000 layers beside a 20 MB file is a mismatch, not a model
// too large for the machine.
func checkLayers(set tensorSet, cfg Config) error {
	prefix := decoderPrefix(set) + "layers."
	held := 0
	for _, name := range set.Names() {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, ".")
		if l, err := strconv.Atoi(num); err == nil && l >= held {
			held = l + 1
		}
	}
	if held < cfg.NumHiddenLayers {
		where := "config.json"
		if _, ok := set.(*ggufSet); ok {
			where = "the model's config"
		}
		return fmt.Errorf("%w: %s does not match the weights: it says %d layers (num_hidden_layers), the weights hold %d",
			ErrBadFile, where, cfg.NumHiddenLayers, held)
	}
	return nil
}

// loadWeights views every tensor of cfg: the embedding, the decoder
// layers (named by the architecture, see arch.go), the final norm and the
// output head, touching each page once so that the first prompt's timing
// is the forward pass, not the disk.
func loadWeights(set tensorSet, cfg Config, progress func(float64, string)) (weights, error) {
	if err := checkLayers(set, cfg); err != nil {
		return weights{}, err
	}
	if err := checkMemory(set, cfg); err != nil {
		return weights{}, err
	}
	ld := &loader{set: set, progress: progress, total: max(1, set.FileBytes()), prefix: decoderPrefix(set)}
	_, ld.gguf = set.(*ggufSet)
	h, V := cfg.HiddenSize, cfg.VocabSize
	arch := architectures[cfg.Architecture]
	var w weights
	w.embed = ld.matrix(ld.prefix+"embed_tokens.weight", V, h)
	w.layers = arch.loadLayers(ld, cfg)
	if f, ok := arch.(finalNormLoader); ok {
		w.outNorm = f.loadFinalNorm(ld, cfg)
	} else {
		w.outNorm = ld.vector(ld.prefix+"norm.weight", h)
	}
	w.notUsed = ld.notUsed
	w.output = w.embed
	if !cfg.TieWordEmbeddings {
		w.output = ld.matrix("lm_head.weight", V, h)
	}
	if ld.err != nil {
		return weights{}, ld.err
	}
	if progress != nil {
		progress(1, "ready")
	}
	return w, nil
}

// tensor finds name and checks its dtype and shape [dims...].
func (ld *loader) tensor(name string, dims ...int) (safetensors.Tensor, bool) {
	if ld.err != nil {
		return safetensors.Tensor{}, false
	}
	t, ok := ld.set.Tensor(name)
	if !ok {
		ld.err = fmt.Errorf("%w: tensor %q is missing", ErrBadFile, name)
		return t, false
	}
	if u, ok := ld.set.(interface{ markUsed(string) }); ok {
		u.markUsed(name) // GGUF files refuse tensors no architecture reads
	}
	if _, q := quantOf(string(t.DType)); t.DType != "BF16" && t.DType != "F32" && t.DType != "F16" && !q {
		ld.err = fmt.Errorf("%w: %s: tensor %q has dtype %s (want BF16, F16 or F32)", ErrUnsupported, t.File, name, t.DType)
		return t, false
	}
	if !equalShape(t.Shape, dims) {
		ld.err = fmt.Errorf("%w: %s: tensor %q has shape %v, the model's config implies %v", ErrBadFile, t.File, name, t.Shape, dims)
		return t, false
	}
	ld.touch(t)
	return t, true
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// matrix views a [rows, cols] weight: bf16, f16 and quantised blocks in
// place, f32 in place when aligned (f16 widened to f32 without
// kernels.F16Native).
func (ld *loader) matrix(name string, rows, cols int) mat {
	t, ok := ld.tensor(name, rows, cols)
	if !ok {
		return mat{}
	}
	return ld.view(t, name, rows, cols)
}

// stacked views a 3-D tensor [E, rows, cols] (an MoE layer's experts, one
// after the other) as E matrices [rows, cols] over its bytes.
func (ld *loader) stacked(name string, E, rows, cols int) []mat {
	t, ok := ld.tensor(name, E, rows, cols)
	if !ok {
		return nil
	}
	all := ld.view(t, name, E*rows, cols) // the same bytes as a [E·rows, cols] matrix
	if ld.err != nil {
		return nil
	}
	out := make([]mat, E)
	for e := range out {
		out[e] = all.rowRange(e*rows, (e+1)*rows)
	}
	return out
}

// view makes a mat of t's data, checked against rows × cols.
func (ld *loader) view(t safetensors.Tensor, name string, rows, cols int) mat {
	w := mat{rows: rows, cols: cols}
	var err error
	if qt, ok := quantOf(string(t.DType)); ok {
		if cols%qt.BlockLen() != 0 || int64(len(t.Data)) != int64(rows)*int64(qt.RowBytes(cols)) {
			ld.err = fmt.Errorf("%w: %s: tensor %q: %d bytes for %d × %d %s weights", ErrBadFile, t.File, name, len(t.Data), rows, cols, t.DType)
			return mat{}
		}
		w.q, w.qt = t.Data, qt
	} else if t.DType == "BF16" {
		w.bf, err = t.BF16()
	} else if t.DType == "F16" && kernels.F16Native() {
		w.h, err = t.F16()
	} else {
		w.f, err = t.F32()
	}
	if err != nil {
		ld.err = fmt.Errorf("%w: %w", ErrBadFile, err)
	}
	return w
}

// fail keeps err as the loader's first problem.
func (ld *loader) fail(err error) {
	if ld.err == nil {
		ld.err = err
	}
}

// array reads a small tensor of shape dims (a conv kernel) as f32.
func (ld *loader) array(name string, dims ...int) []float32 {
	t, ok := ld.tensor(name, dims...)
	if !ok {
		return nil
	}
	v, err := t.F32()
	if err != nil {
		ld.err = fmt.Errorf("%w: %w", ErrBadFile, err)
		return nil
	}
	return append([]float32(nil), v...) // a copy: F32 may view the map
}

// quantOf maps a GGUF block type's name to its kernels format.
func quantOf(dtype string) (kernels.Quant, bool) {
	for _, q := range kernels.Quants() {
		if q.String() == dtype {
			return q, true
		}
	}
	return 0, false
}

// vector reads a [n] norm weight or bias as f32.
func (ld *loader) vector(name string, n int) []float32 {
	t, ok := ld.tensor(name, n)
	if !ok {
		return nil
	}
	if _, q := quantOf(string(t.DType)); q {
		ld.err = fmt.Errorf("%w: %s: tensor %q is %s (norms and biases must be F32, F16 or BF16)", ErrUnsupported, t.File, name, t.DType)
		return nil
	}
	v, err := t.F32()
	if err != nil {
		ld.err = fmt.Errorf("%w: %w", ErrBadFile, err)
		return nil
	}
	if t.DType == "F32" { // a view of the map: copy, the vector is small
		v = append([]float32(nil), v...)
	}
	return v
}

// pageSink keeps the page-touching loop from being optimised away.
var pageSink byte

// touch reads one byte of every 4 KiB page of t, so the disk read happens
// during load (with progress) instead of inside the first forward pass.
func (ld *loader) touch(t safetensors.Tensor) {
	var s byte
	for i := 0; i < len(t.Data); i += 4096 {
		s += t.Data[i]
	}
	pageSink += s
	ld.done += int64(len(t.Data))
	if ld.progress != nil {
		ld.progress(min(1, float64(ld.done)/float64(ld.total)), t.Name)
	}
}

// recoverError turns a panic (a bug: the loader validates everything a
// forward pass relies on) into an error, so that none reaches the user.
func recoverError(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("engine: internal error: %v", r)
	}
}
