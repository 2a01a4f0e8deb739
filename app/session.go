package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	nativedialog "github.com/sqweek/dialog"

	"loupe/engine/fingerprint"
	"loupe/i18n"
	"loupe/trace"
	"loupe/trace/stats"
	"loupe/views"
)

// sessionFile saves and reopens a session: the prompt, settings and view of a run or compared pair.
type sessionFile struct{ ui *UI }

// sessionFormat names the session file's format and version.
const sessionFormat = "loupe-session-1"

// Session is what File › Save session… writes: enough to rerun the
// experiment on the same model and put the view back as it was.
type Session struct {
	Format   string         `json:"format"`
	Model    SessionModel   `json:"model"`
	Prompt   string         `json:"prompt"`
	Settings trace.Settings `json:"settings"`          // run A's; its seed replays a sampled run
	Ablate   []trace.Head   `json:"ablate,omitempty"`  // run B: A with these heads switched off (0-based)
	Variant  string         `json:"variant,omitempty"` // run B: this prompt with A's settings
	// Run B of an MoE model: A with these experts switched off (0-based)
	// or this many experts per token.
	DisableExperts []trace.Expert   `json:"disable_experts,omitempty"`
	TopKExperts    int              `json:"top_k_experts,omitempty"`
	Selection      SessionSelection `json:"selection"`
}

// SessionModel identifies the model: where it was, and a fingerprint of
// its config and weight files that a copy elsewhere shares.
type SessionModel struct {
	Path        string `json:"path"`
	Name        string `json:"name"`
	Demo        bool   `json:"demo,omitempty"` // the embedded demo model (its folder may move)
	Fingerprint string `json:"fingerprint"`
}

// SessionSelection is the view: the selected token, the grid's source, the
// open head, the heads chosen to be switched off, the tab, the presets.
type SessionSelection struct {
	Query  int          `json:"query"`
	Source int          `json:"source"` // -1: the strongest
	Head   trace.Head   `json:"open_head"`
	Heads  []trace.Head `json:"heads"` // selected on the grid (0-based)
	Tab    string       `json:"tab"`
	N      string       `json:"preset_n"`
	Seed   string       `json:"preset_seed"`
}

// session describes the view: the compared pair when there is one, else
// the run shown.
func (fc *sessionFile) session() (*Session, error) {
	u := fc.ui
	a := u.st.LastRun
	var b *trace.Run
	if pa, pb, ok := u.st.Pair(); ok {
		a, b = pa, pb
	}
	if a == nil {
		return nil, errors.New("generate first: a session reruns a finished run")
	}
	fp, err := fingerprint.Of(a.Model.Path)
	if err != nil {
		return nil, fmt.Errorf("fingerprint of the model: %w", err)
	}
	s := &Session{Format: sessionFormat, Prompt: a.Prompt, Settings: a.Settings,
		Model: SessionModel{Path: a.Model.Path, Name: a.Model.Name, Demo: u.demoDir != "" && a.Model.Path == u.demoDir, Fingerprint: fp}}
	if b != nil {
		if !slices.Equal(b.Settings.Ablate, a.Settings.Ablate) {
			s.Ablate = slices.Clone(b.Settings.Ablate)
		}
		if b.Prompt != a.Prompt {
			s.Variant = b.Prompt
		}
		if !slices.Equal(b.Settings.DisableExperts, a.Settings.DisableExperts) || b.Settings.TopKExperts != a.Settings.TopKExperts {
			s.DisableExperts, s.TopKExperts = slices.Clone(b.Settings.DisableExperts), b.Settings.TopKExperts
		}
	}
	l, h := u.attn.OpenedHead()
	s.Selection = SessionSelection{Query: u.st.Query, Source: u.st.Source, Head: trace.Head{Layer: l, Head: h},
		Heads: slices.Clone(u.st.Heads), Tab: u.menus.currentPanel(), N: u.bar.N.Text, Seed: u.bar.Seed.Text}
	if b != nil && u.st.LastRun == b {
		// The stream shows B: keep the selection in A's positions.
		q, src := u.st.PositionsInA(a)
		s.Selection.Query = q
		if u.st.Source >= 0 {
			s.Selection.Source = src
		}
	}
	return s, nil
}

// saveSession asks where to write the session file.
func (fc *sessionFile) saveSession() {
	u := fc.ui
	s, err := u.sessionFile.session()
	if err != nil {
		u.fail(tr("app.err.nothing_to_save", nil), err)
		return
	}
	data, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		u.fail(tr("app.err.encode_session", nil), err)
		return
	}
	u.menus.saveFile(tr("app.save.session_title", nil), "loupe-session.json", "json", data)
}

// pickSession asks for a session file and opens it.
func (fc *sessionFile) pickSession() {
	u := fc.ui
	u.pick(func() (string, error) {
		return nativedialog.File().Title(tr("app.pick.session", nil)).Filter(tr("app.pick.session_filter", nil), "json").Load()
	}, func(use func(string)) {
		dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
			if err == nil && r != nil {
				r.Close()
				use(r.URI().Path())
			}
		}, u.win)
	}, u.sessionFile.openSession)
}

// readSession reads and checks a session file.
func readSession(path string) (*Session, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Session
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s is not a Loupe session: %v", path, err)
	}
	if s.Format != sessionFormat {
		return nil, fmt.Errorf("%s is not a Loupe session (format %q, want %q)", path, s.Format, sessionFormat)
	}
	if s.Prompt == "" {
		return nil, fmt.Errorf("%s: the session has no prompt", path)
	}
	return &s, nil
}

// openSession reruns a saved session, after checking its model.
func (fc *sessionFile) openSession(path string) {
	u := fc.ui
	s, err := readSession(path)
	if err != nil {
		u.fail(tr("app.err.open_session", nil), err)
		return
	}
	if u.st.Running || u.loading {
		u.fail(tr("app.err.busy", nil), errors.New(tr("app.hint.stop_before_session", nil)))
		return
	}
	model, err := u.sessionFile.sessionModel(s)
	if err != nil {
		u.fail(tr("app.err.session_model", nil), err)
		return
	}
	if fp, err := fingerprint.Of(model); err == nil && fp != s.Model.Fingerprint {
		msg := tr("app.session.differs_msg", i18n.Args{"Path": model})
		if u.opt.Quit {
			u.fail(tr("app.session.differs_title", nil), errors.New(msg))
			return
		}
		dialog.ShowConfirm(tr("app.session.differs", nil), msg, func(ok bool) {
			defer u.rescue()
			if ok {
				u.sessionFile.applySession(s, model)
			}
		}, u.win)
		return
	}
	u.sessionFile.applySession(s, model)
}

// sessionModel finds the session's model folder: the demo model of this
// build, or the saved path.
func (fc *sessionFile) sessionModel(s *Session) (string, error) {
	if s.Model.Demo {
		return demoModel()
	}
	if _, err := os.Stat(s.Model.Path); err != nil {
		return "", fmt.Errorf("the model %s (%s) is missing: %v. Put it back, or open a copy of it (File › Open model folder…) and save the session again",
			s.Model.Name, s.Model.Path, err)
	}
	return s.Model.Path, nil
}

// applySession puts the prompt and settings in the left column, reruns A
// (loading the model first when another one is open), then B, then puts
// the selection back.
func (fc *sessionFile) applySession(s *Session, model string) {
	u := fc.ui
	u.controls.Prompt.SetText(s.Prompt)
	u.sessionFile.setControls(s.Settings)
	u.bar.N.SetText(s.Selection.N)
	u.bar.Seed.SetText(s.Selection.Seed)
	u.cmp.then = func() { u.sessionFile.sessionB(s) }
	if u.backend == nil || u.st.Info.Path != model && !(s.Model.Demo && u.demoDir == u.st.Info.Path) {
		if s.Model.Demo {
			u.demoDir = model
		}
		u.generateAfter = true
		u.openModel(model)
		return
	}
	u.generate()
}

// sessionB reruns the session's ablation or variant, then restores the view.
func (fc *sessionFile) sessionB(s *Session) {
	u := fc.ui
	restore := func() {
		u.afterCompare()
		u.sessionFile.restoreSelection(s)
	}
	switch {
	case len(s.Ablate) > 0:
		u.st.Heads = slices.Clone(s.Ablate)
		u.switchOff()
		u.cmp.then = restore
	case s.Variant != "":
		u.runVariant(u.st.LastRun, s.Variant)
		u.cmp.then = restore
	case len(s.DisableExperts) > 0 || s.TopKExperts > 0:
		u.experts.Display(u.st.Info, u.st.Tokens, u.st.Steps, u.st.Query)
		u.experts.Off.SetText(trace.FormatExperts(s.DisableExperts, u.headBase()))
		if s.TopKExperts > 0 {
			u.experts.TopK.SetSelected(fmt.Sprint(s.TopKExperts))
		}
		u.switchExpertsOff()
		u.cmp.then = restore
	default:
		u.sessionFile.restoreSelection(s)
	}
}

// restoreSelection selects the saved token, source, head, heads and tab.
func (fc *sessionFile) restoreSelection(s *Session) {
	u := fc.ui
	sel := s.Selection
	q, src := sel.Query, sel.Source
	if a, b, ok := u.st.Pair(); ok && u.st.LastRun == b {
		al := stats.Align(a.Tokens, b.Tokens, stats.PromptLen(a), stats.PromptLen(b))
		q, src = mapPos(al.AtoB, q), mapPos(al.AtoB, src)
	}
	u.st.Heads = slices.Clone(sel.Heads)
	u.showHeads(true)
	if q >= 0 && q < len(u.st.Tokens) {
		u.st.Follow = false
		u.stream.Select(q)
	}
	if src >= 0 {
		u.stream.Choose(src)
	}
	if sel.Head.Layer >= 0 && u.attn.Grid.OnTap != nil {
		u.attn.Grid.OnTap(sel.Head.Layer, sel.Head.Head) // as a click: the head stays open across tokens
	}
	if sel.Tab != "" {
		u.showTab(sel.Tab)
	}
	u.controls.Status.SetText(tr("app.session.restored", i18n.Args{"Prompt": strconv.Quote(menuText(s.Prompt))}))
}

func mapPos(m []int, i int) int {
	if i < 0 || i >= len(m) {
		return -1
	}
	return m[i]
}

// setControls puts a run's settings in the left column.
func (fc *sessionFile) setControls(s trace.Settings) {
	u := fc.ui
	c := u.controls
	c.MaxTokens.SetText(strconv.Itoa(s.MaxTokens))
	if s.Temperature > 0 {
		c.Mode.SetValue(views.Sampling)
		c.Temperature.SetText(strconv.FormatFloat(s.Temperature, 'g', -1, 64))
		c.TopK.SetText(strconv.Itoa(s.TopK))
		topP := s.TopP
		if topP == 0 {
			topP = 1
		}
		c.TopP.SetText(strconv.FormatFloat(topP, 'g', -1, 64))
		c.MinP.SetText(strconv.FormatFloat(s.MinP, 'g', -1, 64))
		c.Presence.SetText(strconv.FormatFloat(s.PresencePenalty, 'g', -1, 64))
		c.Seed.SetText(strconv.FormatUint(s.Seed, 10))
	} else {
		c.Mode.SetValue(views.Greedy)
	}
}
