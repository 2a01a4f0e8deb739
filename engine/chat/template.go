// Package chat renders a conversation into the prompt text an instruct
// model was trained on, with the Jinja chat template its folder ships
// (tokenizer_config.json "chat_template", or chat_template.jinja), exactly
// as transformers' apply_chat_template renders it (docs/spec/tokenizer.md §7,
// docs/spec/qwen3.md §5).
//
// Rendering is github.com/ardanlabs/jinja: a pure-Go Jinja written for
// chat templates, without dependencies. The tests prove it on the shipped
// Qwen2.5-Instruct and Qwen3 templates against strings and ids derived
// from the templates' rules.
package chat

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ardanlabs/jinja"

	"loupe/trace"
)

// ErrTemplate is wrapped by every error about a template or its config.
var ErrTemplate = errors.New("chat template")

// Roles of a conversation.
const (
	System    = "system"
	User      = "user"
	Assistant = "assistant"
)

// Message is one turn (role System, User or Assistant). An assistant
// turn's Content is the model's raw output, think block included: the
// template decides what to re-emit.
type Message = trace.Message

// Think is the enable_thinking variable given to a template.
type Think int

const (
	ThinkDefault Think = iota // variable left undefined: the template's default
	ThinkOn                   // enable_thinking = true
	ThinkOff                  // enable_thinking = false
)

// Options are the template variables besides the messages.
type Options struct {
	AddGenerationPrompt bool  // end with the opening of an assistant turn
	Think               Think // enable_thinking; ignored by templates without it
}

// Template is a compiled chat template. It is safe for concurrent use.
type Template struct {
	Source string // the Jinja text
	tmpl   *jinja.Template
	vars   map[string]any // bos_token, eos_token from tokenizer_config.json
}

// Parse compiles a Jinja chat template.
func Parse(src string) (*Template, error) {
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("%w: empty", ErrTemplate)
	}
	t, err := compile(src)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTemplate, err)
	}
	return &Template{Source: src, tmpl: t, vars: map[string]any{}}, nil
}

// WithTokens sets the special-token variables a template may print
// (bos_token, eos_token, …), as tokenizer_config.json's do; GGUF files
// carry the template alone and their token ids instead.
func (t *Template) WithTokens(vars map[string]string) *Template {
	for k, v := range vars {
		t.vars[k] = v
	}
	return t
}

// compile keeps a panic of the Jinja library on a hostile template from
// escaping as one.
func compile(src string) (t *jinja.Template, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return jinja.Compile(src)
}

// HasThinking reports whether the template reads enable_thinking (Qwen3's
// hybrid thinking switch, docs/spec/qwen3.md §5).
func (t *Template) HasThinking() bool { return strings.Contains(t.Source, "enable_thinking") }

// Render returns the prompt text of msgs.
func (t *Template) Render(msgs []Message, opt Options) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("%w: render: %v", ErrTemplate, r)
		}
	}()
	if len(msgs) == 0 {
		return "", fmt.Errorf("%w: no messages", ErrTemplate)
	}
	if opt.Think == ThinkOn && !t.HasThinking() {
		// Rendering it anyway would record a run "with thinking" that the
		// template never heard of. Off is what such a template does.
		return "", fmt.Errorf("%w: it has no thinking switch (it never reads enable_thinking), so thinking cannot be turned on", ErrTemplate)
	}
	list := make([]any, len(msgs))
	for i, m := range msgs {
		list[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	data := map[string]any{"messages": list, "add_generation_prompt": opt.AddGenerationPrompt}
	for k, v := range t.vars {
		data[k] = v
	}
	switch opt.Think {
	case ThinkOn:
		data["enable_thinking"] = true
	case ThinkOff:
		data["enable_thinking"] = false
	}
	s, err := t.tmpl.Render(data)
	if err != nil {
		return "", fmt.Errorf("%w: render: %v", ErrTemplate, err)
	}
	return s, nil
}
