package fts

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pidex-dev/pidex"
)

// Node is a parsed search query.
type Node interface {
	// Match writes the node as an FTS5 query expression.
	Match() string
	terms(neg bool, out *[]Term)
}

// Term is a word or a quoted phrase, as the user typed it.
type Term struct {
	Text   string
	Phrase bool // quoted
	Prefix bool // ends in *: its last token is a prefix
}

// And matches when every positive child does and no negative one does.
type And struct{ Pos, Neg []Node }

// Or matches when any child does.
type Or []Node

// Match is a quoted FTS5 string: the term's text, CJK runs as bigrams,
// quotes doubled. FTS5's tokenizer splits it like the indexed text, so a
// word with punctuation (parse_header, src/query/path.go) is the phrase of
// its parts, in order.
func (t Term) Match() string {
	// Control characters separate words anyway; FTS5 would stop reading
	// the query at a NUL.
	text := strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, queryText(t.Text))
	s := `"` + strings.ReplaceAll(text, `"`, `""`) + `"`
	if t.Prefix {
		s += "*"
	}
	return s
}

func (t Term) terms(neg bool, out *[]Term) {
	if !neg {
		*out = append(*out, t)
	}
}

// Match joins the positive children with AND and subtracts the negative
// ones with NOT (FTS5's NOT is binary: "a NOT b").
func (a And) Match() string {
	parts := make([]string, len(a.Pos))
	for i, n := range a.Pos {
		parts[i] = group(n)
	}
	s := strings.Join(parts, " AND ")
	if len(a.Pos) > 1 {
		s = "(" + s + ")"
	}
	for _, n := range a.Neg {
		s += " NOT " + group(n)
	}
	return s
}

func (a And) terms(neg bool, out *[]Term) {
	for _, n := range a.Pos {
		n.terms(neg, out)
	}
	for _, n := range a.Neg {
		n.terms(true, out)
	}
}

// Match joins the children with OR.
func (o Or) Match() string {
	parts := make([]string, len(o))
	for i, n := range o {
		parts[i] = group(n)
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}

func (o Or) terms(neg bool, out *[]Term) {
	for _, n := range o {
		n.terms(neg, out)
	}
}

func group(n Node) string {
	if _, ok := n.(Term); ok {
		return n.Match()
	}
	return "(" + n.Match() + ")"
}

// Highlights returns the terms a hit is found by (not those excluded).
func Highlights(n Node) []Term {
	var out []Term
	n.terms(false, &out)
	return out
}

// SyntaxError is a query pidex cannot read; it names the problem and
// where. It wraps pidex.ErrUsage (exit code 2).
type SyntaxError struct {
	Col int // 1-based column (in characters) where the problem is
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("search query: %s (at character %d)", e.Msg, e.Col)
}

// Unwrap makes a syntax error a usage error.
func (e *SyntaxError) Unwrap() error { return pidex.ErrUsage }

// Bounds of a query. SQLite's FTS5 parses a MATCH expression with a
// fixed stack and refuses trees deeper than 256 levels (each exclusion is
// one: "a NOT b NOT c" nests), failing with "parser stack overflow" or
// "expression tree is too large" near 25 nested groups or 256 exclusions.
// The parser stops well before, and says so as a usage error: with these
// bounds every query it accepts runs (TestQueryBoundsReachNoSQLiteLimit
// tries the worst shapes in FTS5).
const (
	// MaxDepth is how deep parentheses may nest.
	MaxDepth = 10
	// MaxTerms is how many words and phrases a query may hold.
	MaxTerms = 256
	// MaxExclusions is how many '-' a query may hold.
	MaxExclusions = 64
)

// Parse reads a query:
//
//	word          a word; punctuation inside splits it into an exact phrase
//	              of its parts (parse_header, session-manager.ts)
//	"two words"   a phrase
//	migrat*       a prefix (also "a phrase"*)
//	a OR b        either (OR in capitals; binds looser than juxtaposition)
//	a b           both (AND in capitals may be written too)
//	-word         not containing word (also -"phrase", -(a OR b))
//	( … )         grouping
//
// A query nests at most MaxDepth parentheses and holds at most MaxTerms
// words and phrases and MaxExclusions exclusions.
func Parse(q string) (Node, error) {
	p := &parser{toks: nil}
	if err := p.lex(q); err != nil {
		return nil, err
	}
	if len(p.toks) == 0 {
		return nil, &SyntaxError{Col: 1, Msg: "nothing to search for"}
	}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		t := p.toks[p.i]
		if t.kind == tokClose {
			return nil, &SyntaxError{Col: t.col, Msg: "')' without a matching '('"}
		}
		return nil, &SyntaxError{Col: t.col, Msg: "unexpected " + t.describe()}
	}
	return n, nil
}

type tokKind int

const (
	tokWord tokKind = iota
	tokPhrase
	tokOr
	tokAnd
	tokNot // a leading '-'
	tokOpen
	tokClose
)

type token struct {
	kind   tokKind
	text   string
	prefix bool
	col    int
}

func (t token) describe() string {
	switch t.kind {
	case tokOr:
		return "OR"
	case tokAnd:
		return "AND"
	case tokClose:
		return "')'"
	case tokOpen:
		return "'('"
	case tokNot:
		return "'-'"
	}
	return fmt.Sprintf("%q", t.text)
}

type parser struct {
	toks []token
	i    int
	// depth is the parentheses open at the token being read; terms and
	// negs count the words and phrases and the exclusions so far.
	depth, terms, negs int
}

func (p *parser) lex(q string) error {
	rs := []rune(q)
	for i := 0; i < len(rs); {
		r := rs[i]
		col := i + 1
		switch {
		case unicode.IsSpace(r) || unicode.IsControl(r):
			i++
		case r == '(':
			p.toks = append(p.toks, token{kind: tokOpen, col: col})
			i++
		case r == ')':
			p.toks = append(p.toks, token{kind: tokClose, col: col})
			i++
		case r == '-' && i+1 < len(rs) && !unicode.IsSpace(rs[i+1]) && rs[i+1] != '-' && (i == 0 || unicode.IsSpace(rs[i-1]) || rs[i-1] == '('):
			p.toks = append(p.toks, token{kind: tokNot, col: col})
			i++
		case r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != '"' {
				j++
			}
			if j == len(rs) {
				return &SyntaxError{Col: col, Msg: "unclosed quote"}
			}
			t := token{kind: tokPhrase, text: string(rs[i+1 : j]), col: col}
			j++
			if j < len(rs) && rs[j] == '*' {
				t.prefix = true
				j++
			}
			p.toks = append(p.toks, t)
			i = j
		default:
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) && !unicode.IsControl(rs[j]) && rs[j] != '"' && rs[j] != '(' && rs[j] != ')' {
				j++
			}
			w := string(rs[i:j])
			switch w {
			case "OR":
				p.toks = append(p.toks, token{kind: tokOr, col: col})
			case "AND":
				p.toks = append(p.toks, token{kind: tokAnd, col: col})
			default:
				t := token{kind: tokWord, text: w, col: col}
				if strings.HasSuffix(w, "*") {
					t.text, t.prefix = strings.TrimRight(w, "*"), true
				}
				p.toks = append(p.toks, t)
			}
			i = j
		}
	}
	return nil
}

func (p *parser) peek() *token {
	if p.i < len(p.toks) {
		return &p.toks[p.i]
	}
	return nil
}

func (p *parser) or() (Node, error) {
	first, err := p.and()
	if err != nil {
		return nil, err
	}
	alts := Or{first}
	for t := p.peek(); t != nil && t.kind == tokOr; t = p.peek() {
		p.i++
		if n := p.peek(); n == nil || n.kind == tokOr || n.kind == tokClose {
			return nil, &SyntaxError{Col: t.col, Msg: "OR needs a term on both sides"}
		}
		n, err := p.and()
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
	}
	if len(alts) == 1 {
		return first, nil
	}
	return alts, nil
}

func (p *parser) and() (Node, error) {
	var a And
	start := p.peek()
	for t := p.peek(); t != nil && t.kind != tokOr && t.kind != tokClose; t = p.peek() {
		if t.kind == tokAnd {
			p.i++
			if n := p.peek(); n == nil || n.kind == tokOr || n.kind == tokClose || n.kind == tokAnd || len(a.Pos)+len(a.Neg) == 0 {
				return nil, &SyntaxError{Col: t.col, Msg: "AND needs a term on both sides"}
			}
			continue
		}
		neg := t.kind == tokNot
		if neg {
			if p.negs++; p.negs > MaxExclusions {
				return nil, &SyntaxError{Col: t.col, Msg: fmt.Sprintf("too many exclusions (at most %d)", MaxExclusions)}
			}
			p.i++
		}
		n, err := p.primary()
		if err != nil {
			return nil, err
		}
		if n == nil {
			continue // a word with nothing searchable in it
		}
		if neg {
			a.Neg = append(a.Neg, n)
		} else {
			a.Pos = append(a.Pos, n)
		}
	}
	if start == nil {
		return nil, &SyntaxError{Col: len(p.toks), Msg: "nothing to search for"}
	}
	if len(a.Pos) == 0 {
		if len(a.Neg) > 0 {
			return nil, &SyntaxError{Col: start.col, Msg: "a query cannot only exclude: add a word to search for"}
		}
		return nil, &SyntaxError{Col: start.col, Msg: "nothing to search for (only punctuation)"}
	}
	if len(a.Pos) == 1 && len(a.Neg) == 0 {
		return a.Pos[0], nil
	}
	return a, nil
}

// primary returns nil for a word without letters or digits (a lone "-",
// "*", "::"), which FTS5 could not tokenize into anything.
func (p *parser) primary() (Node, error) {
	t := p.peek()
	if t == nil {
		return nil, &SyntaxError{Col: len(p.toks), Msg: "'-' needs a term after it"}
	}
	p.i++
	switch t.kind {
	case tokOpen:
		if c := p.peek(); c != nil && c.kind == tokClose {
			return nil, &SyntaxError{Col: t.col, Msg: "empty parentheses"}
		}
		if p.depth++; p.depth > MaxDepth {
			return nil, &SyntaxError{Col: t.col, Msg: fmt.Sprintf("parentheses nested too deep (at most %d levels)", MaxDepth)}
		}
		n, err := p.or()
		p.depth--
		if err != nil {
			return nil, err
		}
		if c := p.peek(); c == nil || c.kind != tokClose {
			return nil, &SyntaxError{Col: t.col, Msg: "'(' without a matching ')'"}
		}
		p.i++
		return n, nil
	case tokWord, tokPhrase:
		if !searchable(t.text) {
			if t.kind == tokPhrase {
				return nil, &SyntaxError{Col: t.col, Msg: "empty phrase"}
			}
			return nil, nil
		}
		if p.terms++; p.terms > MaxTerms {
			return nil, &SyntaxError{Col: t.col, Msg: fmt.Sprintf("too many words and phrases (at most %d)", MaxTerms)}
		}
		return Term{Text: t.text, Phrase: t.kind == tokPhrase, Prefix: t.prefix}, nil
	}
	return nil, &SyntaxError{Col: t.col, Msg: "unexpected " + t.describe()}
}

// searchable reports whether s holds anything the tokenizer keeps.
func searchable(s string) bool {
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if isWordRune(r) {
			return true
		}
		s = s[n:]
	}
	return false
}
