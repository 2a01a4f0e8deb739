// Package viz draws every figure Loupe shows — attention grids, a head's
// weights, top candidates, prefill/decode timing, MLP values, embeddings, the
// KV cache, parameter shares — as gonum/plot figures rendered to image.Image,
// PNG or SVG.
//
// Data comes in as plain slices or loupe/trace types; viz never imports Fyne
// nor the engine, so every figure can be drawn and tested headless. Every
// figure uses a Theme (Dark or Light) for all its colours and text. The
// numbers behind the figures (layer means, attention sink share, top-k, MLP
// statistics, parameter shares) come from loupe/trace/stats and are written
// by loupe/format, the same functions the window and the exports call.
//
// Degenerate input (no tokens, no layers, NaN everywhere) never panics: the
// figure functions return a figure that says "no data" and why.
//
// "The article" in this package's comments is “The two times of an answer”,
// the article and video about the Herbert inference engine whose figures
// Loupe's panels follow (README.md).
package viz
