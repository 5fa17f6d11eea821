package main

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pidex-dev/pidex/fts"
)

// PostgreSQL's limits on a tsvector (src/include/tsearch/ts_type.h).
const (
	maxPos      = 16383   // positions above are stored as 16383
	maxPosPerLx = 256     // positions of a lexeme beyond the 256th are dropped
	maxLexeme   = 2046    // bytes; a longer word is an error
	maxVector   = 1 << 20 // bytes of lexemes and positions; a larger tsvector is an error
	vectorRoom  = 1000000 // what a row is allowed to use, with room to spare
)

// Vector is an entry's search rows: one tsvector with positions when the
// entry fits PostgreSQL's limits (Exact: tsv @@ query is the answer),
// else the entry's distinct lexemes without positions, in as many rows as
// the size limit needs (a phrase is then only a conjunction of its words:
// the hit is confirmed against the entry's text, see Query).
type Vector struct {
	Rows  []string // tsvector literals
	Exact bool
}

// ToVector builds the tsvector literal(s) of a token stream.
func ToVector(toks []string) Vector {
	pos := map[string][]int{}
	var order []string
	exact := len(toks) <= maxPos
	for i, t := range toks {
		if len(t) > maxLexeme {
			t, exact = truncate(t), false
		}
		p, ok := pos[t]
		if !ok {
			order = append(order, t)
		}
		pos[t] = append(p, i+1)
		if len(p)+1 > maxPosPerLx {
			exact = false
		}
	}
	var b strings.Builder
	if exact {
		size := 0
		for _, t := range order {
			size += len(t) + 2 + 2*len(pos[t]) + 1
		}
		if size <= vectorRoom {
			for _, t := range order {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				writeLexeme(&b, t)
				b.WriteByte(':')
				for k, p := range pos[t] {
					if k > 0 {
						b.WriteByte(',')
					}
					b.WriteString(strconv.Itoa(p))
				}
			}
			return Vector{Rows: []string{b.String()}, Exact: true}
		}
	}
	// Lossy: the distinct lexemes, split into rows under the size limit.
	sort.Strings(order)
	var rows []string
	size := 0
	for _, t := range order {
		if size+len(t)+3 > vectorRoom {
			rows = append(rows, b.String())
			b.Reset()
			size = 0
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		writeLexeme(&b, t)
		size += len(t) + 3
	}
	if b.Len() > 0 || len(rows) == 0 {
		rows = append(rows, b.String())
	}
	return Vector{Rows: rows}
}

// truncate cuts a token to PostgreSQL's longest lexeme, at a character
// boundary (a query word is cut the same way).
func truncate(t string) string {
	if len(t) <= maxLexeme {
		return t
	}
	t = t[:maxLexeme]
	for len(t) > 0 && !utf8.ValidString(t) {
		t = t[:len(t)-1]
	}
	return t
}

// writeLexeme quotes a lexeme for tsvector and tsquery input.
func writeLexeme(b *strings.Builder, t string) {
	b.WriteByte('\'')
	for _, r := range t {
		switch r {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
}

// never is a lexeme no token can be (tokens hold only letters, numbers and
// marks): a term without tokens matches nothing.
const never = "'!'"

// Query is a parsed fts query written for PostgreSQL.
type Query struct {
	TSQuery string // for tsv @@ TSQuery::tsquery
	// Relaxed is TSQuery for rows without positions: PostgreSQL answers
	// false for a phrase there, and so true for an excluded one. Each
	// phrase is the conjunction of its tokens where a match counts, and
	// matches nothing where it excludes, so Relaxed finds every row that
	// TSQuery would on the positions (a superset, confirmed on the text).
	Relaxed string
	// Any is the disjunction of the query's positive lexemes: the candidate
	// filter for an entry split over several lossy rows (a conjunction can
	// hold across its rows, not within one).
	Any string
	// Phrases: a term of the query (positive or excluded) has more than one
	// token. On a lossy row such a term evaluates to "maybe" (true even
	// under '!'), so its hits are supersets to confirm against the text.
	Phrases bool
	// Truncated: a query word is longer than a lexeme can be; every hit is
	// confirmed.
	Truncated bool
}

// ToQuery translates a parsed query into a tsquery: a term is the
// phrase of its tokens ('parse' <-> 'header'), a prefix term's last token
// is a prefix (:*), AND is &, OR is |, exclusion is & !( … ).
func ToQuery(n fts.Node) Query {
	var q Query
	var any []string
	q.TSQuery = q.write(n, false, false, &any)
	var none []string
	q.Relaxed = q.write(n, false, true, &none)
	q.Any = strings.Join(any, " | ")
	if q.Any == "" {
		q.Any = never
	}
	return q
}

func (q *Query) write(n fts.Node, neg, relaxed bool, any *[]string) string {
	switch n := n.(type) {
	case fts.Term:
		toks := termTokens(n)
		if len(toks) == 0 {
			return never
		}
		if len(toks) > 1 {
			q.Phrases = true
		}
		parts := make([]string, len(toks))
		for i, t := range toks {
			if len(t) > maxLexeme {
				t, q.Truncated = truncate(t), true
			}
			var b strings.Builder
			writeLexeme(&b, t)
			if n.Prefix && i == len(toks)-1 {
				b.WriteString(":*")
			}
			parts[i] = b.String()
			if !neg {
				*any = append(*any, parts[i])
			}
		}
		switch {
		case len(parts) == 1:
			return parts[0]
		case relaxed && neg:
			return never
		case relaxed:
			return "(" + strings.Join(parts, " & ") + ")"
		}
		return "(" + strings.Join(parts, " <-> ") + ")"
	case fts.And:
		var parts []string
		for _, c := range n.Pos {
			parts = append(parts, q.write(c, neg, relaxed, any))
		}
		for _, c := range n.Neg {
			parts = append(parts, "!"+q.write(c, !neg, relaxed, any))
		}
		return "(" + strings.Join(parts, " & ") + ")"
	case fts.Or:
		parts := make([]string, len(n))
		for i, c := range n {
			parts[i] = q.write(c, neg, relaxed, any)
		}
		return "(" + strings.Join(parts, " | ") + ")"
	}
	panic("pgsearch: unknown query node")
}

// Eval is the reference matcher: does the token stream match the query?
// A term is the exact sequence of its tokens (a prefix term's last token
// may be longer in the text); AND, OR and exclusion as written. It is what
// FTS5 answers, written independently of any index; the confirmation of a
// lossy row's hit runs it on the entry's text.
func Eval(n fts.Node, toks []string) bool {
	switch n := n.(type) {
	case fts.Term:
		return hasPhrase(toks, termTokens(n), n.Prefix)
	case fts.And:
		for _, c := range n.Pos {
			if !Eval(c, toks) {
				return false
			}
		}
		for _, c := range n.Neg {
			if Eval(c, toks) {
				return false
			}
		}
		return true
	case fts.Or:
		for _, c := range n {
			if Eval(c, toks) {
				return true
			}
		}
		return false
	}
	panic("pgsearch: unknown query node")
}

func hasPhrase(toks, want []string, prefix bool) bool {
	if len(want) == 0 {
		return false
	}
	for i := 0; i+len(want) <= len(toks); i++ {
		ok := true
		for k, w := range want {
			got := toks[i+k]
			if got != w && !(prefix && k == len(want)-1 && strings.HasPrefix(got, w)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
