package fts

import (
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Loose is q as an index without positions can run it, written as a
// query again: the one rule both catalogs' capped searches cut their
// candidates by (IndexMatch renders it for FTS5, the team catalog for
// PostgreSQL). The local index keeps which entries hold each token, not
// where (FTS5 detail=none), so FTS5 refuses a phrase of several tokens.
// A term of one token stays as it is; a term of several (a quoted
// phrase, an identifier such as parse_header, a CJK word of three or more
// characters) becomes the AND of its tokens, each a term of its own,
// which every entry holding the phrase matches and some others too. An
// exclusion holding such a term cannot be loosened that way (it would
// exclude entries that hold the words apart), so it is left out.
//
// exact reports that the loose form matches exactly the entries q
// matches (no phrase anywhere); when it is false, the caller confirms
// each candidate with Eval or a Matcher on the entry's text.
func Loose(n Node) (loose Node, exact bool) {
	switch n := n.(type) {
	case Term:
		toks := TermTokens(n)
		if len(toks) < 2 {
			return n, true
		}
		words := make([]Node, len(toks))
		for i, tok := range toks {
			// Already a token (folded, split): the tokenizer gives it
			// back unchanged (TestLooseTokens).
			words[i] = Term{Text: tok, Phrase: true, Prefix: n.Prefix && i == len(toks)-1}
		}
		return And{Pos: words}, false
	case And:
		exact := true
		out := And{}
		for _, c := range n.Pos {
			l, ok := Loose(c)
			out.Pos, exact = append(out.Pos, l), exact && ok
		}
		for _, c := range n.Neg {
			l, ok := Loose(c)
			if !ok {
				exact = false // confirmed by Eval instead
				continue
			}
			out.Neg = append(out.Neg, l)
		}
		return out, exact
	case Or:
		exact := true
		out := make(Or, len(n))
		for i, c := range n {
			var ok bool
			out[i], ok = Loose(c)
			exact = exact && ok
		}
		return out, exact
	}
	panic("fts: unknown query node")
}

// IndexMatch is q as the local catalog's index runs it: Loose(q) as an
// FTS5 expression.
func IndexMatch(q Node) (expr string, exact bool) {
	l, exact := Loose(q)
	return l.Match(), exact
}

// Eval is the reference matcher: does the token stream (Tokens of an
// entry's text) match the query? A term is the exact sequence of its
// tokens (a prefix term's last token may be longer in the text); AND, OR
// and exclusion as written. It answers what FTS5 with positions answers
// (pgsearch's TestEvalAndScoreEqualFTS5), written independently of any
// index: the confirmation of an inexact IndexMatch candidate.
func Eval(n Node, toks []string) bool {
	switch n := n.(type) {
	case Term:
		return HasPhrase(toks, TermTokens(n), n.Prefix)
	case And:
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
	case Or:
		for _, c := range n {
			if Eval(c, toks) {
				return true
			}
		}
		return false
	}
	panic("fts: unknown query node")
}

// HasPhrase reports whether want occurs in toks as consecutive tokens (a
// prefix phrase's last token may be longer in toks).
func HasPhrase(toks, want []string, prefix bool) bool {
	for i := range toks {
		if PhraseAt(toks, i, want, prefix) {
			return true
		}
	}
	return false
}

// PhraseAt reports whether the phrase want starts at toks[i].
func PhraseAt(toks []string, i int, want []string, prefix bool) bool {
	if len(want) == 0 || i+len(want) > len(toks) {
		return false
	}
	for k, w := range want {
		got := toks[i+k]
		if got != w && !(prefix && k == len(want)-1 && strings.HasPrefix(got, w)) {
			return false
		}
	}
	return true
}

// bm25's parameters, as FTS5's.
const (
	k1 = 1.2
	b  = 0.75
)

// Rank is an entry's score when the index holds no positions: FTS5's
// bm25 with each of the query's terms found once in the entry and an idf
// of 1, for an entry of d tokens in an index of avgdl tokens an entry on
// average (lower is better, as bm25()).
func Rank(terms int, d, avgdl float64) float64 {
	if avgdl <= 0 {
		avgdl = 1
	}
	return -float64(terms) * (k1 + 1) / (1 + k1*(1-b+b*d/avgdl))
}

// LineBits is how many low bits of a text index rowid hold the entry's
// line number: rowid = file id << LineBits | line (the 1-based physical
// line, entries.line). Within a file the rowids of its entries then differ
// by their line distance, a byte or so in FTS5's delta-encoded lists,
// where byte offsets took two or three.
const LineBits = 28

// RowFileSQL, RowLineSQL and RowIDSQL are RowID's layout in SQL, for
// statements: the file id and the line of the rowid expression r, and the
// rowid of a file's entry at a line (migration 00010 wrote the index so).
func RowFileSQL(r string) string { return "(" + r + " >> " + strconv.Itoa(LineBits) + ")" }

func RowLineSQL(r string) string {
	return "(" + r + " & " + strconv.FormatInt(1<<LineBits-1, 10) + ")"
}

func RowIDSQL(file, line string) string {
	return "((" + file + " << " + strconv.Itoa(LineBits) + ") | " + line + ")"
}

// RowInFileSQL is the condition that the rowid expression r is one of
// the file's (the file id expression file): a range of rowids, which
// FTS5 answers by seeking within its posting lists.
func RowInFileSQL(r, file string) string {
	return r + " BETWEEN " + RowIDSQL(file, "0") + " AND " + RowIDSQL(file, strconv.FormatInt(1<<LineBits-1, 10))
}

// RowID is the text index rowid of a file's entry at line; ok is false
// for a line beyond what LineBits holds (more than 268 million lines in
// one file), whose text is not indexed.
func RowID(file, line int64) (rowid int64, ok bool) {
	if line <= 0 || line >= 1<<LineBits {
		return 0, false
	}
	return file<<LineBits | line, true
}

// Matcher confirms a query on entries' texts: what Eval(q, Tokens(text))
// answers, without holding the text's tokens. A term is found or not as
// the tokens stream past (the last few kept, as many as the longest
// term has), and the query is then evaluated on which terms were found:
// a 100 MB tool output of 20 million tokens cost a string header each
// (320 MB, and as much again while the slice grew), now a few.
//
// The text may come in pieces (Feed, then Close): a piece is tokenized up
// to its last ASCII separator, the rest carried to the next, so that the
// tokens are those of the whole text. A run of more than maxCarry bytes
// without an ASCII separator (one token, or CJK text without a space) is
// split there: a term across that cut is not seen.
type Matcher struct {
	q      Node
	terms  []matcherTerm
	index  map[Term]int      // a term's place in terms
	window int               // the tokens the longest term has
	vocab  map[string]string // every token of the query's terms, to itself
	prefix []string          // the last tokens of its prefix terms
	fold   []byte
	recent []string // the last window tokens, a ring ("" a gap: no query token is empty)
	seen   int      // tokens so far
	carry  []byte
}

type matcherTerm struct {
	toks   []string
	prefix bool
	found  bool
}

// maxCarry bounds the text a Matcher holds back waiting for a separator.
const maxCarry = 1 << 20

// NewMatcher returns a Matcher of q.
func NewMatcher(q Node) *Matcher {
	m := &Matcher{q: q, vocab: map[string]string{}, index: map[Term]int{}}
	var walk func(Node)
	walk = func(n Node) {
		switch n := n.(type) {
		case Term:
			if _, ok := m.index[n]; ok {
				return
			}
			toks := TermTokens(n)
			m.index[n] = len(m.terms)
			m.terms = append(m.terms, matcherTerm{toks: toks, prefix: n.Prefix})
			m.window = max(m.window, len(toks))
			for _, t := range toks {
				m.vocab[t] = t
			}
			if n.Prefix && len(toks) > 0 {
				m.prefix = append(m.prefix, toks[len(toks)-1])
			}
		case And:
			for _, c := range n.Pos {
				walk(c)
			}
			for _, c := range n.Neg {
				walk(c)
			}
		case Or:
			for _, c := range n {
				walk(c)
			}
		}
	}
	walk(q)
	m.recent = make([]string, max(1, m.window))
	return m
}

// Match reports whether text (an entry's searchable text, before Prepare)
// matches the query.
func (m *Matcher) Match(text string) bool {
	m.Reset()
	m.Feed(text)
	return m.Close()
}

// Reset starts a new text.
func (m *Matcher) Reset() {
	for i := range m.terms {
		m.terms[i].found = false
	}
	clear(m.recent)
	m.seen = 0
	m.carry = m.carry[:0]
}

// Feed adds the next piece of the text; the Matcher keeps none of it
// beyond the call but a carried run.
func (m *Matcher) Feed(piece string) {
	cut := lastSeparator(piece) // the carry has none: only the new piece is looked at
	if cut < 0 {
		m.carry = append(m.carry, piece...)
		if len(m.carry) > maxCarry { // a run no term can span: split it
			all := unsafe.String(unsafe.SliceData(m.carry), len(m.carry))
			cut = runeStart(all, len(all)-4)
			m.tokens(all[:cut])
			m.carry = append(m.carry[:0], all[cut:]...) // append moves the end down
		}
		return
	}
	if len(m.carry) > 0 {
		m.carry = append(m.carry, piece[:cut]...)
		m.tokens(unsafe.String(unsafe.SliceData(m.carry), len(m.carry)))
	} else {
		m.tokens(piece[:cut])
	}
	m.carry = append(m.carry[:0], piece[cut:]...)
}

// Close ends the text and reports whether it matched.
func (m *Matcher) Close() bool {
	m.tokens(unsafe.String(unsafe.SliceData(m.carry), len(m.carry)))
	m.carry = m.carry[:0]
	return m.eval(m.q)
}

// lastSeparator is the index just past the last ASCII byte of s that is
// no token character, -1 for none.
func lastSeparator(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if c := s[i]; c < utf8.RuneSelf && asciiClass[c] == asciiSep {
			return i + 1
		}
	}
	return -1
}

// runeStart is i moved back to the start of the character it falls in.
func runeStart(s string, i int) int {
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// tokens runs s (a whole number of tokens of the text) past the terms.
func (m *Matcher) tokens(s string) {
	z := tokenizer{s: Prepare(s), fold: m.fold}
	for {
		tok, _, ok := z.next()
		if !ok {
			break
		}
		slot := &m.recent[m.seen%len(m.recent)]
		if v, ok := m.vocab[tok]; ok {
			*slot = v // the query's own string: the tokenizer's lasts until its next token
		} else if m.hasPrefix(tok) {
			*slot = strings.Clone(tok)
		} else {
			*slot = "" // a gap
		}
		m.seen++
		m.found()
	}
	m.fold = z.fold
}

// found marks the terms that end at the token just seen.
func (m *Matcher) found() {
	for i := range m.terms {
		t := &m.terms[i]
		if t.found || len(t.toks) == 0 || len(t.toks) > m.seen {
			continue
		}
		ok := true
		for k, w := range t.toks {
			got := m.recent[(m.seen-len(t.toks)+k)%len(m.recent)]
			if got != w && !(t.prefix && k == len(t.toks)-1 && strings.HasPrefix(got, w)) {
				ok = false
				break
			}
		}
		t.found = ok
	}
}

// eval is Eval on the terms found.
func (m *Matcher) eval(n Node) bool {
	switch n := n.(type) {
	case Term:
		return m.terms[m.index[n]].found
	case And:
		for _, c := range n.Pos {
			if !m.eval(c) {
				return false
			}
		}
		for _, c := range n.Neg {
			if m.eval(c) {
				return false
			}
		}
		return true
	case Or:
		for _, c := range n {
			if m.eval(c) {
				return true
			}
		}
		return false
	}
	panic("fts: unknown query node")
}

func (m *Matcher) hasPrefix(tok string) bool {
	for _, p := range m.prefix {
		if strings.HasPrefix(tok, p) {
			return true
		}
	}
	return false
}
