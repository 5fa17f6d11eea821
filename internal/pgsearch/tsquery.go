// Package pgsearch is pidex's search language over PostgreSQL: an
// entry's tokens (fts.Tokens, FTS5's own) written as tsvector rows within
// PostgreSQL's limits, a parsed query (fts.Parse) written as a tsquery
// and, for entries split into windows, as set operations on their keys,
// the reference matcher the rare undecidable hit is confirmed with, and
// bm25 exactly as FTS5 computes it. PostgreSQL never parses the text: no
// parser, dictionary or locale of the server's plays a part, so a team
// catalog finds what a local one finds (docs/postgres.md, Search).
package pgsearch

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pidex-dev/pidex/internal/fts"
)

// PostgreSQL's limits on a tsvector (src/include/tsearch/ts_type.h).
const (
	maxPos      = 16383   // positions above are stored as 16383
	maxPosPerLx = 256     // positions of a lexeme beyond the 256th are dropped
	maxLexeme   = 2046    // bytes; a longer word is an error
	maxVector   = 1 << 20 // bytes of lexemes and positions; a larger tsvector is an error
	vectorRoom  = 1000000 // what a row is allowed to use, with room to spare
)

// Windows: an entry over PostgreSQL's limits is indexed as overlapping
// windows of its tokens, each a row with its own positions.
const (
	window  = 4096 // tokens of a window at most
	overlap = Overlap
	winRoom = 900000 // bytes of a window's lexemes and positions at most
	// minWindow is the narrowest window: it cannot hold a word more than
	// maxPosPerLx times.
	minWindow = maxPosPerLx
)

// Overlap is how many tokens consecutive windows share: a phrase of up to
// Overlap tokens lies whole in one.
const Overlap = 64

// Row is one search row of an entry: a tsvector, Exact when it has every
// position of its tokens (else its distinct lexemes only).
type Row struct {
	// Vec is the tsvector in PostgreSQL's binary format (tsvector_recv),
	// sent by COPY as it is: the server neither parses nor sorts it.
	Vec   []byte
	Exact bool
	// First is the entry's token index (0-based) at the row's position 1:
	// a window's positions are its own, First places them in the entry.
	First int
}

// ToRows builds an entry's search rows. An entry within PostgreSQL's
// tsvector limits is one exact row, on which tsv @@ query is the answer.
// A longer one (more than 16,383 tokens, a word more than 256 times, more
// than 1 MB) is split into windows: a term is found in an entry when one of
// its windows holds it, so a phrase up to the overlap is exact.
func ToRows(toks []string) []Row {
	if r, ok := vector(toks); ok {
		return []Row{r}
	}
	return windows(toks, 0, window, nil)
}

// windows covers toks with windows of up to width tokens (and winRoom
// bytes), consecutive ones sharing overlap tokens. A window over a limit
// is covered again by windows half as wide (so a phrase of up to overlap
// tokens still lies whole in one), down to minWindow tokens, which cannot
// hold a word more than 256 times: every row is exact. (A lossy row, the
// distinct lexemes only, is left for a window that would still not fit;
// none can, but its hits would be confirmed.)
func windows(toks []string, base, width int, rows []Row) []Row {
	for s := 0; s < len(toks); {
		e, size := s, 0
		for e < len(toks) && e-s < width && size < winRoom {
			size += min(len(toks[e]), maxLexeme) + 8
			e++
		}
		switch r, ok := vector(toks[s:e]); {
		case ok:
			r.First = base + s
			rows = append(rows, r)
		case width/2 >= minWindow && e-s > minWindow:
			rows = windows(toks[s:e], base+s, width/2, rows)
		default:
			r := stripped(toks[s:e])
			r.First = base + s
			rows = append(rows, r)
		}
		if e == len(toks) {
			break
		}
		s = max(s+1, e-overlap)
	}
	return rows
}

// lexeme is a token as PostgreSQL can hold it: a token longer than the
// longest lexeme is cut (at a character boundary) and marked with a '!',
// which no token holds, so that no whole token equals it; a query word is
// cut the same way, and its hits are confirmed on the text.
func lexeme(t string) string {
	if len(t) <= maxLexeme {
		return t
	}
	t = t[:maxLexeme-1]
	for len(t) > 0 && !utf8.ValidString(t) {
		t = t[:len(t)-1]
	}
	return t + "!"
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
	// Phrases: a term of the query (positive or excluded) has more than one
	// token: on a lossy row it is relaxed, and the hit confirmed on the text.
	Phrases bool
	// Truncated: a query word is longer than a lexeme can be; every hit is
	// confirmed.
	Truncated bool
	// Long: a phrase is longer than the windows' overlap: the windows give
	// a superset of the entries holding it, which every hit of an entry
	// split into windows is confirmed against.
	Long bool
	// Windows is the query over the windowed entries of table, as set
	// operations on their keys (columns key): a term is the entries with a
	// window holding it (a lossy window answers the relaxed form), AND is
	// INTERSECT, exclusion EXCEPT, OR UNION. Each term is one GIN lookup,
	// and only its own candidate windows are read again for positions.
	// Args are its arguments, numbered from $first (see ToQuery).
	Windows string
	Args    []any
}

// ToQuery translates a parsed query into a tsquery: a term is the
// phrase of its tokens ('parse' <-> 'header'), a prefix term's last token
// is a prefix (:*), AND is &, OR is |, exclusion is & !( … ). Windows is
// written over table's rows keyed by key (one or more columns), its
// arguments numbered from $first.
func ToQuery(n fts.Node, table, key string, first int) Query {
	var q Query
	q.TSQuery = q.write(n, false, false)
	q.Relaxed = q.write(n, false, true)
	s := sets{q: &q, table: table, key: key, first: first}
	q.Windows = s.write(n, false)
	return q
}

type sets struct {
	q          *Query
	table, key string
	first      int
}

// write writes the query over the windowed entries (see Windows).
func (s sets) write(n fts.Node, neg bool) string {
	q := s.q
	switch n := n.(type) {
	case fts.Term:
		if toks := fts.TermTokens(n); len(toks) > overlap {
			q.Long = true
			if !neg {
				// A phrase longer than the windows' overlap may lie across
				// two: the entries with a window holding each of its words,
				// a superset that the reference matcher then narrows. (Under
				// an exclusion the exact phrase's windows, a subset, make the
				// answer a superset likewise.)
				parts := make([]string, len(toks))
				for i, t := range toks {
					word := fts.Term{Text: t, Prefix: n.Prefix && i == len(toks)-1}
					parts[i] = "(" + s.write(word, false) + ")"
				}
				return strings.Join(parts, " INTERSECT ")
			}
		}
		q.Args = append(q.Args, q.write(n, neg, false), q.write(n, neg, true))
		e, r := "$"+strconv.Itoa(s.first+len(q.Args)-2), "$"+strconv.Itoa(s.first+len(q.Args)-1)
		return "SELECT DISTINCT " + s.key + " FROM " + s.table + " WHERE win AND ((exact AND tsv @@ " + e + "::tsquery) OR (NOT exact AND tsv @@ " + r + "::tsquery))"
	case fts.And:
		var pos, negs []string
		for _, c := range n.Pos {
			pos = append(pos, "("+s.write(c, neg)+")")
		}
		for _, c := range n.Neg {
			negs = append(negs, "("+s.write(c, !neg)+")")
		}
		out := strings.Join(pos, " INTERSECT ")
		if len(negs) > 0 {
			out = "SELECT " + s.key + " FROM (" + out + ") p EXCEPT (" + strings.Join(negs, " UNION ") + ")"
		}
		return out
	case fts.Or:
		parts := make([]string, len(n))
		for i, c := range n {
			parts[i] = "(" + s.write(c, neg) + ")"
		}
		return strings.Join(parts, " UNION ")
	}
	panic("pgsearch: unknown query node")
}

func (q *Query) write(n fts.Node, neg, relaxed bool) string {
	switch n := n.(type) {
	case fts.Term:
		toks := fts.TermTokens(n)
		if len(toks) == 0 {
			return never
		}
		if len(toks) > 1 {
			q.Phrases = true
		}
		parts := make([]string, len(toks))
		for i, t := range toks {
			if len(t) > maxLexeme {
				t, q.Truncated = lexeme(t), true
			}
			var b strings.Builder
			writeLexeme(&b, t)
			if n.Prefix && i == len(toks)-1 {
				b.WriteString(":*")
			}
			parts[i] = b.String()
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
			parts = append(parts, q.write(c, neg, relaxed))
		}
		for _, c := range n.Neg {
			parts = append(parts, "!"+q.write(c, !neg, relaxed))
		}
		return "(" + strings.Join(parts, " & ") + ")"
	case fts.Or:
		parts := make([]string, len(n))
		for i, c := range n {
			parts[i] = q.write(c, neg, relaxed)
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
func Eval(n fts.Node, toks []string) bool { return fts.Eval(n, toks) }

// eachPosition calls fn with every position (from 1) and lexeme of a
// tsvector literal ('the':1A,5A 'fox':3).
func eachPosition(tsv string, fn func(pos int64, word string)) {
	for i := 0; i < len(tsv); {
		if tsv[i] != '\'' {
			i++
			continue
		}
		// A quoted lexeme: '' is a quote, \\ a backslash.
		var lx strings.Builder
		j := i + 1
		for j < len(tsv) {
			if tsv[j] == '\\' && j+1 < len(tsv) {
				lx.WriteByte(tsv[j+1])
				j += 2
				continue
			}
			if tsv[j] == '\'' {
				if j+1 < len(tsv) && tsv[j+1] == '\'' {
					lx.WriteByte('\'')
					j += 2
					continue
				}
				break
			}
			lx.WriteByte(tsv[j])
			j++
		}
		word := lx.String()
		j++ // the closing quote
		if j < len(tsv) && tsv[j] == ':' {
			j++
			for j < len(tsv) && tsv[j] != ' ' {
				k := j
				for k < len(tsv) && tsv[k] >= '0' && tsv[k] <= '9' {
					k++
				}
				if pos, err := strconv.ParseInt(tsv[j:k], 10, 64); err == nil && pos >= 1 {
					fn(pos, word)
				}
				for k < len(tsv) && tsv[k] != ',' && tsv[k] != ' ' {
					k++ // the weight
				}
				if k < len(tsv) && tsv[k] == ',' {
					k++
				}
				j = k
			}
		}
		i = j
	}
}

// Sparse is an entry's tokens as far as a query can tell: the query's
// words at their positions (read from the entry's search rows, reduced to
// them), the tokens between left out, a blank (NUL: no token holds one)
// where some were. Matching and counting phrases on its Stream is
// matching them on the entry's tokens, in space proportional to the
// query's words, not to the entry (a windowed entry has hundreds of
// thousands of tokens).
type Sparse struct {
	pos   []int64
	words []string
}

// Reset empties s for another entry.
func (s *Sparse) Reset() { s.pos, s.words = s.pos[:0], s.words[:0] }

// Place adds a row's lexemes, its position 1 being the entry's at+1.
func (s *Sparse) Place(tsv string, at int64) {
	eachPosition(tsv, func(pos int64, word string) {
		s.pos = append(s.pos, at+pos)
		s.words = append(s.words, word)
	})
}

// Stream is the words in position order (a position two rows hold, in a
// windows' overlap, once), a blank between two that are not adjacent.
func (s *Sparse) Stream() []string {
	idx := make([]int, len(s.pos))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return s.pos[idx[a]] < s.pos[idx[b]] })
	out := make([]string, 0, len(idx)+1)
	last := int64(-1)
	for _, i := range idx {
		switch p := s.pos[i]; {
		case p == last:
			continue
		case last >= 0 && p != last+1:
			out = append(out, "\x00")
		}
		last = s.pos[i]
		out = append(out, s.words[i])
	}
	return out
}
