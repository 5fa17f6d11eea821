package fts

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Fold is how the index compares words: lower case, diacritics removed
// (unicode61 with remove_diacritics 2: "Café" is "cafe").
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	s = strings.ToLower(s)
	if ascii {
		return s
	}
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, s)
	if err != nil {
		return s
	}
	return out
}

// span is a byte range of the text.
type span struct{ from, to int }

// word is a token of the text with its byte range.
type word struct {
	folded   string
	from, to int
	cjk      bool
}

// words splits text like the index does: runs of word characters, each
// CJK character on its own (CJK is matched by substring).
func words(text string) []word {
	var out []word
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case IsCJK(r):
			out = append(out, word{folded: string(r), from: i, to: i + n, cjk: true})
			i += n
		case isWordRune(r):
			j := i + n
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if !isWordRune(r2) || IsCJK(r2) {
					break
				}
				j += n2
			}
			out = append(out, word{folded: Fold(text[i:j]), from: i, to: j})
			i = j
		default:
			i += n
		}
	}
	return out
}

// matches finds where the terms occur in text: each term is the sequence
// of its words (a prefix term's last word may be longer in the text).
func matches(text string, terms []Term) []span {
	ws := words(text)
	var out []span
	for _, t := range terms {
		tw := words(t.Text)
		if len(tw) == 0 {
			continue
		}
		for i := 0; i+len(tw) <= len(ws); i++ {
			ok := true
			for k, w := range tw {
				got := ws[i+k].folded
				last := k == len(tw)-1
				if got != w.folded && !(last && t.Prefix && strings.HasPrefix(got, w.folded)) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, span{ws[i].from, ws[i+len(tw)-1].to})
			}
		}
	}
	return out
}

// Snippet cuts text to about width characters around the first match of
// the terms, on one line, and marks the matched words. Without a match
// (the index matched a stemmed or tokenized form the highlighter does not
// see) it is the start of the text.
func Snippet(text string, terms []Term, width int) []pidex.Segment {
	spans := matches(text, terms)
	first := len(text)
	for _, s := range spans {
		first = min(first, s.from)
	}
	if first == len(text) {
		first = 0
	}
	// Start a third of the width before the first match, at a word start.
	start := first
	for n := 0; start > 0 && n < width/3; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		start -= size
	}
	if start > 0 {
		if i := strings.IndexAny(text[start:first], " \n\t"); i >= 0 {
			start += i + 1
		} else if inWord(text, start) {
			start = wordEnd(text, start) // no blank before the match: at least not inside a word
		}
	}
	end := start
	for n := 0; end < len(text) && n < width; n++ {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	// A cut falls between words: back to the start of the word it would
	// split, or, when that word is where the snippet begins or its first
	// match, on to its end.
	if end < len(text) && inWord(text, end) {
		if ws := wordStart(text, end); ws > start && ws > first {
			end = ws
		} else {
			end = wordEnd(text, end)
		}
	}
	var segs []pidex.Segment
	if start > 0 {
		segs = append(segs, pidex.Segment{Text: "…"})
	}
	pos := start
	for _, s := range sortSpans(spans) {
		if s.from < pos || s.to > end {
			continue // cut by an edge (a phrase or CJK word across it): shown, not marked
		}
		from, to := s.from, s.to
		if from > pos {
			segs = append(segs, pidex.Segment{Text: oneLine(text[pos:from])})
		}
		segs = append(segs, pidex.Segment{Text: oneLine(text[from:to]), Hit: true})
		pos = to
	}
	if pos < end {
		segs = append(segs, pidex.Segment{Text: oneLine(text[pos:end])})
	}
	if end < len(text) {
		segs = append(segs, pidex.Segment{Text: "…"})
	}
	return segs
}

// Mark splits text into segments, the matches of the terms marked, the
// text kept exactly (no cutting, no folding of white space): for
// highlighting a query in a whole message.
func Mark(text string, terms []Term) []pidex.Segment {
	spans := sortSpans(matches(text, terms))
	if len(spans) == 0 {
		return []pidex.Segment{{Text: text}}
	}
	var segs []pidex.Segment
	pos := 0
	for _, s := range spans {
		if s.from > pos {
			segs = append(segs, pidex.Segment{Text: text[pos:s.from]})
		}
		segs = append(segs, pidex.Segment{Text: text[s.from:s.to], Hit: true})
		pos = s.to
	}
	if pos < len(text) {
		segs = append(segs, pidex.Segment{Text: text[pos:]})
	}
	return segs
}

// inWord reports whether byte offset i of text lies between two runes of
// the same word (CJK characters are words of their own).
func inWord(text string, i int) bool {
	if i <= 0 || i >= len(text) {
		return false
	}
	a, _ := utf8.DecodeLastRuneInString(text[:i])
	b, _ := utf8.DecodeRuneInString(text[i:])
	return isWordRune(a) && isWordRune(b) && !IsCJK(a) && !IsCJK(b)
}

// wordStart is the start of the word around offset i; wordEnd its end.
func wordStart(text string, i int) int {
	for i > 0 && inWord(text, i) {
		_, n := utf8.DecodeLastRuneInString(text[:i])
		i -= n
	}
	return i
}

func wordEnd(text string, i int) int {
	for i < len(text) && inWord(text, i) {
		_, n := utf8.DecodeRuneInString(text[i:])
		i += n
	}
	return i
}

// sortSpans orders spans by start and drops overlaps.
func sortSpans(s []span) []span {
	out := append([]span(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].from < out[j-1].from; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	kept := out[:0]
	for _, x := range out {
		if len(kept) > 0 && x.from < kept[len(kept)-1].to {
			continue
		}
		kept = append(kept, x)
	}
	return kept
}

// oneLine turns line breaks and tabs into spaces (runs of white space
// shrink to one), so a snippet is one line.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\r\t") && !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}
