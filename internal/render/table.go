package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/pidex-dev/pidex/internal/text"
)

// Table writes rows aligned for a terminal, or tab-separated with full
// values when piped (for cut, awk, sort).
type Table struct {
	w   io.Writer
	tty bool
	tw  *tabwriter.Writer
}

// NewTable starts a table with its header row.
func NewTable(w io.Writer, tty bool, header ...string) *Table {
	t := &Table{w: w, tty: tty}
	if tty {
		t.tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	}
	t.Row(header...)
	return t
}

// Row writes one row.
// Row writes one row. On a terminal control characters are shown escaped
// (Safe); piped, tab, newline, carriage return and backslash are escaped
// (\t, \n, \r, \\) so that a row stays one line.
func (t *Table) Row(cells ...string) {
	for i, c := range cells {
		if t.tty {
			cells[i] = Safe(c)
		} else {
			cells[i] = tsvEscape.Replace(c)
		}
	}
	if t.tty {
		fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
		return
	}
	fmt.Fprintln(t.w, strings.Join(cells, "\t"))
}

// Flush writes out an aligned table.
func (t *Table) Flush() error {
	if t.tw != nil {
		return t.tw.Flush()
	}
	return nil
}

// Itoa formats n in decimal.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Num is a token count as pi wrote it: an integer without a fraction, a
// fractional count with the digits it needs (JavaScript's formatting).
func Num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Cut shortens s to n display cells (runes), marking the cut with an ellipsis.
func Cut(s string, n int) string { return text.Cut(s, n) }

// RelTime renders t relative to now: "5m ago", "3h ago", "2d ago", else a date.
func RelTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return t.Local().Format("2006-01-02 15:04")
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 30*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
	return t.Local().Format("2006-01-02")
}
