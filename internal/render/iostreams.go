// Package render turns the catalog's answers into text and JSON, for the
// CLI and for the web server alike: show's reading view, tree drawings,
// session tables, and the JSON writers behind every --json. Terminal
// checks sit behind one injectable type, IOStreams, so TTY output is
// tested like any other.
package render

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/term"
)

// IOStreams are the output streams and what is known about them. Build it
// with System in main; tests set the fields directly.
type IOStreams struct {
	Out, ErrOut io.Writer
	// OutTTY and ErrTTY: the stream is a terminal (tables aligned and cut,
	// progress drawn), as opposed to a pipe or file (tab-separated, full
	// values, nothing drawn).
	OutTTY, ErrTTY bool
	// Width is the terminal width in cells ($COLUMNS wins; 120 otherwise).
	Width int
	// Height is the terminal height in lines ($LINES wins; 24 otherwise).
	Height int
	// Colour: the output is a terminal that takes colour: not with
	// NO_COLOR set (no-color.org) or TERM=dumb.
	Colour bool
}

// fder is a writer backed by a file descriptor (an *os.File, or a buffer
// in front of one).
type fder interface{ Fd() uintptr }

// System describes out and errOut as they are: a stream is a terminal when
// it is backed by a terminal's file descriptor (not merely a character
// device: /dev/null is one too).
func System(out, errOut io.Writer) *IOStreams {
	s := &IOStreams{Out: out, ErrOut: errOut, OutTTY: isTerminal(out), ErrTTY: isTerminal(errOut), Width: 120, Height: 24}
	if f, ok := out.(fder); ok && s.OutTTY {
		if cols, rows, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			s.Width, s.Height = cols, rows
		}
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		s.Width = c
	}
	if l, err := strconv.Atoi(os.Getenv("LINES")); err == nil && l > 0 {
		s.Height = l
	}
	s.Colour = ColourFor(s.OutTTY, os.Getenv)
	return s
}

// ColourFor says whether output takes colour: a terminal, unless NO_COLOR
// is set to anything (no-color.org) or the terminal is dumb.
func ColourFor(tty bool, getenv func(string) string) bool {
	return tty && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(fder)
	return ok && term.IsTerminal(int(f.Fd()))
}
