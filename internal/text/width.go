package text

import (
	"math"
	"strconv"
	"strings"

	"github.com/rivo/uniseg"
)

// Terminal cells. A terminal draws a grapheme cluster (a character with
// its combining marks, an emoji sequence) in one or two cells: Chinese,
// Japanese and Korean characters and most emoji take two, combining marks
// and zero-width joiners none. Counting runes instead made every CJK row
// of a table wrap; uniseg follows Unicode's East Asian Width and emoji
// data, as terminals do.

// Width is the number of terminal cells s takes.
func Width(s string) int {
	if ascii(s) {
		return len(s)
	}
	return uniseg.StringWidth(s)
}

// ascii reports whether s is printable ASCII only: one cell a byte (the
// common case, without the grapheme machinery).
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// CutWidth shortens s to at most n cells, marking the cut with an
// ellipsis (one cell). A wide character that would straddle the limit is
// left out whole, so the result may be a cell short of n.
func CutWidth(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if ascii(s) {
		if len(s) <= n {
			return s
		}
		if n == 1 {
			return s[:1]
		}
		return s[:n-1] + "…"
	}
	if Width(s) <= n {
		return s
	}
	limit := n - 1 // room for the ellipsis
	if n == 1 {
		limit = 1
	}
	var b strings.Builder
	used, state := 0, -1
	rest := s
	for len(rest) > 0 {
		var cluster string
		var w int
		cluster, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if used+w > limit {
			break
		}
		b.WriteString(cluster)
		used += w
	}
	if n > 1 {
		b.WriteString("…")
	}
	return b.String()
}

// CutStart shortens s to at most n cells by cutting its start, marked
// with an ellipsis: the end of a path (its file name) is what tells files
// apart.
func CutStart(s string, n int) string {
	if Width(s) <= n {
		return s
	}
	if n <= 1 {
		return CutWidth(s, n)
	}
	var clusters []string
	var widths []int
	state := -1
	for rest := s; len(rest) > 0; {
		var c string
		var w int
		c, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		clusters, widths = append(clusters, c), append(widths, w)
	}
	used, i := 0, len(clusters)
	for i > 0 && used+widths[i-1] <= n-1 {
		i--
		used += widths[i]
	}
	return "…" + strings.Join(clusters[i:], "")
}

// PadRight fills s with spaces to n cells (left-aligned); PadLeft puts
// the spaces first (right-aligned, for numbers). Text already as wide is
// returned as it is.
func PadRight(s string, n int) string {
	if w := Width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// PadLeft is s right-aligned in n cells.
func PadLeft(s string, n int) string {
	if w := Width(s); w < n {
		return strings.Repeat(" ", n-w) + s
	}
	return s
}

// Round is a number rounded to an integer with thousands separators: a
// token count for reading (pi may write fractional counts, and float sums
// carry binary noise: 1712834.7000000002 reads 1,712,835). Values past
// int64 (sums saturate at the largest float) are written in full.
func Round(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return GroupDigits(strconv.FormatFloat(math.Round(f), 'f', 0, 64))
}

// Short is a count in at most about five cells: 999, 1.2k, 45.3k, 1.7M,
// 2.1G, for tables that would not fit a terminal with every digit.
func Short(f float64) string {
	a := math.Abs(f)
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return strconv.FormatFloat(f, 'f', -1, 64)
	case a < 1000:
		return strconv.FormatFloat(math.Round(f), 'f', 0, 64)
	}
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}, {1e15, "P"}} {
		v := f / u.div
		if math.Abs(v) < 999.95 {
			if math.Abs(v) < 99.95 {
				return strconv.FormatFloat(v, 'f', 1, 64) + u.suffix
			}
			return strconv.FormatFloat(v, 'f', 0, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(f, 'g', 3, 64)
}

// Money is an amount in US dollars, the one way every face writes it:
// cents with thousands separators ($1,153.00); an amount that would read
// $0.00 but is not zero keeps four decimals ($0.0042), so that cheap
// sessions do not all look free.
func Money(v float64) string {
	neg := v < 0
	a := math.Abs(v)
	var s string
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "$" + strconv.FormatFloat(v, 'f', -1, 64)
	case a > 0 && a < 0.005:
		s = strconv.FormatFloat(a, 'f', 4, 64)
	default:
		s = GroupDigits(strconv.FormatFloat(a, 'f', 2, 64))
	}
	if neg && s != "0.00" {
		return "-$" + s
	}
	return "$" + s
}

// MoneyShort is Money where room is short (a chart's axis): an amount of
// a trillion dollars or more, which only absurd input reaches (sums
// saturate at 1.8e308, a 309-digit Money), in two significant digits
// ($1.8e+308).
func MoneyShort(v float64) string {
	if math.Abs(v) < 1e12 || math.IsNaN(v) || math.IsInf(v, 0) {
		return Money(v)
	}
	if v < 0 {
		return "-$" + strconv.FormatFloat(-v, 'g', 2, 64)
	}
	return "$" + strconv.FormatFloat(v, 'g', 2, 64)
}

// Wrap breaks s into lines of at most width terminal cells (Width),
// between words: after a space, or after a wide (CJK) character where
// Unicode's line breaking rules allow (UAX #14, by uniseg), so that a
// terminal's own wrap at its edge never splits a word ("docke /
// r-compose").
// The spaces at a break end the line before it and belong to no line; a
// word wider than width is broken between characters; a newline ends a
// line. Each line is a span [from, to) of s. width ≤ 0: s is one line.
func Wrap(s string, width int) [][2]int {
	if width <= 0 || !strings.Contains(s, "\n") && Width(s) <= width {
		return [][2]int{{0, len(s)}}
	}
	var lines [][2]int
	start, lineW := 0, 0 // the line being filled and its width so far
	brk, brkW := -1, 0   // its last break opportunity past start, and the width before it
	state := -1
	for pos, rest := 0, s; len(rest) > 0; {
		var cluster string
		var boundaries int
		cluster, rest, boundaries, state = uniseg.StepString(rest, state)
		w := boundaries >> uniseg.ShiftWidth
		if cluster == "\n" || cluster == "\r\n" {
			lines = append(lines, [2]int{start, trimSpaces(s, start, pos)})
			start, lineW, brk = pos+len(cluster), 0, -1
			pos += len(cluster)
			continue
		}
		for lineW+w > width && cluster != " " && pos > start {
			if brk > start { // at the last break opportunity
				lines = append(lines, [2]int{start, trimSpaces(s, start, brk)})
				start, lineW = brk, lineW-brkW
			} else { // a word wider than the line: between characters
				lines = append(lines, [2]int{start, pos})
				start, lineW = pos, 0
			}
			brk = -1
		}
		lineW += w
		pos += len(cluster)
		// After every space (UAX #14 keeps "see /usr" together), and where
		// it allows after a wide character; not after a hyphen or a slash,
		// which in code would split docker-compose and paths.
		if cluster == " " || cluster == "\t" || w == 2 && boundaries&uniseg.MaskLine == uniseg.LineCanBreak {
			brk, brkW = pos, lineW
		}
	}
	return append(lines, [2]int{start, trimSpaces(s, start, len(s))})
}

// trimSpaces is the end of s[from:to] without its trailing spaces.
func trimSpaces(s string, from, to int) int {
	for to > from && s[to-1] == ' ' {
		to--
	}
	return to
}
