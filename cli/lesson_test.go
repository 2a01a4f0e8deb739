package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"loupe/engine/genmodel"
)

// lessonJSON is `loupe lesson --json` read as plain JSON, field names as
// the command line's contract spells them.
type lessonJSON struct {
	Model    string `json:"model"`
	Prompt   string `json:"prompt"`
	Chapters []struct {
		ID      string                     `json:"id"`
		Title   string                     `json:"title"`
		Text    string                     `json:"text"`
		Skipped string                     `json:"skipped"`
		Figures map[string]json.RawMessage `json:"figures"`
	} `json:"chapters"`
}

func (l *lessonJSON) figure(t *testing.T, id, name string, v any) {
	t.Helper()
	for _, c := range l.Chapters {
		if c.ID == id {
			raw, ok := c.Figures[name]
			if !ok {
				t.Fatalf("%s: no figure %q", id, name)
			}
			if err := json.Unmarshal(raw, v); err != nil {
				t.Fatalf("%s.%s: %v", id, name, err)
			}
			return
		}
	}
	t.Fatalf("no chapter %q", id)
}

func cliJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	var o, e bytes.Buffer
	if code := Main(args, &o, &e); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, e.String())
	}
	if err := json.Unmarshal(o.Bytes(), v); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
}

// The lesson's figures are the numbers `loupe inspect --json` and `loupe
// run --json` give on the same prompt: the head and its share, the layer
// means and the sink recomputed from inspect's attention, the MLP counts
// from its values, the top-10 of run's first token, and the KV bytes from
// config.json.
func TestLessonFiguresMatchInspectAndRun(t *testing.T) {
	q35 := filepath.Join(t.TempDir(), "q35")
	if err := genmodel.Write(q35, "tiny-qwen35", 3, "bf16"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, model, prompt string }{
		{"demo", "", "My cat is purple. But my friends tell me there is no such thing as a"},
		{"qwen3.5", q35, "The golden key opens the small door. Then she took the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := []string{}
			if tc.model != "" {
				model = []string{"--model", tc.model}
			}
			var l lessonJSON
			cliJSON(t, &l, append([]string{"lesson", "--prompt", tc.prompt, "--max-tokens", "5", "--json"}, model...)...)
			checkLessonShape(t, &l, tc.prompt)
			checkAttentionFigures(t, &l, model, tc.prompt)
			var run runResult
			cliJSON(t, &run, append([]string{"run", "--prompt", tc.prompt, "--max-tokens", "5", "--json"}, model...)...)
			var top10 json.RawMessage
			l.figure(t, "output", "top10", &top10)
			want, _ := json.Marshal(run.Tokens[0].Top10)
			if !bytes.Equal(compact(t, top10), want) {
				t.Errorf("top10 %s\nrun's %s", top10, want)
			}
			checkKVBytes(t, &l, tc.model)
		})
	}
}

func compact(t *testing.T, raw []byte) []byte {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func checkLessonShape(t *testing.T, l *lessonJSON, prompt string) {
	t.Helper()
	ids := []string{"tokens", "embedding", "attention", "grid", "sink", "kv-cache", "mlp", "output", "loop",
		"two-times", "compute-memory", "conversations", "thinking", "counterfactual", "summary"}
	if l.Prompt != prompt || len(l.Chapters) != len(ids) {
		t.Fatalf("prompt %q, %d chapters", l.Prompt, len(l.Chapters))
	}
	var thinks bool
	l.figure(t, "thinking", "thinking_template", &thinks)
	for i, c := range l.Chapters {
		if c.ID != ids[i] || c.Title == "" || c.Text == "" || c.Figures == nil {
			t.Errorf("chapter %d: %s %q %q", i, c.ID, c.Title, c.Text)
		}
		needs := c.ID == "compute-memory" || c.ID == "conversations" || c.ID == "counterfactual" || c.ID == "thinking" && thinks
		if needs != (c.Skipped == "needs --timing") {
			t.Errorf("%s: skipped %q", c.ID, c.Skipped)
		}
	}
	var count int
	var tokIDs []int
	l.figure(t, "tokens", "count", &count)
	l.figure(t, "tokens", "ids", &tokIDs)
	if count != len(tokIDs) || count == 0 {
		t.Errorf("tokens: count %d, %d ids", count, len(tokIDs))
	}
	var share float64
	l.figure(t, "two-times", "reading_share", &share)
	var pre, dec float64
	l.figure(t, "two-times", "prefill_seconds", &pre)
	l.figure(t, "two-times", "decode_seconds", &dec)
	if pre <= 0 || dec <= 0 || math.Abs(share-pre/(pre+dec)) > 1e-12 {
		t.Errorf("two-times: prefill %v decode %v share %v", pre, dec, share)
	}
}

// checkAttentionFigures recomputes the attention, grid, sink and MLP
// figures from `loupe inspect --json` of the last prompt token.
func checkAttentionFigures(t *testing.T, l *lessonJSON, model []string, prompt string) {
	t.Helper()
	var q, src, layer, head, mlpLayer, over05, over1 int
	var share, sink, maxAbs float64
	var means []*float64
	l.figure(t, "attention", "query_pos", &q)
	l.figure(t, "attention", "source_pos", &src)
	l.figure(t, "attention", "layer", &layer)
	l.figure(t, "attention", "head", &head)
	l.figure(t, "attention", "share", &share)
	l.figure(t, "grid", "layer_means", &means)
	l.figure(t, "sink", "mean_share", &sink)
	l.figure(t, "mlp", "layer", &mlpLayer)
	l.figure(t, "mlp", "over_0_5", &over05)
	l.figure(t, "mlp", "over_1", &over1)
	l.figure(t, "mlp", "max", &maxAbs)
	var in struct {
		Pos       int           `json:"pos"`
		Attention [][][]float64 `json:"attention"`
		MLP       struct {
			Values []float64 `json:"values"`
		} `json:"mlp"`
	}
	cliJSON(t, &in, append([]string{"inspect", "--prompt", prompt, "--layer", strconv.Itoa(mlpLayer), "--json"}, model...)...)
	if in.Pos != q {
		t.Fatalf("query %d, inspect's last token %d", q, in.Pos)
	}
	// The head: the largest weight on the source over every head.
	best := -1.0
	for _, hs := range in.Attention {
		for _, w := range hs {
			best = math.Max(best, w[src])
		}
	}
	if got := in.Attention[layer][head][src]; got != share || got != best {
		t.Errorf("attention: layer %d head %d share %v; inspect has %v there, the largest is %v", layer, head, share, got, best)
	}
	var sinkSum float64
	var n int
	for l, hs := range in.Attention {
		if len(hs) == 0 {
			if means[l] != nil {
				t.Errorf("grid: layer %d has no attention map but a mean %v", l, *means[l])
			}
			continue
		}
		m := 0.0
		for _, w := range hs {
			m += w[src]
			sinkSum += w[0]
			n++
		}
		// inspect prints float32s in their shortest decimal form: 1e-6.
		if m /= float64(len(hs)); means[l] == nil || math.Abs(*means[l]-m) > 1e-6 {
			t.Errorf("grid: layer %d mean %v, inspect gives %v", l, ptr(means[l]), m)
		}
	}
	if math.Abs(sink-sinkSum/float64(n)) > 1e-6 {
		t.Errorf("sink %v, inspect gives %v", sink, sinkSum/float64(n))
	}
	o05, o1, mx := 0, 0, 0.0
	for _, v := range in.MLP.Values {
		a := math.Abs(v)
		if a > 0.5 {
			o05++
		}
		if a > 1 {
			o1++
		}
		mx = math.Max(mx, a)
	}
	if over05 != o05 || over1 != o1 || maxAbs != mx || mlpLayer != layer {
		t.Errorf("mlp layer %d: %d %d %v; inspect gives %d %d %v", mlpLayer, over05, over1, maxAbs, o05, o1, mx)
	}
}

func ptr(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// checkKVBytes: 2 · layers with attention · KV heads · head_dim · 4 bytes
// (the engine's fp32 cache), read from config.json.
func checkKVBytes(t *testing.T, l *lessonJSON, model string) {
	t.Helper()
	if model == "" {
		dir, err := demoModelDir()
		if err != nil || dir == "" {
			t.Fatalf("demo model: %v", err)
		}
		model = dir
	}
	raw, err := os.ReadFile(filepath.Join(model, "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Text *struct {
			Layers   int `json:"num_hidden_layers"`
			KVHeads  int `json:"num_key_value_heads"`
			HeadDim  int `json:"head_dim"`
			Interval int `json:"full_attention_interval"`
		} `json:"text_config"`
		Layers  int `json:"num_hidden_layers"`
		KVHeads int `json:"num_key_value_heads"`
		Heads   int `json:"num_attention_heads"`
		Hidden  int `json:"hidden_size"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	want := int64(2 * c.Layers * c.KVHeads * (c.Hidden / max(1, c.Heads)) * 4)
	if c.Text != nil { // Qwen3.5: every interval-th layer has attention
		want = int64(2 * (c.Text.Layers / c.Text.Interval) * c.Text.KVHeads * c.Text.HeadDim * 4)
	}
	var per, at4096, at32000 int64
	l.figure(t, "kv-cache", "bytes_per_token", &per)
	l.figure(t, "kv-cache", "bytes_at_4096", &at4096)
	l.figure(t, "kv-cache", "bytes_at_32000", &at32000)
	if per != want || at4096 != 4096*want || at32000 != 32000*want {
		t.Errorf("kv bytes %d %d %d, config gives %d per token", per, at4096, at32000, want)
	}
	if strings.Contains(l.Chapters[5].Text, "DeltaNet") != (c.Text != nil) {
		t.Errorf("kv-cache text: %s", l.Chapters[5].Text)
	}
}

// --html writes the handout beside the text: the page names every
// chapter and its figure, and each figure is there.
func TestLessonHTML(t *testing.T) {
	path := filepath.Join(t.TempDir(), "class.html")
	var o, e bytes.Buffer
	if code := Main([]string{"lesson", "--prompt", "My cat is purple. But my friends tell me", "--max-tokens", "3", "--html", path}, &o, &e); code != 0 {
		t.Fatalf("exit %d: %s", code, e.String())
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"tokens", "attention", "kv-cache", "summary"} {
		if !strings.Contains(string(doc), `src="class-`+id+`.png"`) {
			t.Errorf("the page has no %s figure", id)
		}
		if st, err := os.Stat(filepath.Join(filepath.Dir(path), "class-"+id+".png")); err != nil || st.Size() == 0 {
			t.Errorf("%s figure: %v", id, err)
		}
	}
	if code := Main([]string{"lesson", "--prompt", "x", "--html", filepath.Join(t.TempDir(), "no", "such", "dir.html")}, &o, &e); code == 0 {
		t.Error("--html into a missing folder: want a failure")
	}
}
