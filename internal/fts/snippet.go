package fts

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

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

// SnippetWindow finds, in a text handed over in pieces, the first match
// of the terms and the text around it, for Snippet: a hit in a line too
// long to read whole (a 100 MB tool output) is shown where it matches,
// not by the text's start. It holds windowContext bytes before the match
// and after it, and the piece being looked at.
type SnippetWindow struct {
	terms []Term
	buf   []byte
	at    int // where the first match starts in buf; -1 before one is found
	// Each term's words, folded (nil for a term with a word that is not
	// ASCII), and a buffer for the text in lower case: the quick test of
	// ASCII text.
	need  [][]string
	lower []byte
}

// windowContext is the text kept on either side of the match: more than
// a snippet shows (SnippetLen characters, four bytes at most each, a
// third of them before the match).
const windowContext = 2 << 10

// NewSnippetWindow returns a SnippetWindow of the terms.
func NewSnippetWindow(terms []Term) *SnippetWindow {
	w := &SnippetWindow{terms: terms, at: -1}
	for _, t := range terms {
		var need []string
		for _, wd := range words(t.Text) {
			if !isASCII(wd.folded) {
				need = nil
				break
			}
			need = append(need, wd.folded)
		}
		w.need = append(w.need, need)
	}
	return w
}

// Feed adds the next piece of the text and reports whether the window is
// complete: the rest of the text is not needed.
func (w *SnippetWindow) Feed(piece string) bool {
	if w.at >= 0 {
		w.buf = append(w.buf, piece[:min(len(piece), max(0, w.at+windowContext-len(w.buf)))]...)
		return len(w.buf) >= w.at+windowContext
	}
	w.buf = append(w.buf, piece...)
	at := w.first(false)
	if at < 0 { // the tail stays: a match may begin in it
		w.keepFrom(len(w.buf)-windowContext, len(w.buf))
		return false
	}
	w.at = at - w.keepFrom(at-windowContext, at)
	w.buf = w.buf[:min(len(w.buf), w.at+windowContext)]
	return len(w.buf) >= w.at+windowContext
}

// Text is the window, the first match inside it, for Snippet; ok is false
// when the text had no match.
func (w *SnippetWindow) Text() (text string, ok bool) {
	if w.at < 0 && w.first(true) < 0 {
		return "", false
	}
	return string(w.buf), true
}

// first is the start of the first match in the buffer, -1 for none; one
// that reaches the buffer's end is not taken unless the text ended there
// (the word may go on in the next piece).
func (w *SnippetWindow) first(ended bool) int {
	if !w.mayMatch() {
		return -1
	}
	text := unsafe.String(unsafe.SliceData(w.buf), len(w.buf))
	at := -1
	for _, s := range matches(text, w.terms) {
		if (ended || s.to < len(text)) && (at < 0 || s.from < at) {
			at = s.from
		}
	}
	return at
}

// mayMatch is false when the buffer cannot hold a match: it is ASCII (its
// words fold to lower case) and no term has all its words in it. Most of
// a long tool output is, and matches splits every word (11 s for 100 MB).
func (w *SnippetWindow) mayMatch() bool {
	if !isASCII(unsafe.String(unsafe.SliceData(w.buf), len(w.buf))) {
		return true
	}
	w.lower = w.lower[:0]
	for _, c := range w.buf {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		w.lower = append(w.lower, c)
	}
	for _, need := range w.need {
		all := len(need) > 0
		for _, wd := range need {
			all = all && bytes.Contains(w.lower, []byte(wd))
		}
		if all {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// keepFrom drops the buffer's bytes before i, moved on to just past white
// space before limit if there is one (not to start inside a word, which
// could match a term), and returns how many it dropped.
func (w *SnippetWindow) keepFrom(i, limit int) int {
	if i <= 0 {
		return 0
	}
	if j := bytes.IndexAny(w.buf[i:limit], " \n\t"); j >= 0 {
		i += j + 1
	} else {
		for i < len(w.buf) && !utf8.RuneStart(w.buf[i]) {
			i++
		}
	}
	w.buf = w.buf[:copy(w.buf, w.buf[i:])]
	return i
}
