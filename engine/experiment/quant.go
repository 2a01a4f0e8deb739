package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"loupe/engine"
	"loupe/engine/convert"
	"loupe/engine/fingerprint"
	"loupe/format"
	"loupe/i18n"
	"loupe/trace"
)

// ErrNoRoom: a quantised copy would not fit on the disk of the cache.
var ErrNoRoom = errors.New("not enough disk space")

// QuantTypes are the weight types of the quant sweep besides the original.
var QuantTypes = []string{"q8_0", "q4_k_m"}

// diskFree reports the bytes free to this user on the disk holding dir
// (-1: unknown). A variable so that tests can pretend the disk is full.
var diskFree = diskFreeBytes

// runQuant writes Q8_0 and Q4_K_M copies of m's safetensors folder into
// the cache (never beside the user's files), runs the same prompt on the
// original and on each copy, and says where the copies' text leaves the
// original's. A copy already in the cache (same folder, same files) is
// reused; copies written by a cancelled sweep are removed.
func runQuant(ctx context.Context, m *engine.Model, opt Options, r *Result) (err error) {
	src, orig, err := quantSource(m.Info())
	if err != nil {
		return err
	}
	types := append([]string{orig}, QuantTypes...)
	if opt.Values != nil {
		types = opt.Values
	}
	dir, err := copiesDir(opt.CacheDir, src)
	if err != nil {
		return err
	}
	var written []string // copies this sweep wrote or began
	defer func() {
		if ctx.Err() != nil { // cancelled: leave nothing half-useful behind
			for _, p := range written {
				os.Remove(p)
			}
			os.Remove(dir) // only when empty
			r.Removed = len(written)
		}
	}()
	gbs, err := bandwidth(opt, m.Threads())
	if err != nil {
		return err
	}
	r.BandwidthGBs = gbs
	steps := float64(2 * len(types))
	for i, typ := range types {
		var p Point
		if typ == orig {
			opt.Progress(float64(2*i+1)/steps, progress(opt.Lang, opt.Lang.T("experiment.point.original", i18n.Args{"Type": typ}), opt))
			if p, err = runPoint(ctx, m, opt, gbs); err != nil {
				return err
			}
		} else {
			if !slices.Contains(convert.GGUFQuants, typ) {
				return fmt.Errorf("experiment: weight type %q: want %s or %s", typ, orig, strings.Join(QuantTypes, ", "))
			}
			path := filepath.Join(dir, "model-"+strings.ToUpper(typ)+".gguf")
			opt.Progress(float64(2*i)/steps, opt.Lang.T("experiment.progress.copy", i18n.Args{"Type": typ, "Dir": dir}))
			fresh, err := writeCopy(ctx, src, path, typ, r, opt.Lang)
			if fresh || err != nil && ctx.Err() != nil { // written, or cut off while writing (its .part removed)
				written = append(written, path)
			}
			if err != nil {
				return err
			}
			opt.Progress(float64(2*i+1)/steps, progress(opt.Lang, typ, opt))
			if p, err = runCopy(ctx, path, m.Threads(), opt, gbs); err != nil {
				return err
			}
		}
		p.Value, p.Label = typ, typ
		r.Points = append(r.Points, p)
	}
	r.Notes = append(r.Notes, choiceNotes(r.Points, opt.Lang)...)
	return nil
}

// quantSource is the safetensors folder of m and its weights' type
// (bf16, f16 or f32): the quantiser starts from unquantised weights.
func quantSource(info trace.ModelInfo) (dir, dtype string, err error) {
	path := info.Path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		if strings.EqualFold(filepath.Ext(path), ".gguf") || !strings.HasSuffix(path, ".json") && !strings.HasSuffix(path, ".safetensors") {
			return "", "", fmt.Errorf("experiment: the quantisation sweep starts from a safetensors model folder (bf16, f16 or f32 weights); %s is a GGUF file", filepath.Base(path))
		}
		path = filepath.Dir(path)
	}
	dtype = strings.ToLower(info.DType)
	for _, part := range strings.Split(dtype, "+") {
		if part != "bf16" && part != "f16" && part != "f32" {
			return "", "", fmt.Errorf("experiment: the quantisation sweep starts from bf16, f16 or f32 weights; this model holds %s", info.DType)
		}
	}
	if strings.Contains(dtype, "bf16") {
		dtype = "bf16"
	}
	return path, dtype, nil
}

// copiesDir is the cache folder of src's copies: one per folder and
// version of its files (fingerprint.Of).
func copiesDir(base, src string) (string, error) {
	dir, err := copiesPath(base, src)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("experiment: %w", err)
	}
	return dir, nil
}

// copiesPath is the cache folder of src's copies: one per folder and
// version of its files (Fingerprint).
func copiesPath(base, src string) (string, error) {
	if base == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("experiment: no cache folder for the quantised copies: %w", err)
		}
		base = filepath.Join(c, "loupe", "quant")
	}
	fp, err := fingerprint.Of(src)
	if err != nil {
		return "", fmt.Errorf("experiment: %w", err)
	}
	dir := filepath.Join(base, strings.TrimPrefix(fp, "sha256:")[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("experiment: %w", err)
	}
	return dir, nil
}

// writeCopy writes the typ copy of src at path unless the cache has it,
// after checking the disk has room; fresh reports a file it created.
// The file appears under its name only when complete.
func writeCopy(ctx context.Context, src, path, typ string, r *Result, l i18n.Lang) (fresh bool, err error) {
	size, fallbacks, err := convert.GGUFPlan(src, typ)
	if err != nil {
		return false, err
	}
	if len(fallbacks) > 0 {
		r.Notes = append(r.Notes, fallbackNote(typ, fallbacks, l))
	}
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		r.Notes = append(r.Notes, l.T("experiment.note.reused", i18n.Args{"Type": typ, "Path": path, "Size": l.Numbers().Bytes(float64(st.Size()))}))
		return false, nil
	}
	dir := filepath.Dir(path)
	if free := diskFree(dir); free >= 0 && size+size/20+64<<20 > free {
		return false, fmt.Errorf("experiment: %w: the %s copy needs %s, the disk holding %s has %s free",
			ErrNoRoom, typ, format.Bytes(float64(size)), dir, format.Bytes(float64(free)))
	}
	tmp := path + ".part"
	os.Remove(tmp) // a previous sweep killed while writing
	if err := convert.WriteGGUFContext(ctx, src, tmp, typ); err != nil {
		os.Remove(tmp)
		return false, err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return false, fmt.Errorf("experiment: %w", err)
	}
	r.Notes = append(r.Notes, l.T("experiment.note.written", i18n.Args{"Type": typ, "Path": path, "Size": l.Numbers().Bytes(float64(size))}))
	return true, nil
}

// fallbackNote says which matrices the quantiser could not give Q4_K or
// Q6_K: their rows do not fill 256-weight blocks.
func fallbackNote(typ string, fs []convert.Fallback, l i18n.Lang) string {
	cols := map[int]bool{}
	for _, f := range fs {
		cols[f.Cols] = true
	}
	var cs []string
	for c := range cols {
		cs = append(cs, fmt.Sprint(c))
	}
	sort.Strings(cs)
	return l.T("experiment.note.fallback", i18n.Args{"Type": typ, "N": len(fs), "Cols": strings.Join(cs, ", ")})
}

// runCopy loads the copy at path and measures it as the original.
func runCopy(ctx context.Context, path string, threads int, opt Options, gbs float64) (Point, error) {
	cm, err := engine.Load(path, engine.LoadOptions{Threads: threads})
	if err != nil {
		return Point{}, err
	}
	defer cm.Close()
	return runPoint(ctx, cm, opt, gbs)
}

// choiceNotes say, for each copy, where its greedy text first leaves the
// original's (the first point) and how far the top-10 probabilities moved
// before that.
func choiceNotes(ps []Point, l i18n.Lang) []string {
	if len(ps) < 2 {
		return nil
	}
	base := ps[0]
	var notes []string
	for _, p := range ps[1:] {
		at := FirstDivergence(base.Ids, p.Ids)
		dp := MeanTopDeltaP(base, p, at)
		if at < 0 {
			notes = append(notes, l.T("experiment.note.same", i18n.Args{"Copy": p.Label, "N": len(p.Ids), "Base": base.Label, "Moved": l.Numbers().Fixed(100*dp, 2)}))
			continue
		}
		notes = append(notes, l.T("experiment.note.leaves", i18n.Args{"Copy": p.Label, "Base": base.Label, "At": at + 1, "N": len(p.Ids),
			"Moved": l.Numbers().Fixed(100*dp, 2)}))
	}
	return notes
}

// FirstDivergence is the first index where a and b differ, -1 when one
// is a prefix of the other.
func FirstDivergence(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// MeanTopDeltaP is the mean |Δp| over the first steps (all when upto < 0)
// of each of a's top candidates against the same token's p in b (0 when
// b's top list lacks it): what the copy changed in the model's choices
// while both still read the same text.
func MeanTopDeltaP(a, b Point, upto int) float64 {
	n := min(len(a.Steps), len(b.Steps))
	if upto >= 0 {
		n = min(n, upto+1)
	}
	var sum float64
	var count int
	for i := range n {
		pb := map[int]float64{}
		for _, c := range b.Steps[i].Top {
			pb[c.ID] = float64(c.P)
		}
		for _, c := range a.Steps[i].Top {
			sum += math.Abs(float64(c.P) - pb[c.ID])
			count++
		}
	}
	if count == 0 {
		return 0
	}
	return sum / float64(count)
}

// QuantCopies says what the quant sweep of m will write: the bytes of the
// copies not yet in the cache, and the cache folder (cacheDir "": Loupe's),
// which it makes. The plan and the confirmation before the sweep both
// say this size: one source for it.
func QuantCopies(m *engine.Model, cacheDir string) (bytes int64, dir string, err error) {
	if bytes, dir, err = QuantCopiesOf(m.Info(), cacheDir); err != nil {
		return 0, "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, "", fmt.Errorf("experiment: %w", err)
	}
	return bytes, dir, nil
}

// QuantCopiesOf is QuantCopies for the model info describes, without
// making the folder (a plan only reads the files' headers).
func QuantCopiesOf(info trace.ModelInfo, cacheDir string) (bytes int64, dir string, err error) {
	src, _, err := quantSource(info)
	if err != nil {
		return 0, "", err
	}
	if dir, err = copiesPath(cacheDir, src); err != nil {
		return 0, "", err
	}
	for _, typ := range QuantTypes {
		if st, err := os.Stat(filepath.Join(dir, "model-"+strings.ToUpper(typ)+".gguf")); err == nil && st.Size() > 0 {
			continue
		}
		size, _, err := convert.GGUFPlan(src, typ)
		if err != nil {
			return 0, "", err
		}
		bytes += size
	}
	return bytes, dir, nil
}
