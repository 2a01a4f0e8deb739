package lesson

import (
	"fmt"
	"strings"

	"loupe/format"
	"loupe/trace"
	"loupe/trace/stats"
)

// TokensFigures: the prompt's tokens and the vocabulary.
type TokensFigures struct {
	Count       int      `json:"count"`
	IDs         []int    `json:"ids"`
	Texts       []string `json:"texts"`
	Vocab       int      `json:"vocab"`
	ChatSpecial []string `json:"chat_special"`
}

func tokensChapter(f *facts) Chapter {
	fig := TokensFigures{Count: len(f.prompt), IDs: []int{}, Texts: []string{}, Vocab: f.info.Vocab,
		ChatSpecial: append([]string{}, f.in.ChatSpecial...)}
	for _, t := range f.prompt {
		fig.IDs = append(fig.IDs, t.ID)
		fig.Texts = append(fig.Texts, t.Text)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The text is first cut into tokens: %s here (%s). ", format.Thousands(int64(fig.Count)), listTokens(f.prompt, 8))
	fmt.Fprintf(&b, "Each one is a number in a vocabulary of %s tokens: %s. ", format.Thousands(int64(fig.Vocab)), listIDs(fig.IDs, 8))
	if len(fig.ChatSpecial) > 0 {
		fmt.Fprintf(&b, "In a chat, the template also wraps every message in control tokens the user never types: %s.",
			strings.Join(fig.ChatSpecial, " "))
	} else {
		b.WriteString("This is a base model: it has no chat template, it continues the text as it is.")
	}
	return Chapter{ID: Tokens, Title: "Text becomes tokens", Text: b.String(), Figures: fig,
		Show: Show{Tab: "Model", Query: f.query, Source: -1, Layer: -1, Head: -1}}
}

// listTokens quotes the first n tokens, "…" for the rest.
func listTokens(ts []trace.Token, n int) string {
	var parts []string
	for _, t := range ts[:min(n, len(ts))] {
		parts = append(parts, tok(t.Text))
	}
	if len(ts) > n {
		parts = append(parts, "…")
	}
	return strings.Join(parts, " ")
}

func listIDs(ids []int, n int) string {
	var parts []string
	for _, id := range ids[:min(n, len(ids))] {
		parts = append(parts, fmt.Sprint(id))
	}
	s := strings.Join(parts, ", ")
	if len(ids) > n {
		s += fmt.Sprintf(" and %d more", len(ids)-n)
	}
	return s
}

// EmbeddingFigures: the source token's row of the embedding table.
type EmbeddingFigures struct {
	Pos    int       `json:"pos"`
	ID     int       `json:"id"`
	Text   string    `json:"text"`
	Rows   int       `json:"rows"`
	Dims   int       `json:"dims"`
	First  []float32 `json:"first"`
	Tied   bool      `json:"tied"`
	Layers int       `json:"layers"`
}

func embeddingChapter(f *facts) Chapter {
	p := f.source
	row := f.in.Inspect.Embedding
	if f.in.SourceRow != nil {
		row = f.in.SourceRow(f.prompt[p].ID)
	} else {
		p = f.query
	}
	fig := EmbeddingFigures{Pos: p, ID: f.prompt[p].ID, Text: f.prompt[p].Text, Rows: f.info.Vocab,
		Dims: len(row), First: row[:min(6, len(row))], Tied: f.info.TiedEmbeddings, Layers: f.info.Layers}
	text := fmt.Sprintf("Each token is replaced by one row of a large learned table, the embedding table: %s rows of %s numbers. "+
		"%s becomes %s… %s numbers. From here on the model never sees words again, only these lists of numbers, "+
		"and each list goes through the %d layers, every layer adding its changes to it.",
		format.Thousands(int64(fig.Rows)), format.Thousands(int64(fig.Dims)), tok(fig.Text), numbers(fig.First),
		format.Thousands(int64(fig.Dims)), fig.Layers)
	return Chapter{ID: Embedding, Title: "Tokens become lists of numbers", Text: text, Figures: fig,
		Show: Show{Tab: "Embedding", Query: p, Source: -1, Layer: -1, Head: -1}}
}

func numbers(xs []float32) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%.3f", x))
	}
	return strings.Join(parts, ", ")
}

// AttentionFigures: one head fetching the source from the last prompt
// token. Positions, layer and head are 0-based.
type AttentionFigures struct {
	QueryPos   int     `json:"query_pos"`
	SourcePos  int     `json:"source_pos"`
	Layer      int     `json:"layer"`
	Head       int     `json:"head"`
	Share      float32 `json:"share"`
	Query      string  `json:"query"`
	Source     string  `json:"source"`
	SourceWhy  string  `json:"source_why"` // "top-1" or "strongest"
	Heads      int     `json:"heads"`
	KVHeads    int     `json:"kv_heads"`
	HeadDim    int     `json:"head_dim"`
	AttnLayers int     `json:"attention_layers"`
}

func attentionChapter(f *facts) Chapter {
	nAttn, _ := f.attentionLayers()
	fig := AttentionFigures{QueryPos: f.query, SourcePos: f.source, Layer: f.layer, Head: f.head, Share: f.share,
		Query: f.tokenText(f.query), Source: f.tokenText(f.source), SourceWhy: f.sourceWhy,
		Heads: f.info.Heads, KVHeads: f.info.KVHeads, HeadDim: f.info.HeadDim, AttnLayers: nAttn}
	var b strings.Builder
	fmt.Fprintf(&b, "Attention is where a token takes information from the others, through %d heads per layer; "+
		"%d query heads share %s, of %d numbers each. ", fig.Heads, fig.Heads, kvHeads(fig.KVHeads), fig.HeadDim)
	if fig.AttnLayers < f.info.Layers {
		fmt.Fprintf(&b, "Only %d of the %d layers have attention; the others are Gated DeltaNet layers, which keep a fixed summary of the text instead. ",
			fig.AttnLayers, f.info.Layers)
	}
	if fig.Layer < 0 {
		b.WriteString("No head of this run has an attention map.")
	} else {
		fmt.Fprintf(&b, "From the last token %s, %s, %s looks at %s %s, %s earlier. ", tok(fig.Query),
			f.count.Layer(fig.Layer), f.count.Head(fig.Head), tok(fig.Source), format.Percent(float64(fig.Share)),
			tokensAgo(fig.QueryPos-fig.SourcePos))
		if fig.SourceWhy == "top-1" {
			fmt.Fprintf(&b, "It is the word the model is about to write: it found it in the prompt, nobody told it to look there.")
		} else {
			fmt.Fprintf(&b, "%s is the token, after the first, that the heads look at most from %s.", tok(fig.Source), tok(fig.Query))
		}
	}
	return Chapter{ID: Attention, Title: "One head fetches a word", Text: b.String(), Figures: fig,
		Show: Show{Tab: "Attention", Query: f.query, Source: f.source, Layer: f.layer, Head: f.head}}
}

func kvHeads(n int) string {
	if n == 1 {
		return "1 K/V head"
	}
	return fmt.Sprintf("%d K/V heads", n)
}

func tokensAgo(n int) string {
	if n == 1 {
		return "1 token"
	}
	return fmt.Sprintf("%d tokens", n)
}

// GridFigures: per layer, the mean over heads of the attention on the
// source (null for a layer without attention map).
type GridFigures struct {
	SourcePos  int        `json:"source_pos"`
	LayerMeans []*float64 `json:"layer_means"`
	PeakLayer  int        `json:"peak_layer"`
	PeakMean   float64    `json:"peak_mean"`
	// FirstAbove5 is the first layer whose mean reaches 5 % (-1: none).
	FirstAbove5 int `json:"first_above_5"`
}

func gridChapter(f *facts) Chapter {
	fig := GridFigures{SourcePos: f.source, PeakLayer: -1, FirstAbove5: -1}
	for l, m := range f.layerMeans {
		fig.LayerMeans = append(fig.LayerMeans, finite(m))
		if finite(m) == nil {
			continue
		}
		if fig.PeakLayer < 0 || m > fig.PeakMean {
			fig.PeakLayer, fig.PeakMean = l, m
		}
		if fig.FirstAbove5 < 0 && m >= 0.05 {
			fig.FirstAbove5 = l
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The grid shows every head of every layer looking from %s at %s; the curve beside it is the mean of the %d heads of each layer. ",
		tok(f.tokenText(f.query)), tok(f.tokenText(f.source)), f.info.Heads)
	switch {
	case fig.PeakLayer < 0:
		b.WriteString("No layer has an attention map.")
	case fig.FirstAbove5 < 0:
		fmt.Fprintf(&b, "The mean stays under 5 %% in every layer; its highest is %s at %s. ", format.Percent(fig.PeakMean), f.count.Layer(fig.PeakLayer))
	case f.lastMeanBefore(fig.FirstAbove5) < 0:
		fmt.Fprintf(&b, "Already %s at %s, it reaches %s at %s. ", format.Percent(f.layerMeans[fig.FirstAbove5]), f.count.Layer(fig.FirstAbove5),
			format.Percent(fig.PeakMean), f.count.Layer(fig.PeakLayer))
	default:
		fmt.Fprintf(&b, "Up to %s it stays under 5 %%, then it rises, up to %s at %s. ", f.count.Layer(f.lastMeanBefore(fig.FirstAbove5)),
			format.Percent(fig.PeakMean), f.count.Layer(fig.PeakLayer))
	}
	if _, without := f.attentionLayers(); len(without) > 0 {
		fmt.Fprintf(&b, "The %d Gated DeltaNet layers have no attention map: their rows are empty.", len(without))
	}
	return Chapter{ID: Grid, Title: "Where the model finds it: layers × heads", Text: b.String(), Figures: fig,
		Question: fmt.Sprintf("In which layer do the heads find %s first?", tok(f.tokenText(f.source))),
		Show:     Show{Tab: "Attention", Query: f.query, Source: f.source, Layer: fig.PeakLayer, Head: -1}}
}

// lastMeanBefore is the last layer below l with an attention map, -1 if
// there is none.
func (f *facts) lastMeanBefore(l int) int {
	for k := l - 1; k >= 0; k-- {
		if finite(f.layerMeans[k]) != nil {
			return k
		}
	}
	return -1
}

// sinkLarge is the mean share from which the text calls the first token
// a sink (the article's model: 43 %).
const sinkLarge = 0.2

// SinkFigures: the mean share of every head on the first token.
type SinkFigures struct {
	MeanShare float64 `json:"mean_share"`
	First     string  `json:"first"`
}

func sinkChapter(f *facts) Chapter {
	fig := SinkFigures{MeanShare: stats.SinkShare(f.attn), First: f.tokenText(0)}
	text := fmt.Sprintf("On average over every layer and head, %s gives %s of its attention to the very first token, %s. ",
		tok(f.tokenText(f.query)), format.Percent(fig.MeanShare), tok(fig.First))
	if fig.MeanShare >= sinkLarge {
		text += "Researchers call it an attention sink: the first token draws a large share even when it carries nothing useful, " +
			"a resting point for heads that have nothing to fetch."
	} else {
		text += "In many models the first token draws a large share even when it carries nothing useful, a resting point " +
			"researchers call an attention sink; this model leans on it little."
	}
	return Chapter{ID: Sink, Title: "The attention sink", Text: text, Figures: fig,
		Show: Show{Tab: "Attention", Query: f.query, Source: 0, Layer: -1, Head: -1}}
}

// KVFigures: the size of the KV cache against the weights.
type KVFigures struct {
	LayersWithKV    int   `json:"layers_with_kv"`
	KVHeads         int   `json:"kv_heads"`
	HeadDim         int   `json:"head_dim"`
	BytesPerElement int   `json:"bytes_per_element"`
	NumbersPerToken int64 `json:"numbers_per_token"`
	BytesPerToken   int64 `json:"bytes_per_token"` // Loupe's fp32 cache
	// BytesPerTokenBF16 is the same cache in bf16, as most engines and the
	// article keep it.
	BytesPerTokenBF16 int64   `json:"bytes_per_token_bf16"`
	BytesAt4096       int64   `json:"bytes_at_4096"`
	BytesAt32000      int64   `json:"bytes_at_32000"`
	WeightBytes       int64   `json:"weight_bytes_per_token"`
	StateBytes        int64   `json:"state_bytes"`
	Share32000        float64 `json:"share_of_weights_at_32000"`
}

// kvBytesPerElement: Loupe keeps keys and values as 32-bit floats
// (stats.KVSizesOf).
const kvBytesPerElement = 4

func kvChapter(f *facts) Chapter {
	nKV, without := f.attentionLayers()
	fig := KVFigures{LayersWithKV: nKV, KVHeads: f.info.KVHeads, HeadDim: f.info.HeadDim, BytesPerElement: kvBytesPerElement,
		WeightBytes: f.info.WeightBytesPerTok, StateBytes: f.info.StateBytes}
	kv := stats.KVSizesOf(f.info)
	fig.NumbersPerToken, fig.BytesPerToken, fig.BytesPerTokenBF16 = kv.Numbers, kv.BytesF32, kv.BytesBF
	fig.BytesAt4096, fig.BytesAt32000 = 4096*fig.BytesPerToken, 32000*fig.BytesPerToken
	if fig.WeightBytes > 0 {
		fig.Share32000 = float64(fig.BytesAt32000) / float64(fig.WeightBytes)
	}
	var b strings.Builder
	b.WriteString("Once computed, a token's key and value never change, so the engine keeps them: the KV cache, one more row per token. ")
	fmt.Fprintf(&b, "Here that is 2 × %d layers × %s × %d numbers = %s numbers per token, %s in 32-bit floats; "+
		"%s at 4,096 tokens and %s at 32,000, read again for every token written, next to %s of weights. ",
		nKV, kvHeads(fig.KVHeads), fig.HeadDim, format.Thousands(fig.NumbersPerToken), format.Bytes(float64(fig.BytesPerToken)),
		format.Bytes(float64(fig.BytesAt4096)), format.Bytes(float64(fig.BytesAt32000)), format.Bytes(float64(fig.WeightBytes)))
	if len(without) > 0 {
		fmt.Fprintf(&b, "Only %d of the %d layers keep one: the other %d are Gated DeltaNet layers, which fold every token into a fixed state of %s that does not grow with the text.",
			nKV, f.info.Layers, len(without), format.Bytes(float64(fig.StateBytes)))
	} else {
		b.WriteString("The longer the conversation, the more each new token costs.")
	}
	return Chapter{ID: KVCache, Title: "The KV cache", Text: b.String(), Figures: fig,
		Show: Show{Tab: "KV cache", Query: f.query, Source: -1, Layer: f.layer, Head: f.head}}
}

// MLPFigures: the MLP values of the query at the head's layer; counts
// and maximum are of |value|.
type MLPFigures struct {
	Layer     int     `json:"layer"`
	Count     int     `json:"count"`
	MedianAbs float64 `json:"median_abs"`
	Over05    int     `json:"over_0_5"`
	Over1     int     `json:"over_1"`
	Max       float32 `json:"max"` // float32 as the engine's values, printed as inspect prints them
	Params    int64   `json:"params_mlp"`
	Total     int64   `json:"params_total"`
}

// mlpLayer is the layer the MLP chapter looks at: the head's, else the
// last.
func (f *facts) mlpLayer() int {
	if f.layer >= 0 {
		return f.layer
	}
	return len(f.in.Inspect.MLP) - 1
}

func mlpChapter(f *facts) Chapter {
	l := f.mlpLayer()
	var vals []float32
	if l >= 0 && l < len(f.in.Inspect.MLP) {
		vals = f.in.Inspect.MLP[l].Values
	}
	s := stats.SummarizeMLP(vals)
	_, total, _ := stats.OutputReadShare(f.info)
	fig := MLPFigures{Layer: l, Count: s.N, Over05: s.Above05, Over1: s.Above1, Params: f.info.ParamsMLP, Total: total}
	fig.MedianAbs, fig.Max = stats.OrZero(s.MedianAbs), float32(stats.OrZero(s.MaxAbs))
	if f.info.Experts > 0 {
		text := fmt.Sprintf("The second step of each layer works on each token alone: the MLP. In this model it is split into %d experts "+
			"per layer, and each token runs only %d of them (the last chapter). The MLPs hold %s of the model's %s parameters.",
			f.info.Experts, f.info.ExpertsPerToken, format.Count(fig.Params), format.Count(fig.Total))
		return Chapter{ID: MLP, Title: "The token alone: the MLP", Text: text, Figures: fig,
			Show: Show{Tab: "Experts", Query: f.query, Source: -1, Layer: -1, Head: -1}}
	}
	text := fmt.Sprintf("The second step of each layer works on each token alone: the MLP, %s pairs of learned directions; "+
		"in each pair one acts as a valve on the other. For %s in %s, half of the %s values are under %s in size, "+
		"%s exceed 0.5, %s exceed 1, and the largest is %s. The MLPs hold %s of the model's %s parameters.",
		format.Thousands(int64(f.info.Intermediate)), tok(f.tokenText(f.query)), f.count.Layer(l), format.Thousands(int64(fig.Count)),
		fmt.Sprintf("%.2g", fig.MedianAbs), format.Thousands(int64(fig.Over05)), format.Thousands(int64(fig.Over1)),
		fmt.Sprintf("%.2g", fig.Max), format.Count(fig.Params), format.Count(fig.Total))
	return Chapter{ID: MLP, Title: "The token alone: the MLP", Text: text, Figures: fig,
		Show: Show{Tab: "MLP", Query: f.query, Source: -1, Layer: l, Head: -1}}
}
