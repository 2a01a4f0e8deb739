package engine

// Chat mode, for every architecture: the folder's chat template renders a
// conversation into the prompt (engine/chat), generation stops on the
// end-of-turn ids, the KV cache keeps the prefix a new turn shares with
// the previous one, and every token is flagged special (an added control
// token) and thinking (inside <think>…</think>).

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"loupe/engine/chat"
	"loupe/engine/tokenizer"
	"loupe/kernels"
	"loupe/trace"
)

// chatSetup is read from the model folder on first use.
type chatSetup struct {
	once    sync.Once
	tmpl    *chat.Template // nil: no template (a base model) or a broken one
	err     error          // why tmpl is nil
	presets []chat.Preset
}

func (m *Model) chatFiles() *chatSetup {
	c := &m.chat
	c.once.Do(func() {
		if _, ok := ggufPath(m.info.Path); ok && m.info.Path != "" {
			c.tmpl, c.err = m.ggufTemplate()
			return
		}
		dir, err := modelDir(m.info.Path)
		if m.info.Path == "" {
			dir, err = "", fmt.Errorf("%w: model built in memory", chat.ErrNoTemplate)
		}
		if err != nil {
			c.err = err
			return
		}
		c.tmpl, c.err = chat.FromDir(dir)
		if p, ok, err := chat.ReadGenerationPreset(dir); err == nil && ok {
			c.presets = append(c.presets, p)
		}
		if c.tmpl != nil && c.tmpl.HasThinking() {
			c.presets = append(c.presets, chat.Qwen3CardPresets...)
		}
	})
	return c
}

// ggufTemplate is the template of a GGUF file (tokenizer.chat_template),
// its bos_token and eos_token the pieces of the file's BOS and first stop
// id.
func (m *Model) ggufTemplate() (*chat.Template, error) {
	return ggufTemplateOf(m.info.Path, m.tok, m.eos)
}

func ggufTemplateOf(path string, tok *tokenizer.Tokenizer, eos []int) (*chat.Template, error) {
	src := tok.ChatTemplate()
	if src == "" {
		return nil, fmt.Errorf("%s: no tokenizer.chat_template: %w", path, chat.ErrNoTemplate)
	}
	t, err := chat.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("%s: tokenizer.chat_template: %w", path, err)
	}
	vars := map[string]string{}
	if bos, _ := tok.BOS(); bos >= 0 {
		vars["bos_token"] = tok.Piece(bos)
	}
	if len(eos) > 0 {
		vars["eos_token"] = tok.Piece(eos[0])
	}
	return t.WithTokens(vars), nil
}

// GGUFChatTemplate reads the chat template of a GGUF file
// (tokenizer.chat_template) without loading its weights; a file without
// one gives an error wrapping chat.ErrNoTemplate.
func GGUFChatTemplate(path string) (_ *chat.Template, err error) {
	defer recoverError(&err)
	tok, eos, err := ggufVocabOnly(path)
	if err != nil {
		return nil, err
	}
	return ggufTemplateOf(path, tok, eos)
}

// IsGGUF reports whether path names a GGUF model (a .gguf file, or a
// folder holding one and no config.json).
func IsGGUF(path string) bool {
	_, ok := ggufPath(path)
	return ok
}

// ChatTemplate returns the folder's chat template. A folder without one
// (a base model) gives an error wrapping chat.ErrNoTemplate; a template
// that does not parse, its message.
func (m *Model) ChatTemplate() (*chat.Template, error) {
	c := m.chatFiles()
	return c.tmpl, c.err
}

// SamplingPresets lists the folder's sampling defaults
// (generation_config.json) and, for thinking templates, the Qwen3 model
// card's recommendations. May be empty.
func (m *Model) SamplingPresets() []chat.Preset { return slices.Clone(m.chatFiles().presets) }

// RenderChat renders msgs with the generation prompt and encodes the text
// as the reference does (added tokens matched in the rendered text).
func (m *Model) RenderChat(msgs []chat.Message, think chat.Think) (string, []int, error) {
	t, err := m.ChatTemplate()
	if err != nil {
		return "", nil, err
	}
	if m.tok == nil {
		return "", nil, fmt.Errorf("%w: model has no tokenizer", ErrSettings)
	}
	text, err := t.Render(msgs, chat.Options{AddGenerationPrompt: true, Think: think})
	if err != nil {
		return "", nil, err
	}
	// as apply_chat_template (add_special_tokens=False): the BOS is the
	// template's to write ({{ bos_token }}), the tokenizer adds none
	return text, m.tok.EncodeTemplate(text), nil
}

// GenerateChat writes the assistant's next turn after msgs: Generate on
// the rendered conversation, reusing the KV cache for the prefix it
// shares with the previous generation (opt.ReuseCache is set), and
// stopping on the end-of-turn ids (opt.EOS, else generation_config.json's,
// plus the template's <|im_end|> when the tokenizer has it).
func (m *Model) GenerateChat(ctx context.Context, msgs []chat.Message, think chat.Think, opt GenerateOptions, onEvent func(Event)) (_ *trace.Run, err error) {
	defer recoverError(&err)
	text, ids, err := m.RenderChat(msgs, think)
	if err != nil {
		return nil, err
	}
	opt.ReuseCache = true
	if opt.EOS == nil {
		opt.EOS = m.chatStops()
	}
	run, err := m.generate(ctx, text, ids, opt, onEvent)
	if err != nil {
		return nil, err
	}
	run.Messages = slices.Clone(msgs)
	run.Think = map[chat.Think]string{chat.ThinkOn: "on", chat.ThinkOff: "off"}[think]
	return run, nil
}

// chatStops is the model's stop ids plus the end of a ChatML turn.
func (m *Model) chatStops() []int {
	stops := slices.Clone(m.eos)
	if id, ok := m.tok.TokenID("<|im_end|>"); ok && m.tok.IsAdded(id) && !slices.Contains(stops, id) {
		stops = append(stops, id)
	}
	return stops
}

// Reply is the text the model wrote in run, without the end-of-turn token:
// the content of the assistant message that continues the chat (think
// block included; the template decides what to keep of it).
func (m *Model) Reply(run *trace.Run) string {
	var ids []int
	for _, t := range run.Tokens {
		if t.Generated {
			ids = append(ids, t.ID)
		}
	}
	if run.StopReason == "eos" && len(ids) > 0 {
		ids = ids[:len(ids)-1]
	}
	return m.tok.Decode(ids)
}

// isSpecial: an added token (control tokens such as <|im_start|>, and
// Qwen3's <think>, which the tokenizer marks special=false but which is no
// more text than <|im_end|> is).
func (m *Model) isSpecial(id int) bool { return m.tok != nil && m.tok.IsAdded(id) }

// thinkTracker flags the tokens of <think>…</think> blocks, markers
// included, as they go by; open and close are -1 when the tokenizer has
// no such added tokens (Qwen2.5: "<think>" is three ordinary tokens).
type thinkTracker struct {
	open, close int
	in          bool
}

func (m *Model) newThinkTracker() thinkTracker {
	t := thinkTracker{open: -1, close: -1}
	if m.tok == nil {
		return t
	}
	o, ok1 := m.tok.TokenID("<think>")
	c, ok2 := m.tok.TokenID("</think>")
	if ok1 && ok2 && m.tok.IsAdded(o) && m.tok.IsAdded(c) {
		t.open, t.close = o, c
	}
	return t
}

// next reports whether id is thinking, the state carried from the prompt
// (Qwen3.5's template opens the block in the prompt itself).
func (t *thinkTracker) next(id int) bool {
	switch {
	case t.open < 0:
		return false
	case id == t.open:
		t.in = true
		return true
	case id == t.close:
		t.in = false
		return true
	}
	return t.in
}

// kvContents records which token ids the KV cache holds at positions
// 0…len(ids)-1, and the kernel level that computed them (another level
// rounds differently, so its keys would not be the ones a fresh prompt
// gets).
type kvContents struct {
	ids    []int
	level  kernels.Level
	arith  string // kernels.Arithmetic: the bf16 level computes other keys under exact
	broken bool   // a forward call left a gap: nothing known until position 0 again
}

// overwrite notes that a forward call writes positions pos0 and above.
func (c *kvContents) overwrite(pos0 int) {
	if pos0 == 0 {
		c.broken = false
	}
	if l, a := kernels.Active(), kernels.Arithmetic(); l != c.level || a != c.arith {
		c.ids, c.level, c.arith, c.broken = c.ids[:0], l, a, pos0 > 0
	}
	if pos0 > len(c.ids) {
		c.broken = true
	}
	if c.broken {
		c.ids = c.ids[:0]
		return
	}
	c.ids = c.ids[:pos0]
}

// wrote notes that the call stored tokens' keys and values.
func (c *kvContents) wrote(tokens []int) {
	if !c.broken {
		c.ids = append(c.ids, tokens...)
	}
}

// failed notes a forward call that stopped part-way (cancelled between
// layers): a recurrent state (Qwen3.5's DeltaNet) is then half advanced.
func (c *kvContents) failed() { c.broken, c.ids = true, c.ids[:0] }

// reusablePrefix is how many leading prompt positions keep their cached
// keys and values: the prefix shared with the cache, short of the last
// prompt token (whose logits are needed) and of the first prompt position
// named in Attn.Positions. Attn.AllPrompt and MLP captures get the
// positions read, those after the prefix. A model with a recurrent state
// (m.info.StateBytes > 0) cannot rewind it: it reuses the cache only when
// the new prompt extends everything it holds.
func (m *Model) reusablePrefix(ids []int, opt GenerateOptions) int {
	c := &m.kv
	if c.broken || c.level != kernels.Active() || c.arith != kernels.Arithmetic() ||
		len(opt.Ablate) > 0 || len(opt.DisableExperts) > 0 || opt.TopKExperts > 0 {
		// The cache holds the whole model's keys and values (a run with heads
		// or experts switched off leaves it broken): a run without those heads
		// or experts must compute its own from the first changed layer.
		return 0
	}
	n := 0
	for n < len(c.ids) && n < len(ids)-1 && c.ids[n] == ids[n] {
		n++
	}
	for _, p := range opt.Attn.Positions {
		n = min(n, p)
	}
	if m.info.StateBytes > 0 && n < len(c.ids) {
		return 0
	}
	return n
}
