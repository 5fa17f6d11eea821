package render

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pidex-dev/pidex/internal/text"
)

// Table writes rows aligned for a terminal, or tab-separated with full
// values when piped (for cut, awk, sort).
//
// On a terminal, widths are display cells (a CJK character takes two:
// text.Width), numbers are right-aligned (a column whose every cell is a
// number), and with Fit the rows never pass the terminal's width: the
// columns that may be cut are narrowed, widest first, and only if that is
// not enough is a row cut at the edge. Piped rows are written as they
// come; terminal rows are held until Flush, which needs them all to
// align.
type Table struct {
	w     io.Writer
	tty   bool
	width int          // Fit: at most this many cells a row (0: no limit)
	flex  []int        // Fit: the columns that may be cut, in that order of preference
	start map[int]bool // columns cut at their start (paths)
	last  []int        // Fit: columns cut only once the flex ones are at their narrowest
	rows  [][]string
	gap   int  // the cells between columns: columnGap, or 1 where that is too wide (fit)
	out   bool // a Flush wrote rows: the header is out, what is held is data
	err   error
	line  []byte // a piped row, escaped (reused)
}

// columnGap separates terminal columns.
const columnGap = 2

// NewTable starts a table with its header row.
func NewTable(w io.Writer, tty bool, header ...string) *Table {
	t := &Table{w: w, tty: tty}
	t.Row(header...)
	return t
}

// Fit keeps a terminal table within width cells, cutting the flex
// columns (indexes; the widest first, and of two as wide the one listed
// first) down to a few cells. With no flex column given, any column that is not all numbers
// may be cut. Piped tables are never cut.
func (t *Table) Fit(width int, flex ...int) *Table {
	t.width, t.flex = width, flex
	return t
}

// CutLast names columns that give way only once the flex columns can
// give no more (a cost report's periods: short, and its axis).
func (t *Table) CutLast(cols ...int) *Table {
	t.last = append(t.last, cols...)
	return t
}

// CutStart makes the cells of these columns lose their start when cut,
// not their end: a path keeps its file name.
func (t *Table) CutStart(cols ...int) *Table {
	if t.start == nil {
		t.start = map[int]bool{}
	}
	for _, c := range cols {
		t.start[c] = true
	}
	return t
}

// Row writes one row. On a terminal control characters are shown escaped
// (Safe); piped, tab, newline, carriage return and backslash are escaped
// (\t, \n, \r, \\) so that a row stays one line.
func (t *Table) Row(cells ...string) {
	if !t.tty {
		if t.err != nil {
			return
		}
		t.line = t.line[:0]
		for i, c := range cells {
			if i > 0 {
				t.line = append(t.line, '\t')
			}
			t.line = appendTSV(t.line, c)
		}
		_, t.err = t.w.Write(append(t.line, '\n'))
		return
	}
	row := make([]string, len(cells))
	for i, c := range cells {
		row[i] = Safe(c)
	}
	t.rows = append(t.rows, row)
}

// NaturalWidth is how many cells the widest row of the terminal table
// takes uncut: a renderer can choose a shorter form of its values when
// the table would not fit.
func (t *Table) NaturalWidth() int {
	ws, _ := t.columns()
	return rowWidth(ws)
}

// Flush writes out an aligned table.
func (t *Table) Flush() error {
	if !t.tty || t.err != nil {
		return t.err
	}
	widths, right := t.columns()
	t.gap = columnGap
	t.fit(widths, right)
	var b strings.Builder
	for _, row := range t.rows {
		b.Reset()
		for i, c := range row {
			if i >= len(widths) {
				break
			}
			if i > 0 {
				b.WriteString(strings.Repeat(" ", t.gap))
			}
			if t.start[i] {
				c = text.CutStart(c, widths[i])
			} else {
				c = text.CutWidth(c, widths[i])
			}
			switch {
			case right[i]:
				b.WriteString(text.PadLeft(c, widths[i]))
			case i == len(row)-1:
				b.WriteString(c) // no trailing spaces
			default:
				b.WriteString(text.PadRight(c, widths[i]))
			}
		}
		line := strings.TrimRight(b.String(), " ")
		if t.width > 0 && text.Width(line) > t.width {
			line = text.CutWidth(line, t.width) // the last resort: nothing could be narrowed enough
		}
		if _, err := io.WriteString(t.w, line+"\n"); err != nil {
			return err
		}
	}
	// A long result is flushed in blocks (render.RowWriter): each is
	// aligned by itself and never written twice.
	t.rows, t.out = t.rows[:0], t.out || len(t.rows) > 0
	return nil
}

// columns measures the terminal rows: each column's widest cell, and
// whether it holds numbers only (its header aside).
func (t *Table) columns() (widths []int, right []bool) {
	for r, row := range t.rows {
		for i, c := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
				right = append(right, true)
			}
			widths[i] = max(widths[i], text.Width(c))
			if (r > 0 || t.out) && c != "" && !isNumber(c) {
				right[i] = false
			}
		}
	}
	for i := range right {
		if right[i] && !t.hasValue(i) {
			right[i] = false // a column of empty cells is not a number column
		}
	}
	return widths, right
}

func (t *Table) hasValue(col int) bool {
	for _, row := range t.rows[min(1, len(t.rows)):] {
		if col < len(row) && row[col] != "" {
			return true
		}
	}
	return false
}

// minFlex is the narrowest a cut column gets: room for a few characters
// and the ellipsis; tightFlex, once even single gaps between the columns
// do not make the rows fit: a name cut short rather than a number.
const (
	minFlex   = 8
	tightFlex = 4
)

// fit narrows columns until the rows fit t.width: the flex columns (or
// every column of text), always the widest of them first, so that a long
// title gives way before a short project name; of two as wide, the one
// listed first.
func (t *Table) fit(widths []int, right []bool) {
	if t.width <= 0 {
		return
	}
	cut := t.flex
	if len(cut) == 0 {
		for i := range widths {
			if !right[i] && !slices.Contains(t.last, i) {
				cut = append(cut, i)
			}
		}
	}
	floor := make([]int, len(widths))
	for _, i := range append(slices.Clone(cut), t.last...) {
		if i < len(widths) {
			floor[i] = min(widths[i], minFlex)
		}
	}
	excess := rowWidth(widths) - t.width
	narrow := func(cols []int) {
		for ; excess > 0; excess-- {
			widest := -1
			for _, i := range cols {
				if i < len(widths) && widths[i] > floor[i] && (widest < 0 || widths[i] > widths[widest]) {
					widest = i
				}
			}
			if widest < 0 {
				return
			}
			widths[widest]--
		}
	}
	narrow(cut)
	narrow(t.last)
	if excess <= 0 || len(widths) < 2 {
		return
	}
	// Still too wide (a cost report's nine columns on 70 cells): one cell
	// between columns, then the cut columns narrower still, before the
	// last resort of cutting each row at the edge, which took the last
	// column's numbers off.
	t.gap = 1
	excess -= (len(widths) - 1) * (columnGap - 1)
	for _, i := range append(slices.Clone(cut), t.last...) {
		if i < len(widths) {
			floor[i] = min(floor[i], tightFlex)
		}
	}
	narrow(cut)
	narrow(t.last)
}

func rowWidth(widths []int) int {
	n := 0
	for i, w := range widths {
		if i > 0 {
			n += columnGap
		}
		n += w
	}
	return n
}

// number is what a number cell looks like: digits with separators, a
// sign, a currency, a decimal part or an exponent, a unit (1.2k, 3.4 MiB
// is text), a note's marker (cost's $0.00*), or a dash for none.
var number = regexp.MustCompile(`^(-|[-+]?\$?[0-9][0-9,]*(\.[0-9]+)?([eE][-+]?[0-9]+)?[kMGTP%]?\*?)$`)

func isNumber(s string) bool { return number.MatchString(s) }

// Itoa formats n in decimal.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Num is a token count as pi wrote it: an integer without a fraction, a
// fractional count with the digits it needs (JavaScript's formatting).
func Num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

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
