package views

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// The Think switch is ticked and enabled only for a template that reads
// enable_thinking; the user's choice comes back with the next such model.
func TestThinkSwitchFollowsTheTemplate(t *testing.T) {
	newTestApp(t)
	c := NewChatPanel()
	state := func(when string, checked, disabled, on bool) {
		t.Helper()
		if c.Think.Checked != checked || c.Think.Disabled() != disabled || c.ThinkingOn() != on {
			t.Errorf("%s: ticked %v disabled %v thinking %v, want %v %v %v", when,
				c.Think.Checked, c.Think.Disabled(), c.ThinkingOn(), checked, disabled, on)
		}
	}
	state("no model", false, true, false)

	c.SetAvailable(true, true, nil) // Qwen3: the template's default is on
	c.Mode.SetValue(ModeChat)
	state("thinking template", true, false, true)
	test.Tap(c.Think) // the user turns it off
	state("unticked by a click", false, false, false)
	test.Tap(c.Think)
	state("ticked again", true, false, true)

	c.SetAvailable(true, false, nil) // Qwen2.5-Instruct: no switch
	state("template without thinking", false, true, false)
	c.SetThinking(true) // --think on
	state("--think on, no switch", false, true, false)
	c.SetAvailable(false, false, nil) // no chat template at all
	state("no chat template", false, true, false)

	c.SetAvailable(true, true, nil)
	c.Mode.SetValue(ModeChat)
	state("thinking template again", true, false, true)
	test.Tap(c.Think)
	c.SetAvailable(true, false, nil)
	c.SetAvailable(true, true, nil)
	state("the user's off survives a model without the switch", false, false, false)
}
