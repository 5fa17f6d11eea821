// Package text holds the text helpers every view shares: cutting to a
// length, folding white space, splitting lines; and patterns compiled on
// first use (LazyRegexp), for every package.
package text

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Cut shortens s to n runes, marking the cut with an ellipsis. Runes are
// counted only as far as the cut: a preview of a megabyte tool output
// needs its first n, not the whole string converted to runes (a copy four
// times its size, a tenth of a cold index's previews). An invalid byte
// counts as one rune and, in a cut text, becomes U+FFFD, as []rune(s)
// makes it.
func Cut(s string, n int) string {
	if len(s) <= n { // bytes ≥ runes: nothing to cut
		return s
	}
	keep := max(n, 0) // runes kept when cut, the ellipsis included
	if n >= 2 {
		keep = n - 1
	}
	at, count := 0, 0 // at: where rune number keep starts
	for i := 0; i < len(s) && count <= n; count++ {
		if count == keep {
			at = i
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if count <= n {
		return s
	}
	if n < 2 {
		return string([]rune(s[:at]))
	}
	return string([]rune(s[:at])) + "…"
}

// OneLine collapses every run of white space (newlines included) to one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Lines splits text into lines, without trailing blank lines and trailing
// spaces; tabs inside are kept.
func Lines(s string) []string {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), " \t\r\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return lines
}

// FirstLine is the first line of s (trimmed), with " …" when more follow.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// Bytes is a byte count for people: 512 B, 1.2 KiB, 25.2 MiB, …
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// GroupDigits puts thousands separators into a decimal number (1234567.5
// is 1,234,567.5).
func GroupDigits(s string) string {
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if neg {
		out = "-" + out
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}

// Count is an integer with thousands separators.
func Count(n int64) string { return GroupDigits(strconv.FormatInt(n, 10)) }

// Plural is one or many, as n says.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Counted is n with thousands separators and the noun that agrees with
// it ("1 branch point", "2,048 branch points"): the one rule of a count
// in running text, for every page's templates.
func Counted(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(n) + " " + many
}

// ASCIILower folds ASCII capitals only, byte by byte, as SQLite's lower()
// does: the rule of every substring filter (--project, --name, --model),
// in SQL and in Go alike.
func ASCIILower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
