package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"loupe/assets"
	"loupe/engine"
	"loupe/i18n"
	"loupe/kernels"
	"loupe/lesson"
	"loupe/lesson/page"
	"loupe/trace"
)

func init() {
	register(Command{
		Name:    "lesson",
		Summary: "the article “The two times of an answer” told with this model's numbers (--json, --timing)",
		Usage:   lessonUsage,
		Run:     runLesson,
	})
}

// lessonFlags are the command line of `loupe lesson`.
type lessonFlags struct {
	model, prompt, level string
	lang                 string // --lang: "en", "fr", "" for the system's
	maxTokens, threads   int
	thinkTokens, count   int
	asJSON, timing       bool
	kernels              kernels.Choice // --kernels read: every run's
	html                 string         // --html FILE: the handout, as the window's File › Save lesson… writes it
}

// lessonUsage is the head of loupe lesson --help.
const lessonUsage = `usage: loupe lesson [--model M] [--prompt TEXT] [--json] [--timing] [--html FILE]

Tells the chapters of the article “The two times of an answer” (tokens …
summary) with the numbers of this model on this prompt, as the window's
lesson does; the prompt is the article's sentence unless --prompt gives
another. Without --timing, two-times uses the prompt's own run and
compute-memory, thinking and counterfactual are skipped; with it they run:
The Gold-Bug passage at this and the AVX2 kernel level, the prompt as a
chat turn with thinking on and off (a model with a thinking template), the
prompt with the heads that fetch the source switched off.`

// parseLessonFlags reads lesson's command line; --help is written on help.
func parseLessonFlags(args []string, help io.Writer) (*lessonFlags, error) {
	fs := flag.NewFlagSet("lesson", flag.ContinueOnError)
	f := &lessonFlags{}
	fs.StringVar(&f.model, "model", "", "model folder, .safetensors file, its index.json or a GGUF file (default: the demo model)")
	fs.StringVar(&f.prompt, "prompt", assets.DemoPrompts[0], "the text the lesson follows; the default is the article's sentence")
	fs.IntVar(&f.maxTokens, "max-tokens", 100, "tokens written per run")
	fs.IntVar(&f.thinkTokens, "think-tokens", 2048, "at most this many tokens with thinking on")
	fs.IntVar(&f.count, "count", 1, "count layers and heads in the text from 1 (as the article) or 0 (as the code)")
	fs.IntVar(&f.threads, "threads", 0, threadsHelp)
	fs.StringVar(&f.level, "kernels", "auto", kernelsHelp)
	fs.StringVar(&f.lang, "lang", "", "the language of the titles, texts and numbers: en or fr (default: the system's, from LC_ALL, LC_MESSAGES or LANG); JSON keys, ids and figures are the same in every language")
	fs.BoolVar(&f.asJSON, "json", false, "print one JSON object: the chapters with their ids, texts and figures")
	fs.BoolVar(&f.timing, "timing", false, "make the timing chapters' runs (minutes on a large model)")
	fs.StringVar(&f.html, "html", "", "also write the handout: FILE and a PNG figure per chapter beside it, the page the window's File › Save lesson… writes")
	if err := parseFlags(fs, args, help); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() > 0:
		return nil, fmt.Errorf("unexpected argument %q (quote the prompt and pass it with --prompt)", fs.Arg(0))
	case f.prompt == "":
		return nil, errors.New("--prompt is empty; give the text the lesson follows")
	case f.maxTokens < 1 || f.thinkTokens < 1:
		return nil, errors.New("--max-tokens and --think-tokens must be at least 1")
	case f.count != 0 && f.count != 1:
		return nil, fmt.Errorf("--count %d: want 1 (as the article) or 0 (as the code)", f.count)
	}
	if f.lang != "" {
		if _, err := i18n.Parse(f.lang); err != nil {
			return nil, err
		}
	}
	return f, checkThreads(f.threads)
}

func runLesson(args []string, stdout, stderr io.Writer) int {
	f, err := parseLessonFlags(args, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "loupe lesson: %s\n", oneLine(err.Error()))
		return 2
	}
	if f.kernels, err = setKernels(f.level); err != nil {
		fmt.Fprintf(stderr, "loupe lesson: %v\n", err)
		return 1
	}
	l, err := tellLesson(f, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "loupe lesson: %s\n", oneLine(err.Error()))
		return 1
	}
	if f.asJSON {
		return printJSON(stdout, stderr, l)
	}
	printLesson(stdout, l, f.language())
	return 0
}

// tellLesson loads the model, inspects the last prompt token as `loupe
// inspect` does (first, on a fresh cache, so the numbers are the same),
// generates as `loupe run` does, makes the timing runs when asked and
// builds the chapters.
func tellLesson(f *lessonFlags, log io.Writer) (*lesson.Lesson, error) {
	path, err := modelPath(f.model)
	if err != nil {
		return nil, err
	}
	m, err := engine.Load(path, engine.LoadOptions{Threads: f.threads})
	if err != nil {
		return nil, err
	}
	defer m.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ids := m.Encode(f.prompt)
	if len(ids) == 0 {
		return nil, errors.New("the prompt encodes to no token")
	}
	insp, err := m.Inspect(ctx, ids, len(ids)-1, engine.InspectOptions{Kernels: f.kernels})
	if err != nil {
		return nil, err
	}
	run, err := generateOn(ctx, m, f.runFlags(f.prompt, f.maxTokens), func(string) {})
	if err != nil {
		return nil, err
	}
	in := LessonInput(m, run, insp, f.count == 0)
	in.Model, in.Lang = lessonModelInfo(m, f.model), f.language()
	kv := page.KV(in, m) // before the timing runs fill the cache with their own texts
	if f.timing {
		if in.Extra, err = timingRuns(ctx, m, f, in, log); err != nil {
			return nil, err
		}
	}
	if f.html != "" {
		if err := page.Write(f.html, in, kv, time.Now()); err != nil {
			return nil, fmt.Errorf("--html %s: %w", f.html, err)
		}
		fmt.Fprintln(log, in.Lang.T("lesson.page.written", i18n.Args{"File": f.html}))
	}
	return lesson.Build(in)
}

// language is --lang, else the system's (LC_ALL, LC_MESSAGES, LANG).
func (f *lessonFlags) language() i18n.Lang {
	l, _ := i18n.Choose(f.lang, os.Getenv) // --lang was checked by parseLessonFlags
	return l
}

// lessonModelInfo is the model's information with the demo model named as
// the window names it, not after its folder ("demo-" and a hash of its
// files).
func lessonModelInfo(m *engine.Model, model string) trace.ModelInfo {
	info := m.Info()
	if model == "" && strings.HasPrefix(info.Name, "demo-") {
		info.Name = assets.DemoName
	}
	return info
}

// LessonInput is what `loupe lesson` tells: m's run, with insp the last
// prompt token inspected on a fresh cache.
func LessonInput(m *engine.Model, run *trace.Run, insp *trace.Inspection, fromZero bool) lesson.Input {
	in := lesson.Input{Model: m.Info(), Run: run, Inspect: insp, SourceRow: m.Embedding, FromZero: fromZero}
	in.ChatSpecial, in.ThinkingTemplate = lesson.ChatSpecials(m)
	return in
}

// runFlags are `loupe run`'s defaults with this prompt and length.
func (f *lessonFlags) runFlags(prompt string, maxTokens int) *runFlags {
	rf, err := parseRunFlags([]string{"--prompt", prompt, "--max-tokens", strconv.Itoa(maxTokens)}, io.Discard)
	if err != nil { // cannot happen: the arguments are ours
		panic(err)
	}
	rf.kernels = f.kernels
	return rf
}

// timingRuns are the runs beyond the prompt's own (lesson.Measure), with
// loupe run's settings and the bandwidth bench uses.
func timingRuns(ctx context.Context, m *engine.Model, f *lessonFlags, in lesson.Input, log io.Writer) (*lesson.Extra, error) {
	opt := lesson.MeasureOptions{Settings: f.runFlags(f.prompt, f.maxTokens).settings, ThinkTokens: f.thinkTokens, Kernels: f.kernels,
		Progress: func(what string) { fmt.Fprintf(log, "%s…\n", what) }}
	opt.Bandwidth = func() (float64, error) {
		gbs, _, err := benchBandwidth(m, m.Threads(), &benchFlags{membwPasses: 3}, log)
		return gbs, err
	}
	fmt.Fprintln(log, in.Lang.T("lesson.plan.log", i18n.Args{"Plan": lesson.Plan(in, opt, lesson.GoldBugTokens(m, f.maxTokens))}))
	return lesson.Measure(ctx, m, in, opt)
}

// lessonHeading is the first line of the text: the model and the
// prompt. The demo model's name, a description in English in the JSON
// ("model"), is said in lang here.
func lessonHeading(l *lesson.Lesson, lang i18n.Lang) string {
	model := l.Model
	if model == assets.DemoName {
		model = lang.T("demo.name", nil)
	}
	prompt := strconv.Quote(l.Prompt)
	return lang.T("lesson.heading", i18n.Args{"Model": model, "Prompt": prompt[1 : len(prompt)-1]})
}

// printLesson writes the chapters as text in lang (the chapters were
// told in it; the skipped note is translated here, its JSON value
// stays NeedsTiming).
func printLesson(w io.Writer, l *lesson.Lesson, lang i18n.Lang) {
	fmt.Fprintln(w, lessonHeading(l, lang))
	for i, c := range l.Chapters {
		fmt.Fprintf(w, "\n%d / %d  %s  [%s]\n%s\n", i+1, len(l.Chapters), c.Title, c.ID, c.Text)
		if c.Skipped != "" {
			why := c.Skipped
			if why == lesson.NeedsTiming {
				why = lang.T("lesson.needs_timing", nil)
			}
			fmt.Fprintln(w, lang.T("lesson.skipped", i18n.Args{"Why": why}))
		}
	}
}
