package views

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"loupe/i18n"
	"loupe/trace"
)

// Prompt modes of the ChatPanel: the Mode's values, shown as
// views.chat.mode_chat and views.chat.mode_complete.
const (
	ModeChat     = "Chat"
	ModeComplete = "Complete"
)

// ChatPanel sits above the prompt box: Chat | Complete, the Think switch
// (for templates with enable_thinking), a system message, the sampling
// presets of the model card, and the turns of the chat so far with each
// reply's draft (between <think> and </think>) folded apart from its answer.
type ChatPanel struct {
	Mode     *Choice
	Think    *widget.Check
	System   *widget.Entry
	Presets  *widget.Select
	NewChat  *widget.Button
	Note     *widget.Label
	turns    *fyne.Container
	Box      fyne.CanvasObject
	OnPreset func(name string)
	OnMode   func(chat bool)
	OnNew    func()
	thinking bool // the template has enable_thinking
	// wantThink is the switch as the user left it on a template that has
	// one: a template without one shows it unticked, and the next one
	// with one gets the choice back.
	wantThink bool
}

// NewChatPanel makes the panel in Complete mode with chat unavailable.
func NewChatPanel() *ChatPanel {
	c := &ChatPanel{}
	c.Mode = NewChoice([]string{ModeChat, ModeComplete}, []string{"views.chat.mode_chat", "views.chat.mode_complete"}, func(v string) {
		c.sync()
		if c.OnMode != nil {
			c.OnMode(v == ModeChat)
		}
	})
	c.Mode.preselect(ModeComplete) // before the widgets sync refers to exist
	c.wantThink = true             // the Qwen3 templates' own default
	c.Think = widget.NewCheck(tr("views.chat.think", nil), func(on bool) {
		if c.thinking {
			c.wantThink = on
		}
	})
	c.System = widget.NewEntry()
	c.System.SetPlaceHolder(tr("views.chat.system", nil))
	c.Presets = widget.NewSelect(nil, func(s string) {
		if s != "" && c.OnPreset != nil {
			c.OnPreset(s)
		}
	})
	c.Presets.PlaceHolder = tr("views.chat.preset", nil)
	c.NewChat = widget.NewButton(tr("views.chat.new", nil), func() {
		if c.OnNew != nil {
			c.OnNew()
		}
	})
	c.Note = widget.NewLabel("")
	c.Note.Wrapping = fyne.TextWrapWord
	c.turns = container.NewVBox()
	// One control a row where two would not fit the narrow column: at 1,366
	// px, tr("views.chat.think", nil) and "New chat" were cut at its edge.
	c.Box = container.NewVBox(c.Mode.Radio, container.NewBorder(nil, nil, nil, c.NewChat, c.Think), c.System,
		c.Presets, c.Note, c.turns)
	c.SetAvailable(false, false, nil)
	return c
}

// Chat reports whether the prompt box holds a chat turn.
func (c *ChatPanel) Chat() bool { return c.Mode.Value() == ModeChat && !c.Mode.Disabled() }

// SetAvailable sets what the loaded model offers: a chat template (with
// or without enable_thinking) and the names of its sampling presets.
func (c *ChatPanel) SetAvailable(chat, thinking bool, presets []string) {
	c.Presets.ClearSelected()
	c.Presets.SetOptions(presets)
	if len(presets) == 0 {
		c.Presets.Disable()
	} else {
		c.Presets.Enable()
	}
	if !chat {
		c.Mode.SetValue(ModeComplete)
		c.Mode.Disable()
		c.Note.SetText(tr("views.chat.no_template", nil))
	} else {
		c.Mode.Enable()
		c.Note.SetText("")
	}
	c.thinking = false // the tick below is not the user's choice
	c.Think.SetChecked(thinking && c.wantThink)
	c.thinking = thinking
	c.sync()
}

// SetThinking ticks the Think switch or clears it, as a click would; on
// a template without the switch it stays clear, and the choice waits for
// a template that has one.
func (c *ChatPanel) SetThinking(on bool) {
	c.wantThink = on
	c.Think.SetChecked(on && c.thinking)
}

// ThinkingOn reports whether the next turn asks for thinking: the switch
// is ticked and the template has one.
func (c *ChatPanel) ThinkingOn() bool { return c.thinking && c.Think.Checked }

// sync shows the chat-only widgets in chat mode.
func (c *ChatPanel) sync() {
	chat := c.Chat()
	for _, w := range []fyne.Disableable{c.System, c.NewChat} {
		if chat {
			w.Enable()
		} else {
			w.Disable()
		}
	}
	if chat && c.thinking {
		c.Think.Enable()
	} else {
		c.Think.Disable()
	}
}

// ShowTurns lists the chat so far; each reply is split at </think> into
// its folded draft and its answer.
func (c *ChatPanel) ShowTurns(msgs []trace.Message, drafts []Draft) {
	c.turns.RemoveAll()
	reply := 0
	for _, m := range msgs {
		switch m.Role {
		case "user":
			c.turns.Add(wrapped(tr("views.chat.you", i18n.Args{"Text": m.Content})))
		case "assistant":
			var d Draft
			if reply < len(drafts) {
				d = drafts[reply]
			}
			reply++
			thinking, answer := SplitThinking(m.Content)
			if d.Split {
				thinking, answer = d.Text, d.Answer
			}
			if thinking != "" || d.Tokens > 0 {
				body := widget.NewLabel(thinking)
				body.Wrapping = fyne.TextWrapWord
				body.Importance = widget.LowImportance // dimmed
				item := widget.NewAccordionItem(Lang.N("views.chat.folded", d.Tokens, i18n.Args{"N": thousands(d.Tokens), "Time": nums().Duration(d.Seconds)}), body)
				c.turns.Add(widget.NewAccordion(item))
			}
			if answer == "" && d.Tokens > 0 {
				answer = tr("views.chat.no_answer", nil)
			}
			c.turns.Add(wrapped(tr("views.chat.model", i18n.Args{"Text": answer})))
		}
	}
	c.turns.Refresh()
}

// Draft is the think block of one reply: its tokens and decode seconds,
// and when Split, its text and the answer's as the tokens' flags cut them.
type Draft struct {
	Tokens       int
	Seconds      float64
	Split        bool
	Text, Answer string
}

func wrapped(s string) *widget.Label {
	l := widget.NewLabel(s)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// SplitThinking cuts a reply at its last </think> into the draft (between
// <think> and </think>, newlines trimmed) and the answer after it. A reply
// still inside its block (stopped, or out of tokens) is all draft.
func SplitThinking(reply string) (thinking, answer string) {
	i := strings.LastIndex(reply, "</think>")
	if i < 0 {
		if j := strings.Index(reply, "<think>"); j >= 0 {
			return strings.Trim(reply[j+len("<think>"):], "\n"), ""
		}
		return "", reply
	}
	draft := reply[:i]
	if j := strings.LastIndex(draft, "<think>"); j >= 0 {
		draft = draft[j+len("<think>"):]
	}
	return strings.Trim(draft, "\n"), strings.TrimLeft(reply[i+len("</think>"):], "\n")
}

// ThinkingLine says what the draft cost, in the article's words: the
// thinking tokens and their seconds against the answer alone, or "" for
// a run without thinking.
func ThinkingLine(t trace.Timing) string {
	if t.ThinkingTokens == 0 {
		return ""
	}
	answer, answerS := t.DecodeTokens-t.ThinkingTokens, t.DecodeSeconds-t.ThinkingSeconds
	s := tr("views.chat.thinking", i18n.Args{"N": thousands(t.ThinkingTokens), "Time": nums().Duration(t.ThinkingSeconds)})
	if answer > 0 && answerS > 0 {
		s += tr("views.chat.think_ratio", i18n.Args{"X": nums().Fixed(t.ThinkingSeconds/answerS, 0),
			"N": thousands(answer), "Time": nums().Duration(answerS)})
	} else {
		s += tr("views.chat.all_draft", nil)
	}
	return s
}

// chatColors restyles a chip for chat: control tokens (<|im_start|>,
// <|im_end|>, <think>…) in the success colour, the draft between <think>
// and </think> dimmed.
func chatColors(th fyne.Theme, v fyne.ThemeVariant, tok trace.Token, fill, stroke, text color.Color) (color.Color, color.Color, color.Color) {
	if tok.Special {
		fill = withAlpha(th.Color(theme.ColorNameSuccess, v), 0x50)
		stroke = th.Color(theme.ColorNameSuccess, v)
	}
	if tok.Thinking && !tok.Special {
		fill = withAlpha(fill, 0x20)
		stroke = withAlpha(stroke, 0x70)
		text = th.Color(theme.ColorNameDisabled, v)
	}
	return fill, stroke, text
}

// TurnRows is the number of rows the turn list shows (tests).
func (c *ChatPanel) TurnRows() int { return len(c.turns.Objects) }
