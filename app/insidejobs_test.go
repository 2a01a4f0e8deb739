package app

import (
	"context"
	"slices"
	"testing"

	"loupe/engine"
	"loupe/trace"
)

// recordingInspector keeps the options of the last Inspect.
type recordingInspector struct{ opt engine.InspectOptions }

func (r *recordingInspector) Inspect(_ context.Context, _ []int, _ int, opt engine.InspectOptions) (*trace.Inspection, error) {
	r.opt = opt
	return &trace.Inspection{}, nil
}
func (r *recordingInspector) KVRows(int, int, int) trace.KVRows { return trace.KVRows{} }
func (r *recordingInspector) CachedTokens() int                 { return 0 }
func (r *recordingInspector) Embedding(int) []float32           { return nil }

// TestInsideJobRoutesAsTheRun: the panels of a run with experts switched
// off, or fewer experts per token, recompute a position with the same
// routing, not the model's own.
func TestInsideJobRoutesAsTheRun(t *testing.T) {
	off := []trace.Expert{{Layer: 1, Expert: 3}}
	run := &trace.Run{Settings: trace.Settings{DisableExperts: off, TopKExperts: 2}}
	var insp recordingInspector
	if _, _, err := runJob(context.Background(), &insp, []int{1, 2, 3}, jobKey{run: run, pos: 1, layer: 1}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(insp.opt.DisableExperts, off) || insp.opt.TopKExperts != 2 || insp.opt.Layer != 1 {
		t.Fatalf("Inspect options %+v, want the run's experts off %v and top-k 2 at layer 1", insp.opt, off)
	}
	if _, _, err := runJob(context.Background(), &insp, []int{1, 2, 3}, jobKey{run: &trace.Run{}, pos: 1}); err != nil {
		t.Fatal(err)
	}
	if insp.opt.DisableExperts != nil || insp.opt.TopKExperts != 0 {
		t.Fatalf("a plain run's Inspect options %+v carry a counterfactual", insp.opt)
	}
}
