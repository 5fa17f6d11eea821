package readside

import (
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/fts"
)

// SnippetLen is a hit's snippet length in characters, about.
const SnippetLen = 160

// Snippet cuts h's snippet out of its entry's searchable text (pi.Text)
// around the first match of terms, with the matched words highlighted.
func Snippet(h *pidex.Hit, text string, terms []fts.Term) {
	h.Segments = fts.Snippet(text, terms, SnippetLen)
	h.Snippet, h.Highlights = Flatten(h.Segments)
}

// Flatten joins segments and lists the matched ones as character ranges.
func Flatten(segs []pidex.Segment) (string, [][2]int) {
	var b strings.Builder
	marks := [][2]int{}
	n := 0
	for _, s := range segs {
		k := len([]rune(s.Text))
		if s.Hit {
			marks = append(marks, [2]int{n, n + k})
		}
		b.WriteString(s.Text)
		n += k
	}
	return b.String(), marks
}

// RankCap bounds the matches a plain search ranks. bm25 costs about 3 µs
// a match (it reads each entry's length), so ranking every entry with a
// common word (208,000 with "the" in 1.7 GB of sessions) took 0.7 s; the
// newest 5,000 take 40 ms (10,000 took 100 ms, mostly bm25).
// Without filters, a search ranks the matches in the RankCap most
// recently started sessions' entries (the newest by file name, then path:
// locally the text index's rowids follow them, see indexer.reserveIDs); a
// filter, --sessions-only or a term rarer than that ranks every match.
const RankCap = 5000

// Unfiltered reports whether f narrows nothing (a local catalog's roots
// aside): only then are the newest RankCap matches ranked.
func Unfiltered(f pidex.SearchFilter) bool {
	return f.Project == "" && f.Cwd == "" && f.FileID == 0 && f.Role == "" && f.Model == "" && f.Since.IsZero() &&
		f.Until.IsZero() && !f.Active && f.Machine == "" && len(f.Agents) == 0
}
