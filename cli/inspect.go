package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"

	"loupe/engine"
	"loupe/format"
	"loupe/kernels"
	"loupe/trace"
)

func init() {
	register(Command{
		Name:    "inspect",
		Summary: "one position inside the model: embedding, attention, logit lens, MLP, KV cache (--json)",
		Usage: `usage: loupe inspect [--model M] --prompt TEXT [--pos N] [--layer L] [--kv-head G] --json

Runs the prompt and prints, as one JSON object, what the window's panels
show of one token position: its embedding row, the attention of every
layer and head, the logit lens, the MLP values of --layer and the KV cache
of --layer and --kv-head. Positions, layers and heads count from 0, as in
the tensor names: layer 19 of the article “The two times of an answer” is
--layer 18. --disable-experts and --top-k-experts apply loupe run's
counterfactual to every position up to --pos.`,
		Run: runInspect,
	})
}

// inspectFlags are the command line of `loupe inspect`. Layers and KV
// heads are indices from 0, as in the tensor names ("layer 19" of the
// article “The two times of an answer” is --layer 18).
type inspectFlags struct {
	model, prompt, level string
	kernels              kernels.Choice // --kernels read
	pos, layer, kvHead   int
	threads              int
	asJSON               bool
	disableExperts       []trace.Expert
	topKExperts          int
}

// parseInspectFlags reads inspect's command line; --help is written on help.
func parseInspectFlags(args []string, help io.Writer) (*inspectFlags, error) {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	f := &inspectFlags{}
	fs.StringVar(&f.model, "model", "", "model folder, .safetensors file, its index.json or a GGUF file (default: the demo model)")
	fs.StringVar(&f.prompt, "prompt", "", "the text whose tokens are inspected")
	fs.IntVar(&f.pos, "pos", -1, "token position to inspect, from 0 (default: the last token)")
	fs.IntVar(&f.layer, "layer", 0, "layer of the mlp and kv fields, from 0")
	fs.IntVar(&f.kvHead, "kv-head", 0, "KV head of the kv field, from 0")
	fs.IntVar(&f.threads, "threads", 0, threadsHelp)
	fs.StringVar(&f.level, "kernels", "", kernelsHelp)
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object")
	disable := fs.String("disable-experts", "", "MoE models: experts to switch off at every position, L:E[,L:E...] (0-based layer:expert), as for loupe run")
	fs.IntVar(&f.topKExperts, "top-k-experts", 0, "MoE models: run this many experts per token instead of the model's k (1…k; 0: the model's)")
	if err := parseFlags(fs, args, help); err != nil {
		return nil, err
	}
	var err error
	if f.disableExperts, err = trace.ParseExperts(*disable, 0); err != nil {
		return nil, fmt.Errorf("--disable-experts: %v", err)
	}
	if f.topKExperts < 0 {
		return nil, fmt.Errorf("--top-k-experts %d: want 1 or more (0: the model's k)", f.topKExperts)
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (quote the prompt and pass it with --prompt)", fs.Arg(0))
	}
	if err := checkThreads(f.threads); err != nil {
		return nil, err
	}
	if f.prompt == "" {
		return nil, errors.New("--prompt is empty; give the text whose tokens are inspected")
	}
	if isSetIn(fs, "pos") && f.pos < 0 {
		return nil, fmt.Errorf("--pos %d: positions count from 0", f.pos)
	}
	return f, nil
}

func isSetIn(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

func runInspect(args []string, stdout, stderr io.Writer) int {
	f, err := parseInspectFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		f.kernels, err = setKernels(f.level)
	}
	var res *inspectResult
	if err == nil {
		res, err = inspect(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "loupe inspect: %s\n", oneLine(err.Error()))
		return 1
	}
	if f.asJSON {
		return printJSON(stdout, stderr, res)
	}
	printInspect(stdout, res)
	return 0
}

// oneLine keeps an error message on one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// inspectResult is the --json form of `loupe inspect`. The field names are
// a contract: embedding, attention, logit_lens, mlp, kv.
type inspectResult struct {
	Model     string          `json:"model"`
	Pos       int             `json:"pos"`
	Token     trace.Candidate `json:"token"` // id and text (p unused: 0)
	PromptIDs []int           `json:"prompt_ids"`
	Embedding []float32       `json:"embedding"` // [hidden] the token's row of the embedding table
	Attention [][][]float32   `json:"attention"` // [L][H][pos+1] weights of query pos
	LogitLens [][]lensEntry   `json:"logit_lens"`
	MLP       inspectMLP      `json:"mlp"`
	KV        trace.KVRows    `json:"kv"` // layer, kv_head, keys [pos+1][d], values [pos+1][d]
	// Experts: an MoE model's router choice at pos in each MoE layer:
	// layer, ids (best first), weights (as applied), probs (all experts).
	Experts []trace.Routing `json:"experts,omitempty"`
	// DisableExperts and TopKExperts: the counterfactual it ran under
	// (--disable-experts, --top-k-experts), 0-based.
	DisableExperts []trace.Expert `json:"disable_experts,omitempty"`
	TopKExperts    int            `json:"top_k_experts,omitempty"`
}

// lensEntry is one candidate of the logit lens after one layer.
type lensEntry struct {
	ID   int     `json:"id"`
	Text string  `json:"text"`
	P    float64 `json:"p"`
}

// inspectMLP is silu(gate)·up of one layer at the position.
type inspectMLP struct {
	Layer  int       `json:"layer"`
	Values []float32 `json:"values"`
}

// inspect loads the model and recomputes the position with the engine
// call the window uses (Model.Inspect).
func inspect(f *inspectFlags) (*inspectResult, error) {
	path := f.model
	if path == "" {
		dir, err := demoModelDir()
		if err != nil {
			return nil, err
		}
		if dir == "" {
			return nil, errors.New("no --model given and this build has no demo model; pass --model PATH")
		}
		path = dir
	}
	m, err := engine.Load(path, engine.LoadOptions{Threads: f.threads})
	if err != nil {
		return nil, err
	}
	defer m.Close()
	ids := m.Encode(f.prompt)
	pos := f.pos
	if pos < 0 {
		pos = len(ids) - 1
	}
	if pos >= len(ids) {
		return nil, fmt.Errorf("--pos %d out of range: the prompt has %d tokens (positions 0…%d)", pos, len(ids), len(ids)-1)
	}
	c := m.Config()
	if f.layer < 0 || f.layer >= c.NumHiddenLayers {
		return nil, fmt.Errorf("--layer %d out of range: the model has %d layers (0…%d)", f.layer, c.NumHiddenLayers, c.NumHiddenLayers-1)
	}
	if f.kvHead < 0 || f.kvHead >= c.NumKeyValueHeads {
		return nil, fmt.Errorf("--kv-head %d out of range: the model has %d KV heads (0…%d)", f.kvHead, c.NumKeyValueHeads, c.NumKeyValueHeads-1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	in, err := m.Inspect(ctx, ids, pos, engine.InspectOptions{Layer: f.layer, KVHead: f.kvHead, LensTop: 5,
		DisableExperts: f.disableExperts, TopKExperts: f.topKExperts, Kernels: f.kernels})
	if err != nil {
		return nil, err
	}
	r, err := inspectJSON(m.Info().Path, ids, in, f.layer)
	if r != nil {
		r.DisableExperts, r.TopKExperts = f.disableExperts, f.topKExperts
	}
	return r, err
}

// inspectJSON maps an inspection to the command's JSON; NaN or ±Inf
// (which JSON cannot hold) is an error naming the field.
func inspectJSON(model string, ids []int, in *trace.Inspection, layer int) (*inspectResult, error) {
	r := &inspectResult{
		Model: model, Pos: in.Pos, PromptIDs: ids,
		Token:     trace.Candidate{ID: in.Token.ID, Text: in.Token.Text},
		Embedding: in.Embedding,
		Attention: in.Attention.Weights,
		LogitLens: make([][]lensEntry, len(in.Lens)),
		MLP:       inspectMLP{Layer: layer, Values: in.MLP[layer].Values},
		KV:        in.KV,
		Experts:   in.Experts,
	}
	for l, ll := range in.Lens {
		r.LogitLens[l] = []lensEntry{}
		for _, c := range ll.Top {
			r.LogitLens[l] = append(r.LogitLens[l], lensEntry{c.ID, c.Text, c.P})
		}
	}
	if _, err := json.Marshal(r); err != nil {
		return nil, fmt.Errorf("the model computed a value JSON cannot hold (NaN or infinity): %v", err)
	}
	return r, nil
}

// printInspect is the short human form.
func printInspect(w io.Writer, r *inspectResult) {
	fmt.Fprintf(w, "position %d: token %d %q\n", r.Pos, r.Token.ID, r.Token.Text)
	fmt.Fprintf(w, "embedding: %d numbers, norm %.3f, first %v\n", len(r.Embedding), norm(r.Embedding), head(r.Embedding, 6))
	fmt.Fprintln(w, "logit lens (top-1 after each layer, from 0):")
	for l, top := range r.LogitLens {
		if len(top) > 0 {
			fmt.Fprintf(w, "  layer %2d  %-16q %7s\n", l, top[0].Text, format.Percent(top[0].P))
		}
	}
	mlp := fmt.Sprintf("%d values", len(r.MLP.Values))
	if len(r.MLP.Values) == 0 && len(r.Experts) > 0 {
		mlp = "mixture-of-experts layer, no single MLP activation (its experts below)"
	}
	fmt.Fprintf(w, "mlp layer %d: %s; kv layer %d head %d: %d tokens × %d\n",
		r.MLP.Layer, mlp, r.KV.Layer, r.KV.KVHead, len(r.KV.Keys), len(head2(r.KV.Keys)))
	if r.KV.Note != "" {
		fmt.Fprintf(w, "  (%s)\n", r.KV.Note)
	}
	if len(r.DisableExperts) > 0 {
		fmt.Fprintf(w, "experts switched off (layer:expert from 0): %s\n", trace.FormatExperts(r.DisableExperts, 0))
	}
	if r.TopKExperts > 0 {
		fmt.Fprintf(w, "top-k experts: %d per token\n", r.TopKExperts)
	}
	for _, e := range r.Experts {
		fmt.Fprintf(w, "experts layer %2d: %v, weights %.3f\n", e.Layer, e.IDs, e.Weights)
	}
	fmt.Fprintln(w, "(--json prints everything)")
}

func norm(x []float32) float64 {
	s := 0.0
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}

func head(x []float32, n int) []float32 { return x[:min(n, len(x))] }

func head2(x [][]float32) []float32 {
	if len(x) == 0 {
		return nil
	}
	return x[0]
}
