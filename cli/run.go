package cli

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"loupe/assets"
	"loupe/engine"
	"loupe/engine/chat"
	"loupe/format"
	"loupe/kernels"
	"loupe/trace"
	"loupe/trace/stats"
)

func init() {
	register(Command{
		Name:    "run",
		Summary: "generate text from a prompt and print the timing (or --json)",
		Usage: `usage: loupe run [--model M] --prompt TEXT [flags]

Generates a continuation of the prompt on the CPU, streaming the text as it
is written, then prints the timing: prefill (reading the prompt) and decode
(writing, one token after the other) in tokens per second. --json prints
one JSON object instead: the tokens, each step's top-10, the timing, the
kernel level and the arithmetic. Greedy unless a sampling flag is given.
--ablate, --disable-experts and --top-k-experts run the counterfactuals of
the window's Compare tab. Without --model it runs the demo model that is
built into loupe.`,
		Run: runRun,
	})
}

// demoModelDir returns the embedded demo model's folder ("" would mean
// this build has none); a variable so that tests can replace it.
var demoModelDir = assets.DemoModelDir

// runFlags are the command line of `loupe run`.
type runFlags struct {
	model, prompt, level string
	ablate               string // L:H[,L:H...], 0-based
	disableExperts       string // L:E[,L:E...], 0-based
	topKExperts          int    // experts per token instead of the model's k; 0: the model's
	threads              int
	asJSON               bool
	settings             trace.Settings
	seedSet, sampling    bool // --seed given; a sampling flag given
	chat                 chatFlags
	systemSet            bool           // --system given (an empty system message is one)
	branch               *trace.Branch  // --branch-at and --branch-token
	kernels              kernels.Choice // --kernels read (setKernels): the run's
	batchPrompts         string         // --batch-prompts FILE: one prompt a line, written together (batch.go)
}

// parseRunFlags reads run's command line; --help is written on help.
func parseRunFlags(args []string, help io.Writer) (*runFlags, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f := &runFlags{}
	s := &f.settings
	fs.StringVar(&f.model, "model", "", "model folder, .safetensors file, its index.json or a GGUF file (default: the demo model)")
	fs.StringVar(&f.prompt, "prompt", "", "text to continue (with --chat: the user's turn)")
	fs.IntVar(&s.MaxTokens, "max-tokens", 100, "tokens to generate at most")
	fs.Float64Var(&s.Temperature, "temperature", 0, "0: greedy; > 0: sample (1 when only top-k/top-p/min-p are given)")
	fs.IntVar(&s.TopK, "top-k", 0, "keep the k most probable tokens (0: off)")
	fs.Float64Var(&s.TopP, "top-p", 1, "keep the smallest set with this probability mass (1: off)")
	fs.Float64Var(&s.MinP, "min-p", 0, "drop tokens below min-p × the top probability (0: off)")
	fs.Float64Var(&s.PresencePenalty, "presence-penalty", 0, "subtract from the logits of generated tokens (0: off)")
	fs.Float64Var(&s.RepeatPenalty, "repetition-penalty", 1, "divide positive logits of seen tokens (1: off)")
	fs.Uint64Var(&s.Seed, "seed", 0, "random seed (default: drawn and printed)")
	fs.IntVar(&f.threads, "threads", 0, threadsHelp)
	fs.StringVar(&f.level, "kernels", "", kernelsHelp)
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object instead of streaming text")
	fs.StringVar(&f.ablate, "ablate", "", "heads to switch off, L:H[,L:H...] (0-based layer:head): their outputs are zeroed before o_proj")
	fs.StringVar(&f.disableExperts, "disable-experts", "", "MoE models: experts to switch off, L:E[,L:E...] (0-based layer:expert): masked out of the router's top-k, the next best runs instead, weights renormalised as the model does")
	fs.IntVar(&f.topKExperts, "top-k-experts", 0, "MoE models: run this many experts per token instead of the model's k (1…k; 0: the model's)")
	branchAt := fs.Int("branch-at", -1, "continue the greedy run from written token N (0-based) with --branch-token forced there")
	branchToken := fs.Int("branch-token", -1, "the token id forced at --branch-at")
	fs.StringVar(&f.batchPrompts, "batch-prompts", "", "write the prompts of FILE (one a line) together: one forward pass a step for all of them")
	f.chat.register(fs)
	if err := parseFlags(fs, args, help); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (quote the prompt and pass it with --prompt)", fs.Arg(0))
	}
	if err := checkThreads(f.threads); err != nil {
		return nil, err
	}
	f.systemSet = isSet(fs, "system")
	if err := f.chat.check(f.systemSet); err != nil {
		return nil, err
	}
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "seed":
			f.seedSet = true
		case "temperature", "top-k", "top-p", "min-p":
			f.sampling = true
		}
	})
	if f.sampling && !isSet(fs, "temperature") {
		s.Temperature = 1
	}
	if err := f.parseBranch(fs, *branchAt, *branchToken); err != nil {
		return nil, err
	}
	return f, nil
}

// parseBranch reads --branch-at and --branch-token: both or neither, on
// a greedy run (a sampled one would draw other tokens after the branch
// than a run of the prefix does), the step within --max-tokens. The
// token id is checked against the vocabulary once the model is loaded.
func (f *runFlags) parseBranch(fs *flag.FlagSet, at, token int) error {
	atSet, tokenSet := isSet(fs, "branch-at"), isSet(fs, "branch-token")
	switch {
	case !atSet && !tokenSet:
		return nil
	case atSet != tokenSet:
		return errors.New("--branch-at and --branch-token go together: the step and the token forced there")
	case f.settings.Temperature > 0:
		return errors.New("--branch-at continues a greedy run: drop --temperature, --top-k, --top-p and --min-p")
	case at < 0 || at >= f.settings.MaxTokens:
		return fmt.Errorf("--branch-at %d: want a written token 0…%d (--max-tokens %d)", at, f.settings.MaxTokens-1, f.settings.MaxTokens)
	case token < 0:
		return fmt.Errorf("--branch-token %d: want a token id ≥ 0", token)
	}
	f.branch = &trace.Branch{At: at, Token: token}
	return nil
}

// checkThreads refuses a negative --threads (0 means one per physical core).
func checkThreads(n int) error {
	if n < 0 {
		return fmt.Errorf("--threads %d: want 0 (one worker per physical core) or more", n)
	}
	return nil
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// randomSeed draws a seed from the OS so that every sampled run can be
// replayed with --seed (docs/spec/sampling.md §5).
func randomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b[:])
}

func runRun(args []string, stdout, stderr io.Writer) int {
	f, err := parseRunFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "loupe run: %v\n", err)
		return 2
	}
	if f.batchPrompts != "" {
		return runBatchPrompts(f, stdout, stderr)
	}
	if f.kernels, err = setKernels(f.level); err != nil {
		fmt.Fprintf(stderr, "loupe run: %v\n", err)
		return 1
	}
	run, text, err := runGenerate(f, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "loupe run: %v\n", err)
		return 1
	}
	if f.asJSON {
		return printJSON(stdout, stderr, runJSON(run, text))
	}
	printSummary(stdout, run)
	return 0
}

// runGenerate loads the model and generates, streaming the text to stdout
// unless --json, and returns the run with the continuation as streamed
// (the bytes of every token assembled, as a reference prints them).
// Ctrl-C stops the generation; what was made is kept.
func runGenerate(f *runFlags, stdout io.Writer) (*trace.Run, string, error) {
	var text strings.Builder
	run, err := generateText(f, func(s string) {
		text.WriteString(s)
		if !f.asJSON {
			fmt.Fprint(stdout, s)
		}
	})
	return run, text.String(), err
}

// generateText loads the model and generates, passing each piece of the
// continuation to out as it is decoded.
func generateText(f *runFlags, out func(string)) (*trace.Run, error) {
	path, err := modelPath(f.model)
	if err != nil {
		return nil, err
	}
	if _, err := trace.ParseHeads(f.ablate, 0); err != nil {
		return nil, fmt.Errorf("--ablate: %v", err)
	}
	if _, err := trace.ParseExperts(f.disableExperts, 0); err != nil {
		return nil, fmt.Errorf("--disable-experts: %v", err)
	}
	if f.topKExperts < 0 {
		return nil, fmt.Errorf("--top-k-experts %d: want 1 or more (0: the model's k)", f.topKExperts)
	}
	if f.prompt == "" && f.chat.chat {
		return nil, errors.New("--prompt is empty: with --chat it is the user's message")
	}
	m, err := engine.Load(path, engine.LoadOptions{Threads: f.threads})
	if err != nil {
		return nil, err
	}
	defer m.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return generateOn(ctx, m, f, out)
}

// modelPath is --model, or the demo model's folder when it is empty.
func modelPath(model string) (string, error) {
	if model != "" {
		return model, nil
	}
	dir, err := demoModelDir()
	if err != nil {
		return "", err
	}
	if dir == "" {
		return "", errors.New("no --model given and this build has no demo model; pass --model PATH (a model folder)")
	}
	return dir, nil
}

// generateOn generates on a loaded model as `loupe run` does: the same
// settings, no attention captured, the top-10 of every step.
func generateOn(ctx context.Context, m *engine.Model, f *runFlags, out func(string)) (*trace.Run, error) {
	if !f.seedSet && f.settings.Temperature > 0 {
		f.settings.Seed = randomSeed()
	}
	ablate, err := trace.ParseHeads(f.ablate, 0)
	if err != nil {
		return nil, fmt.Errorf("--ablate: %v", err)
	}
	if f.prompt == "" && f.chat.chat {
		return nil, errors.New("--prompt is empty: with --chat it is the user's message")
	}
	if _, bos := m.Tokenizer().BOS(); f.prompt == "" && !bos {
		return nil, errors.New("--prompt is empty and this model starts no text with a BOS token; give the text to continue")
	}
	info := m.Info()
	if err := trace.CheckHeads(ablate, info.Layers, info.Heads, 0); err != nil {
		return nil, fmt.Errorf("--ablate: %v", err)
	}
	opt := engine.DefaultGenerateOptions()
	opt.Settings, opt.Kernels = f.settings, f.kernels
	opt.Ablate = ablate
	if opt.DisableExperts, err = trace.ParseExperts(f.disableExperts, 0); err != nil {
		return nil, fmt.Errorf("--disable-experts: %v", err)
	}
	opt.TopKExperts = f.topKExperts
	if f.branch != nil {
		if v := info.Vocab; f.branch.Token >= v {
			return nil, fmt.Errorf("--branch-token %d: the model's vocabulary has ids 0…%d", f.branch.Token, v-1)
		}
		opt.Branch = f.branch
	}
	opt.Attn = engine.AttnCapture{} // nothing shows attention here: skip the copies
	onEvent := func(e engine.Event) {
		if e.Token != nil {
			out(e.Token.Text)
		}
	}
	if f.chat.chat {
		if _, err := m.ChatTemplate(); errors.Is(err, chat.ErrNoTemplate) {
			return nil, fmt.Errorf("--chat: %s has no chat template (tokenizer_config.json chat_template, chat_template.jinja or GGUF tokenizer.chat_template); it is a base model, drop --chat", m.Info().Path)
		}
		think, _ := parseThink(f.chat.think) // checked with the flags
		return m.GenerateChat(ctx, f.chat.messages(f.prompt, f.systemSet), think, opt, onEvent)
	}
	return m.Generate(ctx, f.prompt, opt, onEvent)
}

// runResult is the --json form of `loupe run`.
type runResult struct {
	Model      string     `json:"model"`
	PromptIDs  []int      `json:"prompt_ids"`
	Text       string     `json:"text"` // the continuation
	Tokens     []runToken `json:"tokens"`
	Prefill    runPhase   `json:"prefill"`
	Decode     runPhase   `json:"decode"`
	Kernels    string     `json:"kernels"`
	Arithmetic string     `json:"arithmetic"` // "fp32"; "bf16", "int8", "int8+prefill", "bf16+int8", "bf16:experts" (auto: those parts only): activations rounded
	// QuantArithmetic: a quantised file's formats and how decode multiplies
	// each, e.g. "Q4_K, Q6_K: int8 activations per 32 (AVX512-VNNI VPDPBUSD)".
	QuantArithmetic string       `json:"quant_arithmetic,omitempty"`
	Threads         int          `json:"threads"`
	Seed            uint64       `json:"seed"`
	Greedy          bool         `json:"greedy"`
	Ablate          []trace.Head `json:"ablate"` // heads switched off, 0-based; [] when none
	// --disable-experts and --top-k-experts (MoE models), 0-based.
	DisableExperts []trace.Expert `json:"disable_experts,omitempty"`
	TopKExperts    int            `json:"top_k_experts,omitempty"`
	StopReason     string         `json:"stop_reason"`
	// Perplexity: exp of the mean negative log of the model's own
	// probability of each written token (stats.Perplexity).
	Perplexity float64 `json:"perplexity"`
	// --branch-at/--branch-token: the written token forced and its step.
	Branch *trace.Branch `json:"branch,omitempty"`
	// --chat only: the rendered template (prompt_ids are its ids), the
	// turns, enable_thinking, and decode split into thinking and answer.
	Chat     bool            `json:"chat"`
	Rendered string          `json:"rendered_prompt,omitempty"`
	Messages []trace.Message `json:"messages,omitempty"`
	Think    string          `json:"think,omitempty"`
	Thinking *runPhase       `json:"thinking,omitempty"`
	Answer   *runPhase       `json:"answer,omitempty"`
}

type runToken struct {
	ID       int               `json:"id"`
	Text     string            `json:"text"`
	P        float64           `json:"p"`       // the sampler's (greedy: the model's)
	ModelP   float64           `json:"model_p"` // the model's own, at T = 1 before the sampler's changes
	Top10    []trace.Candidate `json:"top10"`
	Special  bool              `json:"special"`  // an added control token (<|im_end|>, <think>, …)
	Thinking bool              `json:"thinking"` // inside <think>…</think>, markers included
	// Experts: an MoE model's router choice in each MoE layer, in the
	// forward pass whose logits chose this token (0-based layers and ids).
	Experts []trace.Routing `json:"experts,omitempty"`
}

type runPhase struct {
	Tokens  int     `json:"tokens"`
	Seconds float64 `json:"seconds"`
}

func runJSON(run *trace.Run, text string) runResult {
	r := runResult{
		Model:           run.Model.Path,
		PromptIDs:       []int{},
		Tokens:          []runToken{},
		Prefill:         runPhase{run.Timing.PrefillTokens, run.Timing.PrefillSeconds},
		Decode:          runPhase{run.Timing.DecodeTokens, run.Timing.DecodeSeconds},
		Kernels:         run.Settings.Kernels,
		Arithmetic:      run.Settings.Arithmetic,
		QuantArithmetic: run.Settings.QuantArithmetic,
		Threads:         run.Settings.Threads,
		Seed:            run.Settings.Seed,
		Greedy:          run.Settings.Temperature == 0,
		Ablate:          append([]trace.Head{}, run.Settings.Ablate...),
		StopReason:      run.StopReason,
		Branch:          run.Settings.Branch,
		DisableExperts:  run.Settings.DisableExperts,
		TopKExperts:     run.Settings.TopKExperts,
	}
	for _, t := range run.Tokens {
		if !t.Generated {
			r.PromptIDs = append(r.PromptIDs, t.ID)
		}
	}
	for _, s := range run.Steps {
		r.Tokens = append(r.Tokens, runToken{ID: s.Chosen.ID, Text: s.Chosen.Text, P: s.Chosen.P, ModelP: s.ModelP, Top10: s.Top,
			Special: s.Special, Thinking: s.Thinking, Experts: s.Experts})
	}
	if run.Messages != nil {
		t := run.Timing
		r.Chat, r.Rendered, r.Messages, r.Think = true, run.Prompt, run.Messages, run.Think
		r.Thinking = &runPhase{t.ThinkingTokens, t.ThinkingSeconds}
		r.Answer = &runPhase{t.DecodeTokens - t.ThinkingTokens, t.DecodeSeconds - t.ThinkingSeconds}
	}
	r.Perplexity, _ = stats.Perplexity(run.Steps)
	r.Text = text
	return r
}

// printSummary ends the streamed text with the prefill/decode split.
func printSummary(w io.Writer, run *trace.Run) {
	t := run.Timing
	total := t.PrefillSeconds + t.DecodeSeconds
	share := func(s float64) string { return format.PercentWhole(stats.Ratio(s, total)) }
	fmt.Fprintf(w, "\n\n")
	fmt.Fprintf(w, "prefill  %5d tokens  %8.3f s  %8.1f tok/s  %5s\n", t.PrefillTokens, t.PrefillSeconds, stats.Rate(t.PrefillTokens, t.PrefillSeconds), share(t.PrefillSeconds))
	fmt.Fprintf(w, "decode   %5d tokens  %8.3f s  %8.1f tok/s  %5s\n", t.DecodeTokens, t.DecodeSeconds, stats.Rate(t.DecodeTokens, t.DecodeSeconds), share(t.DecodeSeconds))
	printThinkingSplit(w, t)
	if t.ReusedTokens > 0 {
		fmt.Fprintf(w, "(%d prompt tokens reused from the KV cache)\n", t.ReusedTokens)
	}
	fmt.Fprintf(w, "total                   %8.3f s   stop: %s\n", total, run.StopReason)
	mode := "greedy"
	if run.Settings.Temperature > 0 {
		mode = fmt.Sprintf("sampled, seed %d", run.Settings.Seed)
	}
	if b := run.Settings.Branch; b != nil {
		mode += fmt.Sprintf(", branched at written token %d with token %d", b.At, b.Token)
	}
	if len(run.Settings.Ablate) > 0 {
		mode += fmt.Sprintf(", heads switched off (layer:head from 0): %s", trace.FormatHeads(run.Settings.Ablate, 0))
	}
	if len(run.Settings.DisableExperts) > 0 {
		mode += fmt.Sprintf(", experts switched off (layer:expert from 0): %s", trace.FormatExperts(run.Settings.DisableExperts, 0))
	}
	if k := run.Settings.TopKExperts; k > 0 {
		mode += fmt.Sprintf(", %d experts per token", k)
	}
	fmt.Fprintf(w, "kernels %s (%s arithmetic), %d threads, %s\n", run.Settings.Kernels, run.Settings.Arithmetic, run.Settings.Threads, mode)
}
