package app

import (
	"errors"
	"fmt"

	"loupe/viz"
)

// insideCSV writes the table of the Embedding, KV cache, Logit lens,
// Sampler and DeltaNet panels: the numbers on screen, as the run (or the
// engine's Inspect of it) gave them. false: not one of these panels.
func (u *UI) insideCSV(panel string, d *csvDoc) (bool, error) {
	in := u.inside
	switch panel {
	case "embedding":
		tok, values := in.embed.Values()
		if len(values) == 0 {
			return true, errors.New("no embedding row shown: select a token")
		}
		u.csvToken(d, "token", tok.Pos)
		d.kv("token id (the row)", tok.ID)
		d.kv("table shape (rows × numbers)", u.info.Vocab, len(values))
		d.kv("tied to the output head", u.info.TiedEmbeddings)
		st := viz.StatsOf(values)
		d.kv("norm", st.Norm)
		d.kv("min", st.Min)
		d.kv("max", st.Max)
		d.kv("mean |x|", st.MeanAbs)
		d.row("index", "value")
		for i, v := range values {
			d.row(i, v)
		}
	case "kv-cache":
		kv := in.kv.Rows()
		if len(kv.Keys) == 0 {
			return true, errors.New("no keys and values shown yet: generate, then wait for the run to end")
		}
		d.kv("layer", kv.Layer+u.headBase())
		d.kv("kv head", kv.KVHead+u.headBase())
		d.kv("keys", "after RoPE")
		dim := len(kv.Keys[0])
		head := []any{"position", "token"}
		for i := range dim {
			head = append(head, fmt.Sprintf("key_%d", i))
		}
		for i := range dim {
			head = append(head, fmt.Sprintf("value_%d", i))
		}
		d.row(head...)
		for p := range kv.Keys {
			rec := []any{p, u.tokenText(p)}
			for _, x := range kv.Keys[p] {
				rec = append(rec, x)
			}
			for _, x := range kv.Values[p] {
				rec = append(rec, x)
			}
			d.row(rec...)
		}
	case "logit-lens":
		tok, lens := in.lens.Lens()
		if len(lens) == 0 {
			return true, errors.New("no logit lens shown yet: generate, then click a token")
		}
		u.csvToken(d, "token", tok.Pos)
		choice := in.lens.Choice()
		d.kv("final choice id", choice)
		d.row("layer", "rank", "id", "text", "p", "final_choice")
		for _, ll := range lens {
			for r, c := range ll.Top {
				d.row(ll.Layer+u.headBase(), r+1, c.ID, c.Text, c.P, c.ID == choice)
			}
		}
	case "sampler":
		s, ok := in.sampler.Step()
		if !ok || s.Stages == nil {
			return true, errors.New("no sampler stages for this token")
		}
		st := s.Stages
		u.csvToken(d, "generated", s.Pos)
		d.kv("greedy", st.Greedy)
		d.kv("drawn id", st.Drawn)
		if !st.Greedy {
			d.kv("seed", in.settings.Seed)
			d.kv("u", st.U)
		}
		left := []any{}
		for _, stage := range st.Stages {
			left = append(left, fmt.Sprintf("%s:%d", stage.Name, stage.Kept))
		}
		d.kv("tokens left after each stage", left...)
		head := []any{"rank", "id", "text", "logit_after_penalties"}
		for _, stage := range st.Stages {
			head = append(head, "p_after_"+stage.Name)
		}
		head = append(head, "p_final", "drawn")
		d.row(head...)
		for i, c := range st.Candidates {
			rec := []any{i + 1, c.ID, c.Text, st.Logits[i]}
			for _, stage := range st.Stages {
				rec = append(rec, stage.P[i])
			}
			d.row(append(rec, c.P, c.ID == st.Drawn)...)
		}
	case "deltanet":
		dn, ok := u.deltaNet.Shown()
		if !ok || len(dn.Alpha) == 0 {
			return true, errors.New("no Gated DeltaNet values: this model has none, or no run has finished")
		}
		d.kv("layer", dn.Layer+u.headBase())
		// state_norm: the norm of the head's state after the position, where
		// it was recorded (every decoded token, each prompt chunk's end).
		norms := map[int][]float32{}
		for i, p := range dn.StatePos {
			norms[p] = dn.StateNorm[i]
		}
		d.row("position", "token", "head", "alpha", "beta", "state_norm")
		for p := range dn.Alpha {
			for h := range dn.Alpha[p] {
				var norm any = ""
				if n, ok := norms[p]; ok && h < len(n) {
					norm = n[h]
				}
				d.row(p, u.tokenText(p), h+u.headBase(), dn.Alpha[p][h], dn.Beta[p][h], norm)
			}
		}
	default:
		return false, nil
	}
	return true, nil
}
