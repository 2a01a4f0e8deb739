// Package app wires Loupe's window: the loading and generation
// goroutines, cancellation and the menus, over the window's state in
// loupe/session. It is the one place that calls fyne.Do; the views never
// see the engine. It keeps the panels as one list of views.Panel: each
// redraw builds a session.View and shows it on the panel on screen, and
// each panel exports itself. It computes no number and formats none
// itself: loupe/trace/stats and loupe/format do.
//
// "The article" in this package's comments is “The two times of an answer”,
// the article and video about the Herbert inference engine whose figures
// Loupe's panels follow (README.md).
package app

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"loupe/engine"
	"loupe/i18n"
	"loupe/kernels"
)

// AppID is the Fyne application id (preferences live under it).
const AppID = "io.loupe.app"

// Options are the command-line flags of the window.
type Options struct {
	Model      string // model folder or file; "" opens the recent or demo model
	Prompt     string
	Generate   bool // start generating as soon as the model is loaded
	MaxTokens  int
	Screenshot string // save the window as PNG once the generation ends
	Quit       bool   // exit after the screenshot
	Kernels    string
	Threads    int
	Tab        string // panel shown first: attention, next-token, timing, model, mlp, compare, embedding, kv-cache, logit-lens, sampler
	Ablate     string // after the first run: rerun with these heads off (L:H,… from 0, top:N, random:N:SEED)
	Variant    string // after the first run (and the ablation): compare with this prompt
	// DisableExperts and TopKExperts: after the first run, rerun an MoE
	// model with these experts switched off (L:E,… from 0) or this many
	// experts per token, and compare.
	DisableExperts string
	TopKExperts    int
	Source         string // with --ablate/--variant: the grid's source, a position or a word of the prompt ("": the strongest)
	UILatency      bool   // print the event loop's delay during generations at exit
	Dialog         string // dialog opened at start: models, get-model (models.go)
	Chat           bool   // the prompt is a chat turn (models with a chat template)
	Think          string // "on", "off" or "" (chat: enable_thinking; implies Chat)
	System         string // chat: the system message
	TimingJSON     string // write each finished run's timing (rates, threads) to this file
	CPUProfile     string // write a pprof CPU profile of the whole session to this file
	Experiment     string // run this experiment once the model is loaded (and --generate's run done)
	// Lesson opens the lesson card at LessonChapter (an id of package
	// lesson; "": the first); Projector starts in projector mode.
	Lesson        bool
	LessonChapter string
	Projector     bool
	Lang          string // en or fr for this launch ("": the remembered choice, else the system's)
	// Guess opens the chapter with Let the class guess ticked: its
	// question first, the answer hidden.
	Guess bool
	// LayoutReport writes, with --screenshot, where every text, token,
	// button and figure of the window lies (layoutreport.go).
	LayoutReport string
}

// ParseFlags reads the window's flags and refuses a value the window
// could not use, as the subcommands do.
func ParseFlags(args []string, stderr io.Writer) (Options, error) {
	var o Options
	fs := windowFlags(&o)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.Lang != "" {
		if _, err := i18n.Parse(o.Lang); err != nil {
			return o, err
		}
	}
	if err := checkLessonChapter(o.LessonChapter); err != nil {
		return o, err
	}
	if o.LessonChapter != "" || o.Guess {
		o.Lesson = true
	}
	if o.LayoutReport != "" && o.Screenshot == "" {
		return o, fmt.Errorf("--layout-report needs --screenshot (the report is written beside it)")
	}
	if o.Experiment != "" && !validExperiment(o.Experiment) {
		return o, fmt.Errorf("--experiment %q: use texts, kernels, context, threads or quant", o.Experiment)
	}
	if o.Think != "" && o.Think != "on" && o.Think != "off" {
		return o, fmt.Errorf("--think %q: use on or off", o.Think)
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (subcommands: loupe help)", fs.Arg(0))
	}
	if o.MaxTokens < 0 {
		return o, fmt.Errorf("--max-tokens %d: must be positive", o.MaxTokens)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return o, checkWindowFlags(o, set)
}

// tabNames are the panels --tab opens (panelName of each tab).
var tabNames = []string{"attention", "next-token", "timing", "model", "mlp", "deltanet", "experts", "embedding",
	"kv-cache", "logit-lens", "sampler", "compare", "experiments"}

// checkWindowFlags refuses the values the window would otherwise ignore
// or misread: an unknown panel, dialog or kernel level, negative threads.
func checkWindowFlags(o Options, set map[string]bool) error {
	switch {
	case set["tab"] && !slices.Contains(tabNames, o.Tab):
		return fmt.Errorf("--tab %q: use %s", o.Tab, strings.Join(tabNames, ", "))
	case set["threads"] && o.Threads < 0:
		return fmt.Errorf("--threads %d: must be 0 (one per physical core) or more", o.Threads)
	case o.Dialog != "" && o.Dialog != "models" && o.Dialog != "get-model":
		return fmt.Errorf("--dialog %q: use models or get-model", o.Dialog)
	case set["kernels"] && !validKernels(o.Kernels):
		return fmt.Errorf("--kernels %q: use one of %s", o.Kernels, kernels.ChoiceNames())
	}
	return nil
}

// noDisplayMessage is what the window says where it cannot open.
const noDisplayMessage = "loupe: no display: the window needs one; `loupe run …` works without (loupe help lists the commands)"

// noDisplay reports a Unix desktop session without a display to draw on
// (neither X11's DISPLAY nor Wayland's WAYLAND_DISPLAY): the toolkit would
// panic with "The GLFW library is not initialized".
func noDisplay() bool {
	switch runtime.GOOS {
	case "windows", "darwin", "android", "ios":
		return false
	}
	return os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == ""
}

// isNoDisplayPanic recognises the toolkit's panic when the display named
// cannot be opened.
func isNoDisplayPanic(msg string) bool {
	return strings.Contains(msg, "GLFW library is not initialized") || strings.Contains(msg, "NotInitialized")
}

// validKernels reports whether k names a kernel level (whether this CPU
// runs it is said once the window is open).
func validKernels(k string) bool {
	_, ok := parseKernelLabel(k)
	return ok
}

// windowFlags is the window's flag set, writing into o.
func windowFlags(o *Options) *flag.FlagSet {
	fs := flag.NewFlagSet("loupe", flag.ContinueOnError)
	fs.StringVar(&o.Model, "model", "", "model folder (config.json, *.safetensors, tokenizer.json) or file")
	fs.StringVar(&o.Prompt, "prompt", "", "prompt to put in the prompt box")
	fs.BoolVar(&o.Generate, "generate", false, "generate at once")
	fs.IntVar(&o.MaxTokens, "max-tokens", 0, "tokens to generate (0: keep the setting)")
	fs.StringVar(&o.Screenshot, "screenshot", "", "save the window as PNG to this file once the generation ends")
	fs.BoolVar(&o.Quit, "quit", false, "exit after the screenshot")
	fs.StringVar(&o.Kernels, "kernels", "", kernels.FlagHelp)
	fs.IntVar(&o.Threads, "threads", -1, engine.ThreadsHelp+"; -1: keep the setting")
	fs.StringVar(&o.Tab, "tab", "", "panel to show: "+strings.Join(tabNames, ", "))
	fs.StringVar(&o.Ablate, "ablate", "", "after generating, switch these heads off and compare: L:H[,L:H...] (0-based), top:N or random:N:SEED")
	fs.StringVar(&o.DisableExperts, "disable-experts", "", "MoE models: after generating, switch these experts off and compare: L:E[,L:E...] (0-based layer:expert)")
	fs.IntVar(&o.TopKExperts, "top-k-experts", 0, "MoE models: after generating, rerun with this many experts per token and compare")
	fs.StringVar(&o.Variant, "variant", "", "after generating, compare with this variant prompt")
	fs.StringVar(&o.Source, "source", "", "with --ablate or --variant: the grid's source for top:N, a token position or a word of the prompt (default: the strongest)")
	fs.BoolVar(&o.UILatency, "ui-latency", false, "print how long the window's event loop waited during generations, at exit")
	fs.StringVar(&o.Dialog, "dialog", "", "dialog to open at start: models (on this computer) or get-model")
	fs.BoolVar(&o.Chat, "chat", false, "chat mode: the prompt is the user's turn, rendered with the model's chat template")
	fs.StringVar(&o.Think, "think", "", "chat: on or off sets enable_thinking (implies --chat)")
	fs.StringVar(&o.System, "system", "", "chat: a system message")
	fs.StringVar(&o.CPUProfile, "cpuprofile", "", "write a pprof CPU profile of the session (window and engine) to this file")
	fs.StringVar(&o.TimingJSON, "timing-json", "", "write the finished run's prefill and decode rates as JSON to this file")
	fs.StringVar(&o.Experiment, "experiment", "", "run an experiment of the Experiments panel once the model is loaded: texts, kernels, context, threads, quant or batch")
	fs.BoolVar(&o.Lesson, "lesson", false, "open the lesson: the article's walk-through told on the prompt's run")
	fs.StringVar(&o.LessonChapter, "lesson-chapter", "", "with --lesson: the chapter shown first: "+lessonChapters())
	fs.BoolVar(&o.Projector, "projector", false, "projector mode: full screen, light theme, larger type, settings pane hidden")
	fs.StringVar(&o.Lang, "lang", "", "language of the window for this launch: en or fr (default: View › Language, else the system's)")
	fs.BoolVar(&o.Guess, "guess", false, "with --lesson: tick Let the class guess (the chapter's question first, its answer hidden)")
	fs.StringVar(&o.LayoutReport, "layout-report", "", "with --screenshot: write where every text, token, button and figure lies (JSON) to this file")
	return fs
}

// PrintFlags writes the window's flags and what they do (loupe --help).
func PrintFlags(w io.Writer) {
	fs := windowFlags(&Options{})
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// Main opens the window and returns the exit code: 0, 1 when a requested
// generation or screenshot failed, 2 for bad flags, 70 for an internal error.
func Main(args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			if isNoDisplayPanic(fmt.Sprint(r)) {
				fmt.Fprintln(os.Stderr, noDisplayMessage)
				code = 1
				return
			}
			fmt.Fprintf(os.Stderr, "loupe: internal error: %v\n", r)
			code = 70
		}
	}()
	opt, err := ParseFlags(args, os.Stderr)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(os.Stderr, "loupe:", err)
		return 2
	}
	stopProfile := func() {}
	if opt.CPUProfile != "" {
		f, err := os.Create(opt.CPUProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "loupe: --cpuprofile:", err)
			return 2
		}
		stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
	}
	if noDisplay() {
		fmt.Fprintln(os.Stderr, noDisplayMessage)
		return 1
	}
	var finish sync.Once
	defer finish.Do(stopProfile)
	rasterizeOnUIThread()
	tightenGC()
	a := fyneapp.NewWithID(AppID)
	declareFyneDo(a)
	a.Settings().SetTheme(newTheme(a.Preferences().String(prefTheme)))
	chooseLang(opt.Lang, a.Preferences())
	w := a.NewWindow("Loupe")
	u := newUI(a, w, opt, loadEngine)
	u.frames = newFrameWatch()
	w.SetContent(u.frames.over(w.Content()))
	w.Resize(firstWindowSize(a))
	u.start()
	end := func() int { u.shutdown(); finish.Do(stopProfile); return u.exitCode }
	w.SetOnClosed(func() { go exitIfStuck(quitGrace, end) })
	// A scripted run (--quit) ends without the toolkit's own shutdown:
	// Fyne 2.8.1 can panic there ("send on closed channel": its stop hook
	// queued while its main queue closes), seen once in a hundred runs
	// under Xvfb. Preferences are saved as they change, so nothing is lost.
	u.exitAfterShot = func() { go func() { os.Exit(end()) }() }
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	go watchSignals(sigs, signalGrace, u.closeAll, func() { fyne.Do(w.Close) }, func(code int) {
		fmt.Fprintln(os.Stderr, "loupe: the window did not finish closing after the stop signal; exiting anyway")
		finish.Do(stopProfile)
		os.Exit(code)
	})
	w.ShowAndRun()
	u.shutdown()
	return u.exitCode
}

// quitGrace is how long the toolkit gets to return from ShowAndRun once
// the window has closed.
const quitGrace = 4 * time.Second

// exitIfStuck ends the process when ShowAndRun has not returned grace
// after the window closed. Fyne 2.8.1 can deadlock there: an input event
// still queued when the window closes waits forever for the stopped main
// loop (seen under load after Ctrl+Q: the window gone, the process alive;
// goroutine dump in scripts/e2e.sh's log). The user closed the window, so
// the process must end: shut down as Main would and exit with its code.
func exitIfStuck(grace time.Duration, shutdown func() int) {
	time.Sleep(grace)
	fmt.Fprintln(os.Stderr, "loupe: the window toolkit did not finish closing; exiting anyway")
	os.Exit(shutdown())
}

// declareFyneDo tells Fyne that every UI call of this app already runs on
// the UI goroutine (the views are touched only from fyne.Do; FyneApp.toml
// says so too, but only `fyne package` reads it). Without it, every
// canvas refresh checks its goroutine by formatting a stack trace
// (runtime.Stack): measured, 45 % of the window's CPU while it streams
// tokens, taken from the engine's cores.
func declareFyneDo(a fyne.App) {
	m := a.Metadata()
	migrations := map[string]bool{"fyneDo": true}
	for k, v := range m.Migrations {
		migrations[k] = v || k == "fyneDo"
	}
	m.Migrations = migrations
	fyneapp.SetMetadata(m)
}

// tightenGC lets the heap grow by half its live size between collections
// instead of doubling: the window's live heap (fonts, tokenizer, KV cache,
// the bounded captures) is ~100 MB beside weights that are mapped, not
// allocated, so Go's default would cost ~100 MB of memory for little CPU.
// The captures are taken a frame at a time (wantsAttention), so little is
// allocated while the model writes and the extra collections are rare.
// A user's own GOGC wins.
func tightenGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(50)
	}
}

// rasterizeOnUIThread asks Mesa's software rasterizer (llvmpipe: a VM or a
// machine without a GPU driver) to draw on the UI thread instead of one
// thread per core. Its threads woke on every core for each frame and took
// them from the engine's workers, which then waited for each other at
// every barrier: with it, decode in the window ran 2–8 % faster (3 of 3
// interleaved pairs on a 2-core VM, 1.5B shape). A hardware driver ignores
// the variable; a user's own setting wins.
func rasterizeOnUIThread() {
	if _, set := os.LookupEnv("LP_NUM_THREADS"); !set {
		os.Setenv("LP_NUM_THREADS", "0")
	}
}
