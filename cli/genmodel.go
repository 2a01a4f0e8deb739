package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"loupe/engine/convert"
	"loupe/engine/genmodel"
	"loupe/format"
)

func init() {
	register(Command{
		Name:    "gen-model",
		Summary: "write a random-weight model folder or GGUF file: Qwen2, Llama, Qwen3, Qwen3.5 and MoE (OLMoE, Qwen3-MoE, Qwen3.5-MoE) shapes",
		Usage: `usage: loupe gen-model --out DIR [--shape SHAPE] [--seed N] [--dtype bf16|f32]
       loupe gen-model --format gguf --out FILE.gguf|DIR [--quant Q] [--shape SHAPE] [--seed N]

Writes a model with random weights in the shape of a real one (or a tiny
one for tests): config, tokenizer and weights in a folder of safetensors,
or one GGUF file.
Speed does not depend on the values, so it benchmarks a model's shape
without downloading it; the same seed writes the same bytes.`,
		Run: runGenModel,
	})
}

func runGenModel(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("gen-model", flag.ContinueOnError)
	shapes := strings.Join(genmodel.Shapes(), ", ")
	shape := fs.String("shape", "tiny", "model shape: "+shapes)
	seed := fs.Uint64("seed", 1, "random seed; the same seed writes the same bytes")
	out := fs.String("out", "", "output folder (created if missing; refused if it already holds a model)")
	dtype := fs.String("dtype", "bf16", "weight dtype: bf16 or f32")
	kind := fs.String("format", "safetensors", "safetensors (a model folder) or gguf (one .gguf file)")
	quant := fs.String("quant", "q8_0", "GGUF weights: "+strings.Join(convert.GGUFQuants, ", ")+" (q4_k_m, q5_k_m: llama.cpp's Q4_K or Q5_K with Q6_K mixes)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return flagExit(err, "gen-model", stderr)
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "gen-model: unexpected argument %q (loupe gen-model --help)\n", fs.Arg(0))
		return 2
	case *out == "":
		fmt.Fprintln(stderr, "gen-model: --out is required: the folder (or .gguf file) to write (loupe gen-model --help)")
		return 2
	}
	if _, ok := genmodel.Lookup(*shape); !ok {
		fmt.Fprintf(stderr, "gen-model: unknown shape %q (want one of %s)\n", *shape, shapes)
		return 2
	}
	// A flag of the other format would be ignored without a word.
	if *kind == "gguf" && isSet(fs, "dtype") {
		fmt.Fprintln(stderr, "gen-model: --dtype is for safetensors; a GGUF file's weights are set by --quant (bf16, f32, q8_0, q4_k_m, q5_k_m)")
		return 2
	}
	if *kind != "gguf" && isSet(fs, "quant") {
		fmt.Fprintln(stderr, "gen-model: --quant is for --format gguf; safetensors weights are set by --dtype (bf16 or f32)")
		return 2
	}
	if *kind == "gguf" {
		return genGGUF(*out, *shape, *seed, *quant, stdout, stderr)
	}
	if *kind != "safetensors" {
		fmt.Fprintf(stderr, "gen-model: unknown format %q (want safetensors or gguf)\n", *kind)
		return 2
	}
	if *dtype != "bf16" && *dtype != "f32" {
		fmt.Fprintf(stderr, "gen-model: unknown dtype %q (want bf16 or f32)\n", *dtype)
		return 2
	}
	start := time.Now()
	if err := genmodel.Write(*out, *shape, *seed, *dtype); err != nil {
		fmt.Fprintf(stderr, "gen-model: %v\n", err)
		return 1
	}
	st, err := os.Stat(filepath.Join(*out, "model.safetensors"))
	if err != nil {
		fmt.Fprintf(stderr, "gen-model: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %s, seed %d, %s weights, %s in %s\n",
		*out, *shape, *seed, *dtype, format.Bytes(float64(st.Size())), format.Duration(time.Since(start).Seconds()))
	return 0
}

// genGGUF writes one .gguf file: out itself when it ends in .gguf, else
// out/model-QUANT.gguf (out created if missing).
func genGGUF(out, shape string, seed uint64, quant string, stdout, stderr io.Writer) int {
	if !slices.Contains(convert.GGUFQuants, quant) {
		fmt.Fprintf(stderr, "gen-model: unknown --quant %q (want one of %s)\n", quant, strings.Join(convert.GGUFQuants, ", "))
		return 2
	}
	path := out
	if !strings.EqualFold(filepath.Ext(out), ".gguf") {
		if err := os.MkdirAll(out, 0o755); err != nil {
			fmt.Fprintf(stderr, "gen-model: %v\n", err)
			return 1
		}
		path = filepath.Join(out, "model-"+strings.ToUpper(quant)+".gguf")
	}
	start := time.Now()
	if err := genmodel.WriteGGUFModel(path, shape, seed, quant); err != nil {
		fmt.Fprintf(stderr, "gen-model: %v\n", err)
		return 1
	}
	st, err := os.Stat(path)
	if err != nil {
		fmt.Fprintf(stderr, "gen-model: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s: %s, seed %d, GGUF %s, %s in %s\n",
		path, shape, seed, quant, format.Bytes(float64(st.Size())), format.Duration(time.Since(start).Seconds()))
	return 0
}
