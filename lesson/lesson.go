// Package lesson tells the article's walk-through — tokens, embedding, one
// head fetching the source, the layers × heads grid, the sink, the KV
// cache, the MLP, the output head, the loop, the two times, compute against
// memory, thinking, a counterfactual, what to remember — with the numbers
// of one run on the model that is open. It is headless: the window's
// lesson card, `loupe lesson` and the saved HTML page all call Build.
//
// The article is “The two times of an answer”, the article and video about
// the Herbert inference engine that Loupe follows (README.md).
//
// Every number in a chapter's text comes from its Figures, and the figures
// come from the trace: the prompt's run (tokens, top-10, timing) and the
// inspection of its last prompt token (attention of every layer and head,
// MLP values of every layer, embedding row). Indices in Figures are 0-based;
// the text counts layers and heads as Input.Count says.
package lesson

import (
	"errors"
	"strings"

	"loupe/i18n"
	"loupe/trace"
)

// The chapter ids, in the article's order. They are a contract: the
// window's --lesson-chapter and `loupe lesson --json` use them.
const (
	Tokens         = "tokens"
	Embedding      = "embedding"
	Attention      = "attention"
	Grid           = "grid"
	Sink           = "sink"
	KVCache        = "kv-cache"
	MLP            = "mlp"
	Output         = "output"
	Loop           = "loop"
	TwoTimes       = "two-times"
	ComputeMemory  = "compute-memory"
	Conversations  = "conversations" // several conversations written at once (batch.go)
	Thinking       = "thinking"
	Counterfactual = "counterfactual"
	Summary        = "summary"
	// Experts closes the lesson of a mixture-of-experts model only (the
	// article's last words point to such models): not in IDs, so a dense
	// model's lesson keeps its chapters and their indices.
	Experts = "experts"
)

// IDs lists the chapters in order.
var IDs = []string{Tokens, Embedding, Attention, Grid, Sink, KVCache, MLP, Output, Loop,
	TwoTimes, ComputeMemory, Conversations, Thinking, Counterfactual, Summary}

// NeedsTiming is the Skipped text of a chapter whose runs were not made.
const NeedsTiming = "needs --timing"

// Input is what the chapters are built from.
type Input struct {
	Model trace.ModelInfo
	// Run is the prompt's generation: its tokens, the top-10 of every step
	// and the timing.
	Run *trace.Run
	// Inspect is the last prompt token seen from inside (Model.Inspect):
	// attention of every layer and head, MLP values of every layer.
	Inspect *trace.Inspection
	// SourceRow returns the embedding row of a token id; nil uses the
	// inspected token's row.
	SourceRow func(id int) []float32
	// ChatSpecial are the control tokens a chat template wraps a message
	// in (<|im_start|>, <|im_end|>, …); empty for a base model.
	ChatSpecial []string
	// ThinkingTemplate: the model's chat template has a thinking switch.
	ThinkingTemplate bool
	// Extra are the measured runs beyond the prompt's own (--timing, or the
	// window's timing chapters); nil when not run.
	Extra *Extra
	// FromZero numbers layers and heads in the text from 0, as the code
	// and the tensor names; by default from 1, as the article.
	FromZero bool
	// Lang is the language of the titles, texts and questions, and of
	// their numbers' notation; the zero Lang is English. The figures, the
	// ids and every JSON key stay the same in every language.
	Lang i18n.Lang
}

// Extra are the runs the timing chapters need beyond the prompt's own.
type Extra struct {
	Gold *trace.Timing // the Gold-Bug passage read and written, nil when not run
	// Kernels are prefill and decode at several kernel levels (auto first);
	// BandwidthGBs is the machine's measured read bandwidth (0: unknown).
	Kernels      []KernelRun
	BandwidthGBs float64
	// ThinkOn and ThinkOff are the prompt as a chat turn with thinking on
	// and off (a model with a thinking template), nil when not run.
	ThinkOn, ThinkOff *trace.Timing
	// Batch is one conversation, then several, written together (an
	// *engine.Model only); nil when not run.
	Batch []BatchPoint
	// Ablated is the prompt run again with the heads that fetch the source
	// switched off; nil when not run.
	Ablated *Ablation
	// Runs are the runs above as the engine returned them, each named
	// (trace.Run.Origin) after what it measured: the window keeps them in
	// its history and its Timing tab, as it keeps an experiment's.
	Runs []*trace.Run `json:"-"`
}

// KernelRun is one prompt read and written at one kernel level.
type KernelRun struct {
	Level          string  `json:"level"`
	Arithmetic     string  `json:"arithmetic,omitempty"` // the run's (trace.Timing.Arithmetic)
	PrefillTokens  int     `json:"prefill_tokens"`
	PrefillSeconds float64 `json:"prefill_seconds"`
	DecodeTokens   int     `json:"decode_tokens"`
	DecodeSeconds  float64 `json:"decode_seconds"`
}

// Ablation is the first step of a run with Heads switched off.
type Ablation struct {
	Heads []trace.Head
	First trace.Step // the first generated token and its top-10
}

// Chapter is one card of the lesson.
type Chapter struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Text    string `json:"text"`
	Figures any    `json:"figures"`
	// Skipped says why the chapter has no numbers ("needs --timing").
	Skipped string `json:"skipped,omitempty"`
	// Question is asked before the figure is revealed, when the class is
	// to guess ("Which word comes next?"); empty for most chapters.
	Question string `json:"question,omitempty"`
	// Show is what the window sets for this chapter.
	Show Show `json:"-"`
}

// Show is the part of the window a chapter talks about.
type Show struct {
	Tab    string // a tab's title: "Attention", "Next token", "Timing", …
	Query  int    // selected token position (-1: leave it)
	Source int    // source position of the grid (-1: leave it)
	Layer  int    // layer talked about (-1: none)
	Head   int    // head talked about (-1: none)
}

// Lesson is every chapter of one run.
type Lesson struct {
	Model     string    `json:"model"`                // as people know it (a Hub repo id, a GGUF's general.name)
	ModelPath string    `json:"model_path,omitempty"` // where it was read from
	Prompt    string    `json:"prompt"`
	Chapters  []Chapter `json:"chapters"`
}

// Chapter returns the chapter with id, nil if there is none.
func (l *Lesson) Chapter(id string) *Chapter {
	for i := range l.Chapters {
		if l.Chapters[i].ID == id {
			return &l.Chapters[i]
		}
	}
	return nil
}

// Index returns the position of chapter id in IDs (Experts: after them,
// where an MoE model's lesson has it), -1 if unknown.
func Index(id string) int {
	for i, c := range IDs {
		if c == id {
			return i
		}
	}
	if id == Experts {
		return len(IDs)
	}
	return -1
}

// Build tells every chapter from in. It fails only when the trace lacks
// what every chapter needs: the prompt's tokens, the first step and the
// attention of the last prompt token.
func Build(in Input) (*Lesson, error) {
	f, err := newFacts(in)
	if err != nil {
		return nil, err
	}
	l := &Lesson{Model: in.Model.Name, ModelPath: in.Model.Path, Prompt: in.Run.Prompt}
	if l.Model == "" {
		l.Model = in.Model.Path
	}
	for _, tell := range []func(*facts) Chapter{
		tokensChapter, embeddingChapter, attentionChapter, gridChapter, sinkChapter,
		kvChapter, mlpChapter, outputChapter, loopChapter, twoTimesChapter,
		computeChapter, batchChapter, thinkingChapter, counterfactualChapter, summaryChapter,
	} {
		c := tell(f)
		c.Text = strings.TrimSpace(c.Text)
		l.Chapters = append(l.Chapters, c)
	}
	if in.Model.Experts > 0 {
		c := expertsChapter(f)
		c.Text = strings.TrimSpace(c.Text)
		l.Chapters = append(l.Chapters, c)
	}
	return l, nil
}

// errNoData is Build's error for a trace that lacks the prompt's run.
var errNoData = errors.New("lesson: the run has no prompt tokens, no generated token or no attention of the last prompt token")
