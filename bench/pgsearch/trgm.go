package main

import (
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex/internal/fts"
)

// Stream is the token stream the pg_trgm design stores and indexes: the
// tokens between single spaces, with a space at each end, so that a
// phrase is a substring (" parse header ") and LIKE is exact.
func Stream(toks []string) string {
	if len(toks) == 0 {
		return " "
	}
	return " " + strings.Join(toks, " ") + " "
}

// ToLike translates a parsed query into a boolean SQL expression over
// LIKE patterns on the stream column col, appending its arguments to args
// (numbered placeholders from len(*args)+1). A term is the substring
// " t1 t2 " (a prefix term: " t1 t2" followed by anything), AND, OR and
// exclusion are SQL's. Tokens hold no LIKE wildcards or backslashes
// (letters, numbers and marks only).
func ToLike(n fts.Node, col string, args *[]any) string {
	switch n := n.(type) {
	case fts.Term:
		toks := fts.TermTokens(n)
		if len(toks) == 0 {
			return "false"
		}
		p := "% " + strings.Join(toks, " ")
		if !n.Prefix {
			p += " "
		}
		p += "%"
		*args = append(*args, p)
		return col + " LIKE $" + strconv.Itoa(len(*args))
	case fts.And:
		var parts []string
		for _, c := range n.Pos {
			parts = append(parts, ToLike(c, col, args))
		}
		for _, c := range n.Neg {
			parts = append(parts, "NOT "+ToLike(c, col, args))
		}
		return "(" + strings.Join(parts, " AND ") + ")"
	case fts.Or:
		parts := make([]string, len(n))
		for i, c := range n {
			parts[i] = ToLike(c, col, args)
		}
		return "(" + strings.Join(parts, " OR ") + ")"
	}
	panic("pgsearch: unknown query node")
}
