package fts

import (
	"sort"
	"unicode/utf8"
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
	var tok []byte
	in := false
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		i += n
		if !isToken(r) {
			if in && len(tok) > 0 {
				out = append(out, string(tok))
			}
			tok, in = tok[:0], false
			continue
		}
		in = true
		if f := foldRune(r); f != 0 {
			tok = utf8.AppendRune(tok, f)
		}
	}
	if in && len(tok) > 0 {
		out = append(out, string(tok))
	}
	return out
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
