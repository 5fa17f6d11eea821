package fts

import (
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Tokens is the text as the SQLite catalog's index sees it: Prepare (CJK
// runs as their bigrams and last character), then FTS5's unicode61
// tokenizer with remove_diacritics 2, replayed from its own table of what
// it does with each code point (unicode61_table.go): runs of token
// characters, each folded (case, and Latin diacritics; Greek, Cyrillic
// and kana keep theirs), some combining marks dropped. A team catalog in
// PostgreSQL is given these tokens, never the text, so its own parser and
// locale play no part (TestTokensEqualFTS5 checks them against FTS5's).
//
// Fold is not this: it strips every mark (snippet highlighting only).
func Tokens(text string) []string { return split(Prepare(text)) }

// TermTokens is a query term's tokens, as Term.Match hands them to FTS5:
// CJK runs as their bigrams only (a one-character run as itself).
func TermTokens(t Term) []string { return split(queryText(t.Text)) }

func split(s string) []string {
	var out []string
	z := tokenizer{s: s}
	for {
		tok, _, ok := z.next()
		if !ok {
			return out
		}
		out = append(out, strings.Clone(tok))
	}
}

// tokenizer walks the tokens of s as unicode61 splits and folds them:
// runs of token characters (isToken), each folded (foldRune), a run that
// folds to nothing (diacritics only) no token. It is the one reading of
// the tokenizer's table that Tokens, Matcher and Distinct share. A token
// is s's own bytes when it needs no folding (most of a session's text is
// lower-case ASCII already), else the tokenizer's buffer: either is valid
// until the next call.
type tokenizer struct {
	s    string
	i    int
	fold []byte
}

// next returns the next token and its FNV-1a hash (computed as the token
// is scanned: a second pass over it, or maphash's call per token, cost
// Distinct as much as the rest of its work); ok is false at the end.
func (z *tokenizer) next() (tok string, hash uint64, ok bool) {
	s, i := z.s, z.i
	for i < len(s) {
		start, plain, h := i, true, uint64(fnvBasis)
		for i < len(s) {
			if c := s[i]; c < utf8.RuneSelf {
				k := asciiClass[c]
				if k == asciiSep {
					break
				}
				plain = plain && k == asciiKeep
				h = (h ^ uint64(c)) * fnvPrime
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isToken(r) {
				break
			}
			plain = false
			i += n
		}
		end := i
		if i < len(s) { // past the separator
			if s[i] < utf8.RuneSelf {
				i++
			} else {
				_, n := utf8.DecodeRuneInString(s[i:])
				i += n
			}
		}
		if end == start {
			continue
		}
		tok, hash = s[start:end], h
		if !plain {
			z.fold = foldInto(z.fold[:0], tok)
			tok = unsafe.String(unsafe.SliceData(z.fold), len(z.fold))
			hash = fnv(tok)
		}
		if tok != "" {
			z.i = i
			return tok, hash, true
		}
	}
	z.i = i
	return "", 0, false
}

const (
	asciiSep = iota
	asciiKeep
	asciiUpper
)

// asciiClass is what unicode61 does with each ASCII byte.
var asciiClass = func() (t [utf8.RuneSelf]byte) {
	for c := range utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = asciiKeep
		case 'A' <= c && c <= 'Z':
			t[c] = asciiUpper
		}
	}
	return t
}()

// foldInto appends the token characters of run folded as unicode61 folds
// them (a removed diacritic leaves nothing).
func foldInto(b []byte, run string) []byte {
	for i := 0; i < len(run); i++ { // ASCII first: most folds are of capitals
		c := run[i]
		if c >= utf8.RuneSelf {
			return foldRunes(b, run[i:])
		}
		if asciiClass[c] == asciiUpper {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

func foldRunes(b []byte, run string) []byte {
	for _, r := range run {
		if f := foldRune(r); f != 0 {
			b = utf8.AppendRune(b, f)
		}
	}
	return b
}

// FNV-1a, then mixed so that the low bits, a hash table's index, depend
// on every byte.
const (
	fnvBasis = 14695981039346656037
	fnvPrime = 1099511628211
)

func fnv(s string) uint64 {
	h := uint64(fnvBasis)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

func mix(h uint64) uint64 { // the finalizer of MurmurHash3
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	return h
}

// isToken reports whether unicode61 keeps r in a token.
func isToken(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	i := sort.Search(len(tokenRanges)/2, func(i int) bool { return tokenRanges[2*i+1] >= r })
	return i < len(tokenRanges)/2 && tokenRanges[2*i] <= r
}

// foldRune is r as unicode61 folds it: 0 for a diacritic it removes.
func foldRune(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	if f, ok := folds[r]; ok {
		return f
	}
	return r
}
