package pgsearch

import "github.com/pidex-dev/pidex/internal/fts"

// Loose is q as a local catalog's index runs it (fts.IndexMatch), written
// as a query again: a term of several tokens becomes the AND of its
// tokens, and an exclusion holding such a term is left out. A local
// catalog's capped search takes the newest RankCap entries matching this
// form and confirms them afterwards, so a team catalog cuts the same
// candidates to find the same hits. exact reports that the loose form is q
// itself (no phrase anywhere).
func Loose(n fts.Node) (loose fts.Node, exact bool) {
	switch n := n.(type) {
	case fts.Term:
		toks := fts.TermTokens(n)
		if len(toks) < 2 {
			return n, true
		}
		words := make([]fts.Node, len(toks))
		for i, t := range toks {
			words[i] = token{t, n.Prefix && i == len(toks)-1}.term()
		}
		return fts.And{Pos: words}, false
	case fts.And:
		exact := true
		out := fts.And{}
		for _, c := range n.Pos {
			l, ok := Loose(c)
			out.Pos, exact = append(out.Pos, l), exact && ok
		}
		for _, c := range n.Neg {
			l, ok := Loose(c)
			if !ok {
				exact = false // left out, as IndexMatch leaves it
				continue
			}
			out.Neg = append(out.Neg, l)
		}
		return out, exact
	case fts.Or:
		exact := true
		out := make(fts.Or, len(n))
		for i, c := range n {
			var ok bool
			out[i], ok = Loose(c)
			exact = exact && ok
		}
		return out, exact
	}
	panic("pgsearch: unknown query node")
}

// token is one of a term's tokens as a term of its own.
type token struct {
	text   string
	prefix bool
}

// term is the token as a quoted term: its text is already a token (folded,
// split), which the tokenizer gives back unchanged (TestLooseTokens).
func (t token) term() fts.Term { return fts.Term{Text: t.text, Phrase: true, Prefix: t.prefix} }
