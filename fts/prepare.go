package fts

import (
	"strings"
	"unicode"
)

// IsCJK reports whether r is written without spaces between words: Han
// ideographs, Hiragana, Katakana (with the prolonged sound mark) and
// Hangul.
func IsCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー'
}

// Prepare rewrites text for the index: every run of CJK characters
// becomes its overlapping bigrams followed by its last character, each a
// token of its own; everything else is left to the tokenizer. The last
// character makes every character of a run the first of some token, so a
// one-character prefix query finds it.
func Prepare(s string) string {
	if !hasCJK(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) * 2)
	rs := []rune(s)
	for i := 0; i < len(rs); {
		if !IsCJK(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && IsCJK(rs[j]) {
			j++
		}
		writeRun(&b, rs[i:j], true)
		i = j
	}
	return b.String()
}

// writeRun writes a CJK run as space-separated bigrams (and, with last,
// its last character), with spaces around it.
func writeRun(b *strings.Builder, run []rune, last bool) {
	b.WriteByte(' ')
	for k := 0; k+1 < len(run); k++ {
		b.WriteString(string(run[k : k+2]))
		b.WriteByte(' ')
	}
	if last || len(run) == 1 {
		b.WriteRune(run[len(run)-1])
		b.WriteByte(' ')
	}
}

// queryText is a user word as the index holds it: CJK runs as their
// bigrams only (a phrase of consecutive tokens; a single character stays
// itself).
func queryText(w string) string {
	if !hasCJK(w) {
		return w
	}
	var b strings.Builder
	rs := []rune(w)
	for i := 0; i < len(rs); {
		if !IsCJK(rs[i]) {
			b.WriteRune(rs[i])
			i++
			continue
		}
		j := i
		for j < len(rs) && IsCJK(rs[j]) {
			j++
		}
		writeRun(&b, rs[i:j], false)
		i = j
	}
	return strings.TrimSpace(b.String())
}

func hasCJK(s string) bool {
	for _, r := range s {
		if r >= 0x1100 && IsCJK(r) {
			return true
		}
	}
	return false
}

// isWordRune is what unicode61 keeps inside a token: letters, digits,
// and marks (diacritics, removed later) and private-use characters.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Co, r)
}
