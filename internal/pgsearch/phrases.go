package pgsearch

import "github.com/pidex-dev/pidex/internal/fts"

// Phrases lists a query's phrases in the order FTS5 numbers them: the
// order Node.Match writes them (an AND's positive children, then its
// excluded ones; an OR's children in order). Each fts.Term is one FTS5
// phrase.
func Phrases(n fts.Node) []fts.Term {
	var out []fts.Term
	var walk func(fts.Node)
	walk = func(n fts.Node) {
		switch n := n.(type) {
		case fts.Term:
			out = append(out, n)
		case fts.And:
			for _, c := range n.Pos {
				walk(c)
			}
			for _, c := range n.Neg {
				walk(c)
			}
		case fts.Or:
			for _, c := range n {
				walk(c)
			}
		}
	}
	walk(n)
	return out
}
