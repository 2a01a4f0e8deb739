package engine

import (
	"context"
	"testing"

	"loupe/trace"
)

// A cache written without ablation must not serve a run with heads
// switched off (its keys and values above the ablated layer differ): the
// ablated rerun with ReuseCache reads the whole prompt again and matches
// a fresh ablated run exactly.
func TestReuseCacheRespectsAblation(t *testing.T) {
	m, _, _ := genModel(t)
	const prompt = "Hello world, hello world, hello"
	opt := greedy(3)
	opt.ReuseCache = true
	if _, err := m.Generate(context.Background(), prompt, opt, nil); err != nil {
		t.Fatal(err)
	}
	opt.Ablate = []trace.Head{{Layer: 0, Head: 1}}
	reused, err := m.Generate(context.Background(), prompt, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reused.Timing.ReusedTokens != 0 {
		t.Fatalf("the ablated run reused %d positions computed without ablation", reused.Timing.ReusedTokens)
	}
	opt.ReuseCache = false
	fresh, err := m.Generate(context.Background(), prompt, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range fresh.Steps {
		if reused.Steps[i].Chosen != fresh.Steps[i].Chosen {
			t.Fatalf("step %d: %+v after the cache, %+v fresh", i, reused.Steps[i].Chosen, fresh.Steps[i].Chosen)
		}
	}
	// Nor is an ablated run's cache reused, by the same heads or none.
	opt.ReuseCache = true
	if again, err := m.Generate(context.Background(), prompt, opt, nil); err != nil || again.Timing.ReusedTokens != 0 {
		t.Fatalf("after an ablated run: reused %d, %v", again.Timing.ReusedTokens, err)
	}
	opt.Ablate = nil
	if plain, err := m.Generate(context.Background(), prompt, opt, nil); err != nil || plain.Timing.ReusedTokens != 0 {
		t.Fatalf("plain run after an ablated one: reused %d, %v", plain.Timing.ReusedTokens, err)
	}
}
