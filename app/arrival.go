package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"loupe/engine"
	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// What a generation sends back: each token as it arrives, then the
// finished run, which the panels adopt.

// onEvent folds one engine event into the session.
func (u *UI) onEvent(gen int, ev engine.Event) {
	if gen != u.gen || !u.st.Running {
		return
	}
	switch {
	case ev.Prefill != nil:
		t := ev.Prefill
		u.st.Live = *t
		u.st.Live.BytesPerToken = float64(u.st.Info.WeightBytesPerTok) // the KV cache is added at the end
		u.dirty = true                                                 // Timing's live bar
		u.controls.Status.SetText(tr("app.status.prompt_read", i18n.Args{"N": thousands(t.PrefillTokens), "Time": nums().Duration(t.PrefillSeconds)}))
	case ev.Step != nil:
		u.st.Steps = append(u.st.Steps, *ev.Step)
		u.st.Live.DecodeTokens++
		u.st.Live.DecodeSeconds += ev.Step.Seconds
		u.dirty = true
	case ev.Token != nil:
		u.addToken(*ev.Token)
	case ev.Attention != nil:
		u.st.Attention = append(u.st.Attention, *ev.Attention)
		u.dirty = true
	}
}

// pinnedAttention reports whether the capture of a position stays
// whatever attnBudget says: a prompt position, or the token the user picked.
func (u *UI) pinnedAttention() func(pos int) bool {
	first, picked := firstGenerated(u.st.Tokens), -1
	if !u.st.Follow {
		picked = u.st.Query
	}
	return func(pos int) bool { return pos < first || pos == picked }
}

// addToken appends a generated token to the stream; the selection follows
// it unless the user picked another token.
func (u *UI) addToken(tok trace.Token) {
	if tok.Pos < len(u.st.Tokens) {
		u.st.Tokens[tok.Pos] = tok
		u.stream.SetTokens(u.st.Tokens)
	} else {
		u.st.Tokens = append(u.st.Tokens, tok)
		u.stream.Append(tok)
	}
	u.dirty = true
	generated := len(u.st.Tokens) - firstGenerated(u.st.Tokens)
	u.controls.Status.SetText(tr("app.status.writing", i18n.Args{"N": thousands(generated),
		"Rate": nums().Fixed(stats.Rate(u.st.Live.DecodeTokens, u.st.Live.DecodeSeconds), 1)}))
	if u.maxTokens > 0 {
		u.controls.Busy.SetValue(min(1, float64(generated)/float64(u.maxTokens)))
	}
	if u.st.Follow {
		u.st.Query = tok.Pos
		u.stream.SetSelected(tok.Pos)
	}
}

func firstGenerated(toks []trace.Token) int {
	for i, t := range toks {
		if t.Generated {
			return i
		}
	}
	return len(toks)
}

// finish takes the finished run as the truth of the session.
func (u *UI) finish(gen int, run *trace.Run, err error) {
	if gen != u.gen {
		return
	}
	u.st.Running = false
	u.cancel()
	u.controls.SetRunning(false)
	if run != nil {
		if run.Model.Path == u.st.Info.Path {
			run.Model.Name = u.st.Info.Name // the demo model's, not its folder's hash
		}
		u.adoptRun(run)
		u.remember(run)
		u.chatArea.chatFinished(run)
	}
	switch {
	case err != nil && errors.Is(err, context.Canceled):
		u.controls.Status.SetText(tr("app.status.stopped", nil) + " " + u.controls.Status.Text)
	case err != nil:
		u.knobs.unsaveKnobs()
		u.controls.Status.SetText(failedStatus(err))
		u.fail(tr("app.err.generation", nil), err)
	case run == nil:
		u.controls.Status.SetText(failedStatus(nil))
		u.fail(tr("app.err.generation", nil), errors.New(tr("app.hint.no_run", nil)))
	}
	u.dirty = true
	u.refreshPanels()
	u.host.mem.decoding()
	u.host.mem.keepHeadroom()
	u.continueChain(err)
	u.lessonMode.lessonRunFinished()
	u.afterRun(err)
	u.host.probeAfterRun()
	u.idle()
}

// failedStatus is the status line after a generation that failed: what
// went wrong, not the last progress ("Reading the prompt: 701 tokens…").
func failedStatus(err error) string {
	if err == nil {
		return tr("app.status.no_run", nil)
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return tr("app.status.failed", i18n.Args{"Msg": msg})
}

// adoptRun replaces the streamed state by the run's own record.
func (u *UI) adoptRun(run *trace.Run) {
	u.st.LastRun = run
	followed := u.st.Follow
	if len(run.Tokens) > 0 {
		u.st.Tokens = run.Tokens
		u.stream.SetTokens(u.st.Tokens)
		if followed {
			u.st.Query = max(0, stats.PromptLen(run)-1)
		}
		u.stream.SetSelected(u.st.Query)
	}
	u.st.Steps, u.st.Attention, u.st.MLPs = run.Steps, keepPicked(run.Attention, u.st.Attention, u.st.Query, followed), run.MLP
	if followed && len(run.Tokens) > 0 {
		u.showLastPromptToken()
	}
	u.st.KeepTiming(run.Timing, "") // named by the chat, if a turn
	t := run.Timing
	u.controls.Status.SetText(tr("app.status.done", i18n.Args{"Why": stopWords(run.StopReason), "Read": thousands(t.PrefillTokens),
		"ReadTime": nums().Duration(t.PrefillSeconds), "Written": thousands(t.DecodeTokens), "WriteTime": nums().Duration(t.DecodeSeconds),
		"Rate": nums().Fixed(stats.Rate(t.DecodeTokens, t.DecodeSeconds), 1)}))
	fmt.Printf("loupe: generated %d tokens (%s), prefill %.3f s, decode %.3f s\n",
		t.DecodeTokens, run.StopReason, t.PrefillSeconds, t.DecodeSeconds)
	u.host.writeTiming(run)
}

// showLastPromptToken leaves the selection, once a run the user did not
// click into has ended, where the article looks: the last prompt token
// («·a»), the one that predicts the first word written, with the token it
// attends to most outlined as its source («·purple»). The source stays
// "the strongest" (-1), so the grid keeps showing the strongest source of
// whichever token is clicked next.
func (u *UI) showLastPromptToken() {
	u.st.Follow = false
	if u.st.Source > u.st.Query {
		u.st.Source = -1
	}
	if u.st.Source >= 0 {
		return // chosen by the user during the run
	}
	src := -1
	if a, ok := stats.AttentionAt(u.st.Attention, u.st.Query); ok {
		src = stats.StrongestSource(a)
	}
	u.stream.SetSource(src)
}

// keepPicked adds to the run's captures the one of the token the user
// picked during the run, when the window kept it and the run (bounded by
// attnBudget) did not.
func keepPicked(run, shown []trace.Attention, q int, follow bool) []trace.Attention {
	if follow {
		return run
	}
	a, ok := stats.AttentionAt(shown, q)
	if _, in := stats.AttentionAt(run, q); !ok || in {
		return run
	}
	i := slices.IndexFunc(run, func(b trace.Attention) bool { return b.QueryPos > q })
	if i < 0 {
		i = len(run)
	}
	return slices.Insert(run, i, a)
}

func stopWords(reason string) string {
	switch reason {
	case "eos":
		return tr("app.stop.eos", nil)
	case "max_tokens":
		return tr("app.stop.max", nil)
	case "cancelled":
		return tr("app.stop.cancelled", nil)
	case "context":
		return tr("app.stop.context", nil)
	}
	return reason
}
