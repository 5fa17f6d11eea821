package pgsearch

import (
	"modernc.org/libc"

	"github.com/pidex-dev/pidex/internal/fts"
)

// bm25 as FTS5 computes it (fts5_aux.c, fts5Bm25Function), so that a team
// catalog scores a hit exactly as a local catalog holding the same
// entries does: the same terms, the same order of additions, SQLite's own
// log. A local search's score is FTS5's bm25(); this is the same number.

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

// Freqs is, for each phrase of a query (Phrases' order), the number of
// its instances FTS5 reports in a row that matches the query, whose
// tokens are toks. FTS5 reports a phrase's positions only when the
// phrase's node and every node above it match the row (its iterators
// stopped there): never under an exclusion, and under an OR only in the
// children that match (an AND inside an OR whose other child matched
// reports nothing, though its words may be in the row).
func Freqs(n fts.Node, toks []string) []float64 {
	var out []float64
	var walk func(n fts.Node, counted bool)
	walk = func(n fts.Node, counted bool) {
		switch n := n.(type) {
		case fts.Term:
			f := 0.0
			if counted {
				f = float64(Count(toks, fts.TermTokens(n), n.Prefix))
			}
			out = append(out, f)
		case fts.And:
			counted = counted && Eval(n, toks)
			for _, c := range n.Pos {
				walk(c, counted)
			}
			for _, c := range n.Neg {
				walk(c, false)
			}
		case fts.Or:
			for _, c := range n {
				walk(c, counted && Eval(c, toks))
			}
		}
	}
	walk(n, true)
	return out
}

// Count is the number of places where the phrase want starts in toks (a
// prefix phrase's last token may be longer in toks), overlapping ones
// included, as FTS5 counts a phrase's instances.
func Count(toks, want []string, prefix bool) int {
	n := 0
	for i := range toks {
		if fts.PhraseAt(toks, i, want, prefix) {
			n++
		}
	}
	return n
}

// IDF is FTS5's inverse document frequency of a phrase found in hits of
// rows rows: log((rows - hits + 0.5) / (hits + 0.5)), at least 1e-6. The
// log is SQLite's own (modernc.org/libc, the C library SQLite runs on),
// which need not round as Go's math.Log does.
func IDF(tls *libc.TLS, rows, hits int64) float64 {
	idf := libc.Xlog(tls, (float64(rows-hits)+float64(0.5))/(float64(hits)+float64(0.5)))
	if idf <= float64(0) {
		idf = float64(1e-06)
	}
	return idf
}

// NewTLS is the thread state IDF's log needs; Close it after use.
func NewTLS() *libc.TLS { return libc.NewTLS() }

// AvgDL is FTS5's average row length in tokens.
func AvgDL(rows, tokens int64) float64 { return float64(tokens) / float64(rows) }

// Variables, not constants: FTS5 computes k1+1 and 1-b at run time, and
// Go would compute constant expressions exactly instead.
var (
	k1 = float64(1.2)
	b  = float64(0.75)
)

// Score is the bm25 score of a row of d tokens with these phrase
// frequencies (lower is better), with FTS5's additions in FTS5's order
// (every conversion below keeps an operation from being fused).
func Score(idf, freq []float64, d int64, avgdl float64) float64 {
	D := float64(int32(d)) // FTS5 reads a row's size as an int
	score := float64(0)
	for i := range idf {
		score = score + float64(idf[i]*(float64(freq[i]*(k1+float64(1)))/(freq[i]+float64(k1*(float64(1)-b+float64(b*D)/avgdl)))))
	}
	return float64(-float64(1) * score)
}
