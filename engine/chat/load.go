package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrNoTemplate is returned by FromDir for a folder without a chat
// template (a base model): prompts are then plain text.
var ErrNoTemplate = errors.New("no chat template")

// File names a model folder may carry a template in. transformers reads
// chat_template.jinja first and falls back on tokenizer_config.json.
const (
	JinjaFile           = "chat_template.jinja"
	TokenizerConfigFile = "tokenizer_config.json"
)

// FromDir reads the chat template of a model folder: chat_template.jinja
// when present, else tokenizer_config.json's chat_template. The special
// tokens of tokenizer_config.json (bos_token, eos_token) become template
// variables either way.
func FromDir(dir string) (*Template, error) {
	cfgPath := filepath.Join(dir, TokenizerConfigFile)
	cfg, err := os.ReadFile(cfgPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", cfgPath, err)
	}
	jinjaPath := filepath.Join(dir, JinjaFile)
	src, err := os.ReadFile(jinjaPath)
	switch {
	case err == nil:
		t, err := Parse(string(src))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", jinjaPath, err)
		}
		if cfg != nil {
			if t.vars, err = tokenVars(cfg); err != nil {
				return nil, fmt.Errorf("%s: %w", cfgPath, err)
			}
		}
		return t, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", jinjaPath, err)
	case cfg == nil:
		return nil, fmt.Errorf("%s: %w", dir, ErrNoTemplate)
	}
	t, err := ParseTokenizerConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfgPath, err)
	}
	return t, nil
}

// SourceFromDir is the text of a model folder's chat template, found as
// FromDir finds it (a converter copies it into a GGUF file's
// tokenizer.chat_template); ErrNoTemplate when the folder has none.
func SourceFromDir(dir string) (string, error) {
	if src, err := os.ReadFile(filepath.Join(dir, JinjaFile)); err == nil {
		return string(src), nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	cfg, err := os.ReadFile(filepath.Join(dir, TokenizerConfigFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", dir, ErrNoTemplate)
	} else if err != nil {
		return "", err
	}
	var c struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
	}
	if err := json.Unmarshal(cfg, &c); err != nil {
		return "", fmt.Errorf("%s: %w: %v", TokenizerConfigFile, ErrTemplate, err)
	}
	return templateSource(c.ChatTemplate)
}

// ParseTokenizerConfig reads the template of tokenizer_config.json bytes.
// chat_template is a string, or a list of {"name", "template"} of which
// the one named "default" is used (as transformers does). A config
// without one returns ErrNoTemplate.
func ParseTokenizerConfig(data []byte) (*Template, error) {
	var c struct {
		ChatTemplate json.RawMessage `json:"chat_template"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTemplate, err)
	}
	src, err := templateSource(c.ChatTemplate)
	if err != nil {
		return nil, err
	}
	t, err := Parse(src)
	if err != nil {
		return nil, err
	}
	if t.vars, err = tokenVars(data); err != nil {
		return nil, err
	}
	return t, nil
}

// templateSource picks the template text out of the chat_template value.
func templateSource(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", ErrNoTemplate
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var named []struct {
		Name     string `json:"name"`
		Template string `json:"template"`
	}
	if err := json.Unmarshal(raw, &named); err != nil {
		return "", fmt.Errorf("%w: chat_template is neither a string nor a list of {name, template}", ErrTemplate)
	}
	var names []string
	for _, n := range named {
		if n.Name == "default" {
			return n.Template, nil
		}
		names = append(names, n.Name)
	}
	return "", fmt.Errorf("%w: chat_template lists %q but none named \"default\"", ErrTemplate, names)
}

// tokenVars returns bos_token and eos_token of tokenizer_config.json, each
// a string or an AddedToken object {"content": …}; absent or null ones
// are left out (undefined in the template).
func tokenVars(data []byte) (map[string]any, error) {
	var c map[string]json.RawMessage
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrTemplate, err)
	}
	vars := map[string]any{}
	for _, key := range []string{"bos_token", "eos_token", "pad_token", "unk_token"} {
		raw, ok := c[key]
		if !ok || string(raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			vars[key] = s
			continue
		}
		var obj struct {
			Content *string `json:"content"`
		}
		if err := json.Unmarshal(raw, &obj); err != nil || obj.Content == nil {
			return nil, fmt.Errorf("%w: %s is neither a string nor {\"content\": …}", ErrTemplate, key)
		}
		vars[key] = *obj.Content
	}
	return vars, nil
}
