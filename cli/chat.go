package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"loupe/engine"
	"os"
	"path/filepath"
	"strings"

	"loupe/engine/chat"
	"loupe/engine/tokenizer"
	"loupe/trace"
)

// chatFlags are `--chat [--system TEXT] [--think on|off]`, shared by run
// and tokenize: the prompt (or the text) is the user's turn.
type chatFlags struct {
	chat   bool
	system string
	think  string
}

func (c *chatFlags) register(fs interface {
	BoolVar(*bool, string, bool, string)
	StringVar(*string, string, string, string)
}) {
	fs.BoolVar(&c.chat, "chat", false, "render the text as the user's turn with the model's chat template (tokenizer_config.json or chat_template.jinja)")
	fs.StringVar(&c.system, "system", "", "with --chat: a system message before the user's turn")
	fs.StringVar(&c.think, "think", "", "with --chat: on or off sets the template's enable_thinking (default: the template's own)")
}

// check refuses --system and --think without --chat, and a bad --think.
func (c *chatFlags) check(systemGiven bool) error {
	if !c.chat && (systemGiven || c.think != "") {
		return fmt.Errorf("--system and --think need --chat")
	}
	_, err := parseThink(c.think)
	return err
}

func parseThink(s string) (chat.Think, error) {
	switch s {
	case "":
		return chat.ThinkDefault, nil
	case "on":
		return chat.ThinkOn, nil
	case "off":
		return chat.ThinkOff, nil
	}
	return 0, fmt.Errorf("--think %q (want on or off)", s)
}

// messages is the conversation of one command line: the optional system
// message, then the user's turn.
func (c *chatFlags) messages(userText string, systemGiven bool) []chat.Message {
	var msgs []chat.Message
	if systemGiven {
		msgs = append(msgs, chat.Message{Role: chat.System, Content: c.system})
	}
	return append(msgs, chat.Message{Role: chat.User, Content: userText})
}

// printThinkingSplit ends a chat's summary with decode split into the
// think block and the answer.
func printThinkingSplit(w io.Writer, t trace.Timing) {
	if t.ThinkingTokens == 0 {
		return
	}
	answer, answerS := t.DecodeTokens-t.ThinkingTokens, t.DecodeSeconds-t.ThinkingSeconds
	fmt.Fprintf(w, "  of which thinking %d tokens %.3f s, answer %d tokens %.3f s\n", t.ThinkingTokens, t.ThinkingSeconds, answer, answerS)
}

// chatRequest is one --jsonl line of `tokenize --chat`: a conversation,
// or a text taken as the user's turn.
type chatRequest struct {
	Text                *string        `json:"text"`
	Messages            []chat.Message `json:"messages"`
	Think               string         `json:"think"`                 // "on", "off", "" (template default)
	AddGenerationPrompt *bool          `json:"add_generation_prompt"` // default true
}

func parseChatRequest(line []byte, c *chatFlags, systemGiven bool) ([]chat.Message, chat.Options, error) {
	var req chatRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return nil, chat.Options{}, err
	}
	msgs := req.Messages
	if msgs == nil {
		if req.Text == nil {
			return nil, chat.Options{}, fmt.Errorf(`want "text" or "messages"`)
		}
		msgs = c.messages(*req.Text, systemGiven)
	}
	think := c.think
	if req.Think != "" {
		think = req.Think
	}
	th, err := parseThink(think)
	if err != nil {
		return nil, chat.Options{}, err
	}
	opt := chat.Options{AddGenerationPrompt: req.AddGenerationPrompt == nil || *req.AddGenerationPrompt, Think: th}
	return msgs, opt, nil
}

// tokenizeChat is `tokenize --chat`: the rendered template's ids, as a
// table of the text given (the user's turn) or per --jsonl request.
func tokenizeChat(tok *tokenizer.Tokenizer, model string, c *chatFlags, systemGiven, jsonl bool, text string, textGiven bool, out io.Writer) error {
	tmpl, err := chatTemplate(model)
	if err != nil {
		return err
	}
	if !jsonl {
		if !textGiven {
			data, err := io.ReadAll(tokenizeInput)
			if err != nil {
				return fmt.Errorf("stdin: %w", err)
			}
			text = string(data)
		}
		think, _ := parseThink(c.think)
		rendered, err := tmpl.Render(c.messages(text, systemGiven), chat.Options{AddGenerationPrompt: true, Think: think})
		if err != nil {
			return err
		}
		return tokenizeTable(tok, tok.EncodeTemplate, rendered, true, out)
	}
	r := bufio.NewReader(tokenizeInput)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for n := 1; ; n++ {
		line, err := r.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			msgs, opt, perr := parseChatRequest([]byte(line), c, systemGiven)
			var rendered string
			if perr == nil {
				rendered, perr = tmpl.Render(msgs, opt)
			}
			if perr != nil {
				w.Flush()
				return fmt.Errorf("stdin line %d: %v", n, perr)
			}
			ids := tok.EncodeTemplate(rendered)
			pieces := make([]string, len(ids))
			for i, id := range ids {
				pieces[i] = tok.Piece(id)
			}
			if err := enc.Encode(struct {
				IDs    []int    `json:"ids"`
				Pieces []string `json:"pieces"`
				Text   string   `json:"text"`
			}{ids, pieces, rendered}); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return w.Flush()
		}
		if err != nil {
			return fmt.Errorf("stdin: %w", err)
		}
	}
}

// chatTemplate reads the template of --model's folder (the folder, or
// the folder of a file in it; default the demo model).
func chatTemplate(model string) (*chat.Template, error) {
	if model == "" {
		dir, err := demoModelDir()
		if err != nil {
			return nil, err
		}
		model = dir
	}
	st, err := os.Stat(model)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	dir := model
	if !st.IsDir() {
		dir = filepath.Dir(model)
	}
	var t *chat.Template
	if engine.IsGGUF(model) {
		t, err = engine.GGUFChatTemplate(model)
	} else {
		t, err = chat.FromDir(dir)
	}
	if errors.Is(err, chat.ErrNoTemplate) {
		return nil, fmt.Errorf("--chat: %s has no chat template (tokenizer_config.json chat_template, chat_template.jinja or GGUF tokenizer.chat_template); it is a base model, drop --chat", model)
	}
	return t, err
}
