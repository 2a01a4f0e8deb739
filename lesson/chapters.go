package lesson

import (
	"slices"
	"strconv"
	"strings"

	"loupe/i18n"
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
	b.WriteString(f.t("tokens.cut", i18n.Args{"N": f.num.Thousands(int64(fig.Count)), "List": f.listTokens(f.prompt, 8)}))
	b.WriteString(f.t("tokens.vocab", i18n.Args{"Vocab": f.num.Thousands(int64(fig.Vocab)), "IDs": f.listIDs(fig.IDs, 8)}))
	if len(fig.ChatSpecial) > 0 {
		b.WriteString(f.t("tokens.chat", i18n.Args{"Specials": strings.Join(fig.ChatSpecial, " ")}))
	} else {
		b.WriteString(f.t("tokens.base", nil))
	}
	return Chapter{ID: Tokens, Title: f.t("tokens.title", nil), Text: b.String(), Figures: fig,
		Show: Show{Tab: "Model", Query: f.query, Source: -1, Layer: -1, Head: -1}}
}

// listTokens quotes the first n tokens, "…" for the rest.
func (f *facts) listTokens(ts []trace.Token, n int) string {
	var parts []string
	for _, t := range ts[:min(n, len(ts))] {
		parts = append(parts, f.tok(t.Text))
	}
	if len(ts) > n {
		parts = append(parts, "…")
	}
	return strings.Join(parts, " ")
}

// listIDs writes the first n ids (vocabulary numbers, without
// separators, as the tokenizer's files write them) and how many more.
func (f *facts) listIDs(ids []int, n int) string {
	var parts []string
	for _, id := range ids[:min(n, len(ids))] {
		parts = append(parts, strconv.Itoa(id))
	}
	s := strings.Join(parts, ", ")
	if len(ids) > n {
		s = f.t("ids.more", i18n.Args{"List": s, "N": f.num.Thousands(int64(len(ids) - n))})
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
	text := f.t("embedding.text", i18n.Args{"Rows": f.num.Thousands(int64(fig.Rows)), "Dims": f.num.Thousands(int64(fig.Dims)),
		"Token": f.tok(fig.Text), "First": f.num.FirstNumbers(fig.First, len(fig.First)), "Layers": f.num.Thousands(int64(fig.Layers))})
	return Chapter{ID: Embedding, Title: f.t("embedding.title", nil), Text: text, Figures: fig,
		Show: Show{Tab: "Embedding", Query: p, Source: -1, Layer: -1, Head: -1}}
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
	b.WriteString(f.t("attention.heads", i18n.Args{"Heads": f.num.Thousands(int64(fig.Heads)),
		"KV": f.units("kvhead", fig.KVHeads), "Dim": f.num.Thousands(int64(fig.HeadDim))}))
	if fig.AttnLayers < f.info.Layers {
		b.WriteString(f.t("attention.hybrid", i18n.Args{"Attn": fig.AttnLayers, "Layers": f.info.Layers}))
	}
	if fig.Layer < 0 {
		b.WriteString(f.t("attention.none", nil))
	} else {
		b.WriteString(f.t("attention.looks", i18n.Args{"Query": f.tok(fig.Query), "Layer": f.layerName(fig.Layer),
			"Head": f.headName(fig.Head), "Source": f.tok(fig.Source), "Share": f.num.Percent(float64(fig.Share)),
			"Ago": f.tokens(fig.QueryPos - fig.SourcePos)}))
		if fig.SourceWhy == "top-1" {
			b.WriteString(f.t("attention.top1", nil))
		} else {
			b.WriteString(f.t("attention.strongest", i18n.Args{"Source": f.tok(fig.Source), "Query": f.tok(fig.Query)}))
		}
	}
	return Chapter{ID: Attention, Title: f.t("attention.title", nil), Text: b.String(), Figures: fig,
		Show: Show{Tab: "Attention", Query: f.query, Source: f.source, Layer: f.layer, Head: f.head}}
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
	b.WriteString(f.t("grid.intro", i18n.Args{"Query": f.tok(f.tokenText(f.query)), "Source": f.tok(f.tokenText(f.source)),
		"Heads": f.num.Thousands(int64(f.info.Heads))}))
	a := i18n.Args{"Five": f.num.PercentWhole(0.05), "Peak": f.num.Percent(fig.PeakMean), "PeakLayer": f.layerName(fig.PeakLayer)}
	switch {
	case fig.PeakLayer < 0:
		b.WriteString(f.t("grid.none", nil))
	case fig.FirstAbove5 < 0:
		b.WriteString(f.t("grid.under", a))
	case f.lastMeanBefore(fig.FirstAbove5) < 0:
		a["First"], a["FirstLayer"] = f.num.Percent(f.layerMeans[fig.FirstAbove5]), f.layerName(fig.FirstAbove5)
		b.WriteString(f.t("grid.already", a))
	default:
		a["Before"] = f.layerName(f.lastMeanBefore(fig.FirstAbove5))
		b.WriteString(f.t("grid.rises", a))
	}
	if _, without := f.attentionLayers(); len(without) > 0 {
		b.WriteString(f.t("grid.deltanet", i18n.Args{"N": len(without)}))
	}
	return Chapter{ID: Grid, Title: f.t("grid.title", nil), Text: b.String(), Figures: fig,
		Question: f.t("grid.question", i18n.Args{"Source": f.tok(f.tokenText(f.source))}),
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
	text := f.t("sink.share", i18n.Args{"Query": f.tok(f.tokenText(f.query)), "Share": f.num.Percent(fig.MeanShare), "First": f.tok(fig.First)})
	if fig.MeanShare >= sinkLarge {
		text += f.t("sink.large", nil)
	} else {
		text += f.t("sink.small", nil)
	}
	return Chapter{ID: Sink, Title: f.t("sink.title", nil), Text: text, Figures: fig,
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
	BytesPerTokenBF16 int64 `json:"bytes_per_token_bf16"`
	BytesAt4096       int64 `json:"bytes_at_4096"`
	BytesAt32000      int64 `json:"bytes_at_32000"`
	// Context is the model's context (max_position_embeddings), the
	// longest a conversation grows; BytesAtContext the cache then.
	Context        int     `json:"context"`
	BytesAtContext int64   `json:"bytes_at_context"`
	WeightBytes    int64   `json:"weight_bytes_per_token"`
	StateBytes     int64   `json:"state_bytes"`
	Share32000     float64 `json:"share_of_weights_at_32000"`
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
	fig.Context, fig.BytesAtContext = f.info.MaxPositions, int64(f.info.MaxPositions)*fig.BytesPerToken
	if fig.WeightBytes > 0 {
		fig.Share32000 = float64(fig.BytesAt32000) / float64(fig.WeightBytes)
	}
	var b strings.Builder
	b.WriteString(f.t("kv.intro", nil))
	b.WriteString(f.t("kv.size", i18n.Args{"Layers": nKV, "KV": f.units("kvhead", fig.KVHeads), "Dim": f.num.Thousands(int64(fig.HeadDim)),
		"Numbers": f.num.Thousands(fig.NumbersPerToken), "Bytes": f.num.Bytes(float64(fig.BytesPerToken)),
		"At": f.kvAt(fig.BytesPerToken, fig.Context), "Weights": f.num.Bytes(float64(fig.WeightBytes))}))
	if len(without) > 0 {
		b.WriteString(f.t("kv.deltanet", i18n.Args{"KVLayers": nKV, "Layers": f.info.Layers, "Other": len(without),
			"State": f.num.Bytes(float64(fig.StateBytes))}))
	} else {
		b.WriteString(f.t("kv.longer", nil))
	}
	return Chapter{ID: KVCache, Title: f.t("kv.title", nil), Text: b.String(), Figures: fig,
		Show: Show{Tab: "KV cache", Query: f.query, Source: -1, Layer: f.layer, Head: f.head}}
}

// kvLengths are the conversation lengths the KV chapter gives the
// cache's size at: the article's 4,096 and 32,000 tokens where the
// model's context reaches them, and the context itself where it stops
// before 32,000 (a demo model's 512). An unknown context (0) takes the
// article's two.
func kvLengths(context int) []int {
	var out []int
	for _, n := range []int{4096, 32000} {
		if context <= 0 || n <= context {
			out = append(out, n)
		}
	}
	if context > 0 && context < 32000 && !slices.Contains(out, context) {
		out = append(out, context)
	}
	return out
}

// kvAt writes the cache's size at each of kvLengths: "2.1 MB at 512
// tokens, the model's whole context".
func (f *facts) kvAt(bytesPerToken int64, context int) string {
	var parts []string
	for _, n := range kvLengths(context) {
		key := "kv.at"
		if n == context {
			key = "kv.atcontext"
		}
		parts = append(parts, f.t(key, i18n.Args{"Bytes": f.num.Bytes(float64(int64(n) * bytesPerToken)), "N": f.num.Thousands(int64(n))}))
	}
	return strings.Join(parts, f.t("kv.and", nil))
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
		text := f.t("mlp.moe", i18n.Args{"Experts": f.info.Experts, "PerToken": f.info.ExpertsPerToken,
			"Params": f.num.Count(fig.Params), "Total": f.num.Count(fig.Total)})
		return Chapter{ID: MLP, Title: f.t("mlp.title", nil), Text: text, Figures: fig,
			Show: Show{Tab: "Experts", Query: f.query, Source: -1, Layer: -1, Head: -1}}
	}
	text := f.t("mlp.dense", i18n.Args{"Pairs": f.num.Thousands(int64(f.info.Intermediate)), "Query": f.tok(f.tokenText(f.query)),
		"Layer": f.layerName(l), "Count": f.num.Thousands(int64(fig.Count)), "Median": f.num.G2(fig.MedianAbs),
		"Over05": f.num.Thousands(int64(fig.Over05)), "Half": f.num.Trim(0.5, 1), "Over1": f.num.Thousands(int64(fig.Over1)),
		"Max": f.num.G2(float64(fig.Max)), "Params": f.num.Count(fig.Params), "Total": f.num.Count(fig.Total)})
	return Chapter{ID: MLP, Title: f.t("mlp.title", nil), Text: text, Figures: fig,
		Show: Show{Tab: "MLP", Query: f.query, Source: -1, Layer: l, Head: -1}}
}
