package fts

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsCJK reports whether r is written without spaces between words: Han
// ideographs (with their radicals, compatibility forms and extensions),
// Hiragana, Katakana (with the prolonged sound mark and half-width forms)
// and Hangul. Explicit ranges: this runs for every character indexed.
func IsCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x11FF: // Hangul Jamo
		return true
	case r < 0x2E80:
		return false
	case r <= 0x2FDF: // CJK and Kangxi radicals
		return true
	case r >= 0x3005 && r <= 0x3007, r >= 0x3021 && r <= 0x3029, r >= 0x3031 && r <= 0x3035, r >= 0x3038 && r <= 0x303C, r >= 0x16FE0 && r <= 0x16FFF:
		return true // iteration marks, Hangzhou numerals, kana repeat marks
	case r >= 0x3041 && r <= 0x30FF: // Hiragana, Katakana (ー included)
		return r != 0x30FB // the middle dot is punctuation
	case r >= 0x3131 && r <= 0x318E, r >= 0x31F0 && r <= 0x31FF: // Hangul compatibility Jamo, Katakana extensions
		return true
	case r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF: // CJK ideographs and extension A
		return true
	case r >= 0xA960 && r <= 0xA97F, r >= 0xAC00 && r <= 0xD7FF: // Hangul
		return true
	case r >= 0xF900 && r <= 0xFAFF: // compatibility ideographs
		return true
	case r >= 0xFF66 && r <= 0xFF9F, r >= 0xFFA0 && r <= 0xFFDC: // half-width Katakana and Hangul
		return true
	case r >= 0x1AFF0 && r <= 0x1B16F: // Kana extended, supplement and extensions
		return true
	case r >= 0x20000 && r <= 0x3FFFF: // CJK extensions B and later
		return true
	}
	return false
}

// Prepare rewrites text for the index: every run of CJK characters
// becomes its overlapping bigrams followed by its last character, each a
// token of its own; everything else is left to the tokenizer. The last
// character makes every character of a run the first of some token, so a
// one-character prefix query finds it.
func Prepare(s string) string { return rewriteCJK(s, true) }

// rewriteCJK writes every CJK run of s as its bigrams (and, with last, its
// last character), separated by spaces; other text is left as it is.
func rewriteCJK(s string, last bool) string {
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
		writeRun(&b, rs[i:j], last)
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
func queryText(w string) string { return strings.TrimSpace(rewriteCJK(w, false)) }

func hasCJK(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0xE1 { // every CJK character's UTF-8 form starts at 0xE1 or above
			continue
		}
		r, _ := utf8.DecodeRuneInString(s[i:])
		if IsCJK(r) {
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
