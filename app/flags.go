package app

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
)

// Replaying the command line's experiments (--ablate, --variant,
// --source) once the first generation has finished.

// flagExperiments runs what --ablate and --variant ask for, one after the
// other, once the first generation has finished.
func (u *UI) flagExperiments() {
	next := func() {
		u.afterCompare()
		if u.opt.Variant != "" {
			u.flagExperiments()
		}
	}
	if !u.cmp.flagged && u.st.LastRun != nil {
		// The experiments look from the last prompt token, as the article does.
		u.cmp.flagged = true
		u.st.Follow = false
		u.stream.Select(stats.PromptLen(u.st.LastRun) - 1)
		if src := sourcePos(u.st.LastRun, u.opt.Source); src >= 0 {
			u.stream.Choose(src)
		} else if u.opt.Source != "" {
			u.controls.Status.SetText(tr("app.flags.source", i18n.Args{"Source": u.opt.Source}))
			fmt.Fprintln(os.Stderr, "loupe:", u.controls.Status.Text)
		}
	}
	if spec := u.opt.Ablate; spec != "" {
		u.opt.Ablate = ""
		if err := u.ablateSpec(spec); err != nil {
			u.fail("--ablate", err)
			return
		}
		if u.st.Running {
			u.cmp.then = next
		}
		return
	}
	if u.opt.DisableExperts != "" || u.opt.TopKExperts > 0 {
		spec, k := u.opt.DisableExperts, u.opt.TopKExperts
		u.opt.DisableExperts, u.opt.TopKExperts = "", 0
		off, err := trace.ParseExperts(spec, 0)
		if err != nil {
			u.fail("--disable-experts", err)
			return
		}
		u.experts.Display(u.st.Info, u.st.Tokens, u.st.Steps, u.st.Query)
		u.experts.Off.SetText(trace.FormatExperts(off, u.headBase()))
		if k > 0 {
			u.experts.TopK.SetSelected(fmt.Sprint(k))
		}
		u.switchExpertsOff()
		if u.st.Running {
			u.cmp.then = next
		}
		return
	}
	if v := u.opt.Variant; v != "" {
		u.opt.Variant = ""
		a, err := u.st.BaseRun()
		if err != nil {
			u.fail("--variant", err)
			return
		}
		u.runVariant(a, v)
	}
}

// ablateSpec selects heads as --ablate spells them (0-based L:H list,
// top:N or random:N:SEED) and reruns without them.
func (u *UI) ablateSpec(spec string) error {
	parts := strings.Split(spec, ":")
	switch parts[0] {
	case "top":
		if len(parts) != 2 {
			return fmt.Errorf("%q: want top:N", spec)
		}
		u.bar.N.SetText(parts[1])
		u.presetTop()
		return nil
	case "random":
		if len(parts) != 3 {
			return fmt.Errorf("%q: want random:N:SEED", spec)
		}
		u.bar.N.SetText(parts[1])
		u.bar.Seed.SetText(parts[2])
		u.presetRandom()
		return nil
	}
	hs, err := trace.ParseHeads(spec, 0)
	if err == nil {
		err = trace.CheckHeads(hs, u.st.Info.Layers, u.st.Info.Heads, 0)
	}
	if err != nil {
		return err
	}
	u.st.Heads = hs
	u.showHeads(true)
	u.switchOff()
	return nil
}

// sourcePos reads --source: a prompt position, or a word of the prompt
// (the token holding its first letter); -1 when it is neither.
func sourcePos(r *trace.Run, spec string) int {
	n := stats.PromptLen(r)
	if p, err := strconv.Atoi(spec); err == nil {
		if p >= 0 && p < n {
			return p
		}
		return -1
	}
	at := strings.Index(r.Prompt, spec)
	if spec == "" || at < 0 {
		return -1
	}
	end := 0
	for i := range n {
		end += len(r.Tokens[i].Text)
		if end > at {
			return i
		}
	}
	return -1
}
