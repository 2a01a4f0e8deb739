package app

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"loupe/engine"
	"loupe/engine/chat"
	"loupe/engine/tokenizer"
	"loupe/i18n"
	"loupe/trace"
	"loupe/views"
)

// chatArea is the Chat | Complete switch above the prompt: the
// conversation, its presets and its turns (the turns themselves are the
// session's, without the system message, which the panel holds).
type chatArea struct {
	ui      *UI
	drafts  []views.Draft // each reply's draft cost
	presets []chat.Preset
	pending *chatRequest // the chat turn begin hands to the worker
}

// ChatBackend is what chat mode needs beyond Backend; *engine.Model has
// it. A backend without it (the tests' fake) offers Complete mode only.
type ChatBackend interface {
	ChatTemplate() (*chat.Template, error)
	SamplingPresets() []chat.Preset
	RenderChat(msgs []chat.Message, think chat.Think) (string, []int, error)
	GenerateChat(ctx context.Context, msgs []chat.Message, think chat.Think, opt engine.GenerateOptions, onEvent func(engine.Event)) (*trace.Run, error)
	Reply(run *trace.Run) string
	Tokenizer() *tokenizer.Tokenizer
}

var _ ChatBackend = (*engine.Model)(nil)

// chatRequest is one chat generation handed to the worker.
type chatRequest struct {
	msgs  []chat.Message
	think chat.Think
}

func (fc *chatArea) newChatPanel() *views.ChatPanel {
	u := fc.ui
	c := views.NewChatPanel()
	c.OnPreset = guard1(u, u.chatArea.applyPreset)
	c.OnNew = u.guard(u.chatArea.newChat)
	c.OnMode = func(bool) {}
	return c
}

// chatModelLoaded offers chat for a model whose folder has a template.
func (fc *chatArea) chatModelLoaded() {
	u := fc.ui
	u.st.Turns, u.chatArea.drafts, u.chatArea.presets = nil, nil, nil
	cb, ok := u.backend.(ChatBackend)
	if !ok {
		u.chatPanel.SetAvailable(false, false, nil)
		u.chatPanel.ShowTurns(nil, nil)
		return
	}
	t, err := cb.ChatTemplate()
	u.chatArea.presets = cb.SamplingPresets()
	var names []string
	for _, p := range u.chatArea.presets {
		names = append(names, p.Name)
	}
	u.chatPanel.SetAvailable(err == nil, err == nil && t.HasThinking(), names)
	if err != nil && !errors.Is(err, chat.ErrNoTemplate) {
		u.chatPanel.Note.SetText(tr("app.chat.template_fails", nil) + err.Error())
	}
	if err == nil && (u.opt.Chat || u.opt.Think != "") {
		u.chatPanel.Mode.SetValue(views.ModeChat)
	}
	if u.opt.Think != "" {
		u.chatPanel.SetThinking(u.opt.Think == "on")
	}
	if u.opt.System != "" {
		u.chatPanel.System.SetText(u.opt.System)
	}
	u.chatPanel.ShowTurns(nil, nil)
}

// applyPreset sets the sampling knobs to a preset, one click.
func (fc *chatArea) applyPreset(name string) {
	u := fc.ui
	for _, p := range u.chatArea.presets {
		if p.Name != name {
			continue
		}
		c := u.controls
		if p.Temperature == 0 {
			c.Mode.SetValue(views.Greedy)
			return
		}
		c.Mode.SetValue(views.Sampling)
		c.Temperature.SetText(strconv.FormatFloat(p.Temperature, 'g', -1, 64))
		c.TopK.SetText(strconv.Itoa(p.TopK))
		c.TopP.SetText(strconv.FormatFloat(p.TopP, 'g', -1, 64))
		c.MinP.SetText(strconv.FormatFloat(p.MinP, 'g', -1, 64))
		c.Presence.SetText(strconv.FormatFloat(p.PresencePenalty, 'g', -1, 64))
		c.Status.SetText(tr("app.chat.preset_set", i18n.Args{"Name": p.Name}))
	}
}

// newChat forgets the turns (the KV cache is then simply not reused).
func (fc *chatArea) newChat() {
	u := fc.ui
	if u.st.Running {
		return
	}
	u.st.Turns, u.chatArea.drafts = nil, nil
	u.chatPanel.ShowTurns(nil, nil)
	u.left.Refresh()
	u.controls.Status.SetText(tr("app.chat.new_done", nil))
}

// chatTurn renders the conversation with the prompt as the next user
// turn; ok is false when chat mode is off.
func (fc *chatArea) chatTurn(prompt string) (req *chatRequest, text string, ids []int, err error) {
	u := fc.ui
	cb, ok := u.backend.(ChatBackend)
	if !ok || !u.chatPanel.Chat() {
		return nil, "", nil, nil
	}
	var msgs []chat.Message
	if s := u.chatPanel.System.Text; s != "" {
		msgs = append(msgs, chat.Message{Role: chat.System, Content: s})
	}
	msgs = append(msgs, u.st.Turns...)
	msgs = append(msgs, chat.Message{Role: chat.User, Content: prompt})
	think := chat.ThinkOff
	if u.chatPanel.ThinkingOn() {
		think = chat.ThinkOn
	}
	text, ids, err = cb.RenderChat(msgs, think)
	if err != nil {
		return nil, "", nil, err
	}
	return &chatRequest{msgs: msgs, think: think}, text, ids, nil
}

// runOne is the worker's call: a chat turn or a plain continuation.
func runOne(ctx context.Context, b Backend, req *chatRequest, prompt string, opt engine.GenerateOptions, on func(engine.Event)) (*trace.Run, error) {
	if req != nil {
		if cb, ok := b.(ChatBackend); ok {
			return cb.GenerateChat(ctx, req.msgs, req.think, opt, on)
		}
	}
	return b.Generate(ctx, prompt, opt, on)
}

// flagTokens marks the prompt's control and thinking tokens before the
// run comes back with its own flags.
func (fc *chatArea) flagTokens(toks []trace.Token) {
	u := fc.ui
	cb, ok := u.backend.(ChatBackend)
	if !ok || cb.Tokenizer() == nil {
		return
	}
	tok := cb.Tokenizer()
	open, ok1 := tok.TokenID("<think>")
	close, ok2 := tok.TokenID("</think>")
	in := false
	for i := range toks {
		id := toks[i].ID
		toks[i].Special = tok.IsAdded(id)
		switch {
		case ok1 && ok2 && id == open:
			in = true
			toks[i].Thinking = true
		case ok1 && ok2 && id == close:
			in = false
			toks[i].Thinking = true
		default:
			toks[i].Thinking = in
		}
	}
}

// chatFinished keeps the turn: the user's message and the raw reply (the
// template drops earlier drafts itself), and names the run for Timing.
func (fc *chatArea) chatFinished(run *trace.Run) {
	u := fc.ui
	label := tr("views.timing.run", i18n.Args{"N": len(u.st.Timings)})
	if run != nil && run.Messages != nil && !u.st.IsB(run) {
		if cb, ok := u.backend.(ChatBackend); ok {
			u.st.Turns = append(u.st.Turns, run.Messages[len(run.Messages)-1],
				chat.Message{Role: chat.Assistant, Content: cb.Reply(run)})
			u.chatArea.drafts = append(u.chatArea.drafts, draftOf(run))
			u.chatPanel.ShowTurns(u.st.Turns, u.chatArea.drafts)
			u.left.Refresh() // the column grew: lay it out again
			u.controls.Prompt.SetText("")
		}
		label += tr("app.chat.think_"+map[string]string{"on": "on", "off": "off", "": "default"}[run.Think], nil)
	}
	u.st.NameLastTiming(label)
}

// draftOf splits the reply by the tokens' thinking flags (the block may
// have been opened by the prompt itself, Qwen3.5 and -Thinking-2507
// style): the draft without its markers, and the answer.
func draftOf(run *trace.Run) views.Draft {
	d := views.Draft{Tokens: run.Timing.ThinkingTokens, Seconds: run.Timing.ThinkingSeconds, Split: true}
	var draft, answer strings.Builder
	gen := run.Tokens[firstGenerated(run.Tokens):]
	if run.StopReason == "eos" && len(gen) > 0 {
		gen = gen[:len(gen)-1]
	}
	for _, t := range gen {
		switch {
		case t.Thinking && t.Special: // <think>, </think>
		case t.Thinking:
			draft.WriteString(t.Text)
		default:
			answer.WriteString(t.Text)
		}
	}
	d.Text, d.Answer = strings.Trim(draft.String(), "\n"), strings.TrimLeft(answer.String(), "\n")
	return d
}
