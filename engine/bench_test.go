package engine

import (
	"context"
	"testing"
)

// benchModel is the tiny shape with a real vocabulary (151,936 × 64 head,
// 19 MB bf16): decode is then dominated by the output head, as in small
// real models.
func benchModel(b *testing.B) *Model {
	cfg := tinyConfig()
	cfg.HiddenSize, cfg.IntermediateSize, cfg.HeadDim = 64, 128, 16
	cfg.VocabSize, cfg.MaxPositionEmbeddings = qwenVocab, 4096
	return memModel(cfg, randomTensors(cfg, 5), true, 0)
}

// BenchmarkDecodeStep: one token through the model against a 64-token
// cache; reports tokens/s and the weight bytes read per second.
func BenchmarkDecodeStep(b *testing.B) {
	m := benchModel(b)
	ctx := context.Background()
	if _, err := m.forward(ctx, randomTokens(64, 1000, 1), 0, nil); err != nil {
		b.Fatal(err)
	}
	info := modelInfo(m.cfg, m.w, "", "", 0)
	b.ResetTimer()
	for range b.N {
		if _, err := m.forward(ctx, []int{17}, 64, nil); err != nil {
			b.Fatal(err)
		}
	}
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/s, "tok/s")
	b.ReportMetric(float64(info.WeightBytesPerTok)*float64(b.N)/s/1e9, "GB/s")
}

// BenchmarkPrefill: a 256-token prompt as one batch; reports tokens/s.
func BenchmarkPrefill(b *testing.B) {
	m := benchModel(b)
	tokens := randomTokens(256, 1000, 2)
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if _, err := m.forward(ctx, tokens, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(tokens))/b.Elapsed().Seconds(), "tok/s")
}
