package views

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"loupe/format"
	"loupe/i18n"
	"loupe/trace"
)

// PromptEntry is a multi-line entry where Ctrl+Enter generates and Esc
// stops, even while it has the keyboard focus.
type PromptEntry struct {
	widget.Entry
	OnGenerate, OnStop func()
}

// NewPromptEntry makes an empty prompt box.
func NewPromptEntry() *PromptEntry {
	e := &PromptEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	return e
}

// IsGenerateShortcut reports whether s is Ctrl+Enter (or Ctrl+Return).
func IsGenerateShortcut(s fyne.Shortcut) bool {
	c, ok := s.(*desktop.CustomShortcut)
	return ok && c.Modifier == fyne.KeyModifierControl && (c.KeyName == fyne.KeyReturn || c.KeyName == fyne.KeyEnter)
}

// TypedShortcut catches Ctrl+Enter before the entry does.
func (e *PromptEntry) TypedShortcut(s fyne.Shortcut) {
	if IsGenerateShortcut(s) {
		if e.OnGenerate != nil {
			e.OnGenerate()
		}
		return
	}
	e.Entry.TypedShortcut(s)
}

// TypedKey catches Esc.
func (e *PromptEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape {
		if e.OnStop != nil {
			e.OnStop()
		}
		return
	}
	e.Entry.TypedKey(k)
}

// Controls is the left column: prompt, Generate/Stop, and the settings.
type Controls struct {
	Prompt         *PromptEntry
	History        *widget.Select
	history        []string // the prompts behind History's one-line options
	Generate, Stop *widget.Button
	MaxTokens      *widget.Entry
	KVCost         *widget.Label // what the KV cache of prompt + max tokens costs
	kvPerToken     int64         // bytes per position of the loaded model's cache
	kvMax          int           // the model's context
	// PromptTokens counts the tokens of a prompt (the loaded model's
	// tokenizer; nil before a model): the cache holds them too.
	PromptTokens      func(prompt string) int
	Mode              *Choice
	Temperature, TopK *widget.Entry
	TopP, MinP        *widget.Entry
	Presence, Seed    *widget.Entry
	Threads           *widget.Entry
	Kernels           *widget.Select
	Status            *widget.Label
	Progress          *widget.ProgressBar // loading
	// Busy shows, while generating, the share of max tokens written. It is
	// not animated: an animation redraws the window at 60 frames a second,
	// and that CPU time comes out of the engine's (the window ran prefill
	// 1.6× slower than loupe bench with the infinite bar spinning).
	Busy     *widget.ProgressBar
	sampling []*widget.Entry
	Box      fyne.CanvasObject
}

// Greedy and Sampling are the Mode's values (stored in the
// preferences); the window shows them as views.controls.greedy and
// views.controls.sampling.
const (
	Greedy   = "Greedy"
	Sampling = "Sampling"
)

func numEntry(v string) *widget.Entry {
	e := widget.NewEntry()
	e.SetText(v)
	return e
}

// SetKVCost tells the controls the loaded model's KV cache bytes per token
// and its context, so that the cost of max tokens is shown beside it.
func (c *Controls) SetKVCost(perToken int64, maxContext int) {
	c.kvPerToken, c.kvMax = perToken, maxContext
	c.showKVCost()
}

// showKVCost: the cache is sized to prompt + max tokens, never to the
// model's maximum; both figures are shown.
func (c *Controls) showKVCost() {
	n, err := strconv.Atoi(strings.TrimSpace(c.MaxTokens.Text))
	if c.kvPerToken <= 0 || err != nil || n < 1 {
		c.KVCost.SetText("")
		return
	}
	c.KVCost.SetText(KVCacheLine(c.kvPerToken, c.promptTokens(), n, c.kvMax))
}

// promptTokens is the prompt's length in tokens, 0 when unknown.
func (c *Controls) promptTokens() int {
	if c.PromptTokens == nil || c.Prompt.Text == "" {
		return 0
	}
	return c.PromptTokens(c.Prompt.Text)
}

// KVCacheLine is what the KV cache of prompt + maxTokens positions costs,
// beside its cost at the model's whole context.
func KVCacheLine(perToken int64, prompt, maxTokens, context int) string {
	return tr("views.controls.kv_line", i18n.Args{"Bytes": nums().Bytes(float64(perToken) * float64(prompt+maxTokens)),
		"Prompt": thousands(prompt), "Max": thousands(maxTokens),
		"Full": nums().Bytes(float64(perToken) * float64(context)), "Context": thousands(context)})
}

// NewControls builds the column; onGenerate and onStop are called by the
// buttons and shortcuts.
func NewControls(onGenerate, onStop func()) *Controls {
	c := &Controls{Prompt: NewPromptEntry()}
	c.Prompt.OnGenerate, c.Prompt.OnStop = onGenerate, onStop
	c.Prompt.SetPlaceHolder(tr("views.controls.prompt_hint", nil))
	c.Prompt.SetMinRowsVisible(6)
	c.History = widget.NewSelect(nil, func(string) {
		if i := c.History.SelectedIndex(); i >= 0 && i < len(c.history) {
			c.Prompt.SetText(c.history[i])
		}
	})
	c.History.PlaceHolder = tr("views.controls.history", nil)
	c.Generate = widget.NewButton(tr("views.controls.generate", nil), onGenerate)
	c.Generate.Importance = widget.HighImportance
	c.Stop = widget.NewButton(tr("views.controls.stop", nil), onStop)
	c.Stop.Importance = widget.DangerImportance
	c.Stop.Disable()
	c.MaxTokens = numEntry("100")
	c.KVCost = widget.NewLabel("")
	c.KVCost.Wrapping = fyne.TextWrapWord
	c.MaxTokens.OnChanged = func(string) { c.showKVCost() }
	c.Prompt.OnChanged = func(string) { c.showKVCost() }
	c.Temperature, c.TopK, c.TopP = numEntry("0.7"), numEntry("20"), numEntry("0.8")
	c.MinP, c.Presence, c.Seed = numEntry("0"), numEntry("0"), numEntry("1")
	c.sampling = []*widget.Entry{c.Temperature, c.TopK, c.TopP, c.MinP, c.Presence, c.Seed}
	c.Mode = NewChoice([]string{Greedy, Sampling}, []string{"views.controls.greedy", "views.controls.sampling"},
		func(string) { c.syncMode() })
	// One option a row: side by side, the radio group is twice its
	// longest label wide, and "Échantillonnage" made the column 90 px
	// wider than the 1,366 px window has room for.
	c.Mode.Radio.Horizontal = false
	c.syncMode()
	c.Threads = numEntry("0")
	c.Kernels = widget.NewSelect([]string{"auto"}, nil)
	c.Kernels.SetSelected("auto")
	c.Status = widget.NewLabel("")
	c.Status.Wrapping = fyne.TextWrapWord
	c.Progress = widget.NewProgressBar()
	c.Progress.Hide()
	c.Busy = widget.NewProgressBar()
	c.Busy.Hide()
	form := container.New(layout.NewFormLayout(),
		widget.NewLabel(tr("views.controls.max_tokens", nil)), c.MaxTokens,
		widget.NewLabel(tr("views.controls.kv_cache", nil)), c.KVCost,
		widget.NewLabel(tr("views.controls.decoding", nil)), c.Mode.Radio,
		widget.NewLabel(tr("views.controls.temperature", nil)), c.Temperature,
		widget.NewLabel("Top-k"), c.TopK,
		widget.NewLabel("Top-p"), c.TopP,
		widget.NewLabel("Min-p"), c.MinP,
		widget.NewLabel(tr("views.controls.presence", nil)), c.Presence,
		widget.NewLabel(tr("views.controls.seed", nil)), c.Seed,
		widget.NewLabel(tr("views.controls.threads", nil)), c.Threads,
		widget.NewLabel(tr("views.controls.kernels", nil)), c.Kernels,
	)
	c.Box = container.NewVBox(c.History, c.Prompt,
		// Generate takes what Stop leaves: two equal columns were each as
		// wide as "Générer  (Ctrl+Entrée)", too wide a column at 1,366 px.
		container.NewBorder(nil, nil, nil, c.Stop, c.Generate),
		form, c.Progress, c.Busy, c.Status)
	return c
}

// syncMode enables the sampling knobs only when sampling.
func (c *Controls) syncMode() {
	for _, e := range c.sampling {
		if c.Mode.Value() == Sampling {
			e.Enable()
		} else {
			e.Disable()
		}
	}
}

// SetRunning switches the buttons between idle and generating.
func (c *Controls) SetRunning(on bool) {
	if on {
		c.Generate.Disable()
		c.Stop.Enable()
		c.Busy.SetValue(0)
		c.Busy.Show()
	} else {
		c.Generate.Enable()
		c.Stop.Disable()
		c.Busy.Hide()
	}
}

// SetKernelOptions lists the kernel levels this CPU supports ("auto" first).
func (c *Controls) SetKernelOptions(opts []string, selected string) {
	c.Kernels.SetOptions(opts)
	c.Kernels.SetSelected(selected)
}

// SetHistory lists prompts in the history menu.
//
// The drop-down draws one line an option: a prompt's line breaks show as
// ¶ there (format.OneLine), and choosing it puts the prompt itself in the
// box.
func (c *Controls) SetHistory(prompts []string) {
	c.history = prompts
	labels := make([]string, len(prompts))
	for i, p := range prompts {
		labels[i] = format.OneLine(p)
	}
	c.History.SetOptions(labels)
}

// Settings reads the knobs; an error names the setting that is wrong.
func (c *Controls) Settings() (trace.Settings, error) {
	var s trace.Settings
	var err error
	if s.MaxTokens, err = intField("max tokens", c.MaxTokens.Text, 1, 1<<20); err != nil {
		return s, err
	}
	if s.Threads, err = intField("threads", c.Threads.Text, 0, 1024); err != nil {
		return s, err
	}
	s.Kernels = c.Kernels.Selected
	if c.Mode.Value() != Sampling {
		return s, nil
	}
	if s.Temperature, err = floatField("temperature", c.Temperature.Text, 0, 10); err != nil {
		return s, err
	}
	if s.TopK, err = intField("top-k", c.TopK.Text, 0, 1<<20); err != nil {
		return s, err
	}
	if s.TopP, err = floatField("top-p", c.TopP.Text, 0, 1); err != nil {
		return s, err
	}
	if s.MinP, err = floatField("min-p", c.MinP.Text, 0, 1); err != nil {
		return s, err
	}
	if s.PresencePenalty, err = floatField("presence penalty", c.Presence.Text, -10, 10); err != nil {
		return s, err
	}
	seed, err := intField("seed", c.Seed.Text, 0, 1<<62)
	s.Seed = uint64(seed)
	return s, err
}

func intField(name, text string, lo, hi int) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("%s: %q is not a whole number from %d to %d", name, text, lo, hi)
	}
	return v, nil
}

func floatField(name, text string, lo, hi float64) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("%s: %q is not a number from %g to %g", name, text, lo, hi)
	}
	return v, nil
}
