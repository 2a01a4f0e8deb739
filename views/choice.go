package views

import (
	"slices"

	"fyne.io/fyne/v2/widget"
)

// Choice is a horizontal radio group whose options are values for
// programs ("Greedy", "Sampling": what the code compares and the
// preferences store) shown as their sentences in the window's language
// ("Argmax", "Échantillonnage"). A radio group is otherwise known by its
// label, and a label compared in the code breaks as soon as it is
// translated: here the code reads and sets values, never labels.
type Choice struct {
	Radio  *widget.RadioGroup
	values []string
}

// NewChoice shows values as the sentences of keys (keys[i] names
// values[i]); changed, if not nil, gets the value picked. The first
// value starts selected, without calling changed.
func NewChoice(values, keys []string, changed func(value string)) *Choice {
	c := &Choice{values: values}
	labels := make([]string, len(keys))
	for i, k := range keys {
		labels[i] = tr(k, nil)
	}
	c.Radio = widget.NewRadioGroup(labels, func(label string) {
		if changed != nil {
			changed(c.Value())
		}
	})
	c.Radio.Horizontal, c.Radio.Required = true, true
	c.Radio.Selected = labels[0]
	return c
}

// Value is the value selected ("" for none).
func (c *Choice) Value() string {
	if i := slices.Index(c.Radio.Options, c.Radio.Selected); i >= 0 {
		return c.values[i]
	}
	return ""
}

// Values are the options' values, in order.
func (c *Choice) Values() []string { return c.values }

// SetValue selects v, as a click on its option would; a value that is
// not an option (an old preference) changes nothing.
func (c *Choice) SetValue(v string) {
	if i := slices.Index(c.values, v); i >= 0 {
		c.Radio.SetSelected(c.Radio.Options[i])
	}
}

// preselect selects v before the widgets its callback touches exist:
// no callback.
func (c *Choice) preselect(v string) {
	if i := slices.Index(c.values, v); i >= 0 {
		c.Radio.Selected = c.Radio.Options[i]
	}
}

// Enable, Disable and Disabled pass to the radio group.
func (c *Choice) Enable()        { c.Radio.Enable() }
func (c *Choice) Disable()       { c.Radio.Disable() }
func (c *Choice) Disabled() bool { return c.Radio.Disabled() }
