package lesson

import (
	"errors"
	"slices"

	"loupe/engine/chat"
	"loupe/engine/tokenizer"
	"loupe/trace"
	"loupe/trace/stats"
)

// InspectionFromRun is the last prompt token as the run captured it: its
// attention row and its MLP values of every layer, for the window, whose
// panels show the run's own captures. row gives the token's embedding
// row (nil: none).
func InspectionFromRun(r *trace.Run, row func(id int) []float32) (*trace.Inspection, error) {
	q := stats.PromptLen(r) - 1
	if q < 0 {
		return nil, errors.New("the run has no prompt token")
	}
	a, ok := stats.AttentionAt(r.Attention, q)
	if !ok {
		return nil, errors.New("the run kept no attention of its last prompt token")
	}
	in := &trace.Inspection{Pos: q, Token: r.Tokens[q], Attention: a, Tied: r.Model.TiedEmbeddings, EmbeddingRows: r.Model.Vocab}
	for _, m := range r.MLP {
		if m.Pos == q {
			in.MLP = append(in.MLP, m)
		}
	}
	slices.SortFunc(in.MLP, func(a, b trace.MLP) int { return a.Layer - b.Layer })
	// A mixture of experts has no one MLP activation per layer (each
	// token's is spread over its k experts): its lesson does without.
	if len(in.MLP) != r.Model.Layers && r.Model.Experts == 0 {
		return nil, errors.New("the run kept no MLP values of every layer at its last prompt token")
	}
	if row != nil {
		in.Embedding = row(in.Token.ID)
	}
	return in, nil
}

// ChatModel is what ChatSpecials reads; *engine.Model has it.
type ChatModel interface {
	ChatTemplate() (*chat.Template, error)
	RenderChat(msgs []chat.Message, think chat.Think) (string, []int, error)
	Tokenizer() *tokenizer.Tokenizer
	TokenText(id int) string
}

// ChatSpecials lists the control tokens the model's chat template wraps a
// user's message in, and whether it has a thinking switch; none for a
// base model.
func ChatSpecials(m ChatModel) (specials []string, thinking bool) {
	tpl, err := m.ChatTemplate()
	if err != nil {
		return nil, false
	}
	_, ids, err := m.RenderChat([]chat.Message{{Role: "user", Content: "x"}}, chat.ThinkDefault)
	if err != nil {
		return nil, tpl.HasThinking()
	}
	for _, id := range ids {
		if s := m.TokenText(id); m.Tokenizer().IsAdded(id) && !slices.Contains(specials, s) {
			specials = append(specials, s)
		}
	}
	return specials, tpl.HasThinking()
}
