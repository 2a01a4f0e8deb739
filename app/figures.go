package app

import "errors"

// figure is the viz figure of a panel; none until viz is wired in.
func (u *UI) figure(panel string) (any, bool) { return nil, false }

func renderFigure(fig any, format string) ([]byte, error) {
	return nil, errors.New("no figure renderer")
}
