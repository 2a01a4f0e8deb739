package views

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// LessonCard is the lesson's card above the panels: the chapter's title,
// its two to four sentences (or the question the class is to answer
// first), ← / → and a chapter menu with "n / N".
type LessonCard struct {
	widget.BaseWidget
	Title    *widget.Label
	Text     *widget.Label
	Asking   *widget.Label // the question, shown instead of the text until revealed
	Count    *widget.Label // "3 / 14"
	Chapters *widget.Select
	Prev     *widget.Button
	Next     *widget.Button
	Guess    *widget.Check // Let the class guess
	Close    *widget.Button
	// Plan says what a chapter's runs will do (and how long); Measure
	// starts them, or stops them while they run.
	Plan    *widget.Label
	Measure *widget.Button

	// OnGo is called with the chapter chosen in the menu or by ← / →
	// (the app bounds it); OnGuess when the switch changes; OnClose by ×.
	OnGo      func(i int)
	OnGuess   func(on bool)
	OnClose   func()
	OnMeasure func()

	box     *fyne.Container
	body    *fyne.Container
	current int
	setting bool // Display is setting the menu: not a choice
}

// NewLessonCard makes an empty card.
func NewLessonCard() *LessonCard {
	c := &LessonCard{
		Title:  widget.NewLabel(""),
		Text:   widget.NewLabel(""),
		Asking: widget.NewLabel(""),
		Count:  widget.NewLabel(""),
	}
	c.Title.TextStyle = fyne.TextStyle{Bold: true}
	c.Title.SizeName = theme.SizeNameSubHeadingText
	c.Text.Wrapping = fyne.TextWrapWord
	c.Asking.Wrapping = fyne.TextWrapWord
	c.Asking.TextStyle = fyne.TextStyle{Bold: true}
	c.Asking.Importance = widget.HighImportance
	c.Chapters = widget.NewSelect(nil, func(string) {
		if i := c.Chapters.SelectedIndex(); !c.setting && i >= 0 && c.OnGo != nil {
			c.OnGo(i)
		}
	})
	c.Chapters.PlaceHolder = tr("views.lesson.chapters", nil)
	c.Prev = widget.NewButtonWithIcon("", theme.NavigateBackIcon(), func() { c.step(c.current - 1) })
	c.Next = widget.NewButtonWithIcon("", theme.NavigateNextIcon(), func() { c.step(c.current + 1) })
	c.Guess = widget.NewCheck(tr("views.lesson.guess", nil), func(on bool) {
		if c.OnGuess != nil {
			c.OnGuess(on)
		}
	})
	c.Close = widget.NewButtonWithIcon("", theme.CancelIcon(), func() {
		if c.OnClose != nil {
			c.OnClose()
		}
	})
	c.Close.Importance = widget.LowImportance
	c.Plan = widget.NewLabel("")
	c.Plan.Wrapping = fyne.TextWrapWord
	c.Measure = widget.NewButtonWithIcon(tr("views.lesson.measure", nil), theme.MediaPlayIcon(), func() {
		if c.OnMeasure != nil {
			c.OnMeasure()
		}
	})
	c.Measure.Importance = widget.HighImportance
	c.SetPlan("", false)
	c.Title.Wrapping = fyne.TextWrapWord
	bg := canvas.NewRectangle(color.Transparent)
	bg.StrokeColor = theme.Color(theme.ColorNamePrimary)
	bg.StrokeWidth = 2
	bg.CornerRadius = 6
	c.body = container.New(columnLayout{})
	c.SetNarrow(false)
	c.box = container.NewStack(bg, container.NewPadded(c.body))
	c.ExtendBaseWidget(c)
	return c
}

// SetNarrow lays the controls on one row under the text (a card as wide
// as the panels) or on two (a column beside them, projector mode).
func (c *LessonCard) SetNarrow(narrow bool) {
	nav := container.NewHBox(c.Prev, c.Count, c.Next)
	rows := []fyne.CanvasObject{container.NewBorder(nil, nil, nav, container.NewHBox(c.Guess, c.Close), c.Chapters)}
	if narrow {
		rows = []fyne.CanvasObject{container.NewBorder(nil, nil, nav, c.Close), c.Chapters, c.Guess}
	}
	text := []fyne.CanvasObject{c.Title, c.Asking, c.Text}
	plan := []fyne.CanvasObject{c.Plan, container.NewHBox(c.Measure)}
	if narrow { // a column: the keys' place first, the plan may scroll
		c.body.Objects = append(append(text, rows...), plan...)
	} else {
		c.body.Objects = append(append(text, plan...), rows...)
	}
	c.body.Refresh()
}

func (c *LessonCard) step(i int) {
	if c.OnGo != nil {
		c.OnGo(i)
	}
}

// CreateRenderer draws the card.
func (c *LessonCard) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(c.box) }

// Display shows chapter i of titles: its title and text, or, when
// question is not empty, the question in place of the text (the next key
// press reveals it).
func (c *LessonCard) Display(i int, titles []string, title, text, question string) {
	c.current = i
	c.setting = true
	// The menu names no chapter: the title and "n / N" above it do, and
	// in the lesson's column a long title was ellipsised in it.
	c.Chapters.Options = titles
	c.Chapters.ClearSelected()
	c.setting = false
	c.Count.SetText(fmt.Sprintf("%d / %d", i+1, len(titles)))
	c.Title.SetText(title)
	if question != "" {
		c.Asking.SetText(question + tr("views.lesson.press_right", nil))
		c.Asking.Show()
		c.Text.Hide()
	} else {
		c.Asking.Hide()
		c.Text.SetText(text)
		c.Text.Show()
	}
	c.enable(c.Prev, i > 0)
	c.enable(c.Next, i < len(titles)-1 || question != "")
}

// SetPlan shows what the chapter's runs will do with the button that
// starts them ("" hides both); while they run, plan is their progress and
// the button stops them.
func (c *LessonCard) SetPlan(plan string, running bool) {
	if plan == "" {
		c.Plan.Hide()
		c.Measure.Hide()
		return
	}
	c.Plan.SetText(plan)
	c.Plan.Show()
	c.Measure.Show()
	if running {
		c.Measure.SetText(tr("views.lesson.stop", nil))
		c.Measure.SetIcon(theme.MediaStopIcon())
	} else {
		c.Measure.SetText(tr("views.lesson.measure", nil))
		c.Measure.SetIcon(theme.MediaPlayIcon())
	}
}

func (c *LessonCard) enable(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}

// columnLayout stacks its objects as a VBox does, but gives each its
// width before asking its height: a word-wrapped label's height depends
// on its width, and a VBox asks first, so a label that had just been
// narrowed (the card moved into projector mode's column) kept the height
// of its wider lines and its last ones were cut.
type columnLayout struct{}

func (columnLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	y, gap := float32(0), theme.Padding()
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		o.Resize(fyne.NewSize(size.Width, o.Size().Height))
		o.Resize(fyne.NewSize(size.Width, o.MinSize().Height))
		o.Move(fyne.NewPos(0, y))
		y += o.Size().Height + gap
	}
}

func (columnLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w, h float32
	n := 0
	for _, o := range objs {
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		w, h, n = max(w, m.Width), h+m.Height, n+1
	}
	if n > 1 {
		h += theme.Padding() * float32(n-1)
	}
	return fyne.NewSize(w, h)
}
