package view

import (
	"fmt"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
)

// SearchPage is one page of a search's answer: which hits (or sessions,
// with sessions only) it shows of how many, and where the pages before
// and after it start. Every face pages the same way: the CLI's --offset
// and count line, the web page's links, the API's headers.
type SearchPage struct {
	From, To     int // 1-based, inclusive; 0 and 0 for an empty page
	Totals       pidex.SearchTotals
	SessionsOnly bool
	Prev, Next   int // offsets of the pages before and after; -1 for none
}

// NewSearchPage is the page at offset of limit rows (0: the default, as
// SearchOptions take it) that shows shown of them, in an answer of totals.
func NewSearchPage(t pidex.SearchTotals, offset, limit, shown int, sessionsOnly bool) SearchPage {
	if limit <= 0 {
		limit = pidex.DefaultSearchLimit
	}
	p := SearchPage{Totals: t, SessionsOnly: sessionsOnly, Prev: -1, Next: -1}
	if shown > 0 {
		p.From, p.To = offset+1, offset+shown
	}
	if offset > 0 {
		p.Prev = max(0, offset-limit)
	}
	if total := p.total(); (p.To > 0 && p.To < total) || (t.AtLeast && !sessionsOnly && shown == limit) {
		p.Next = offset + shown
	}
	return p
}

// total is how many rows the answer has: hits, or sessions.
func (p SearchPage) total() int {
	if p.SessionsOnly {
		return p.Totals.Sessions
	}
	return p.Totals.Hits
}

// String says the page and the totals: "hits 21–40 of 1,234 in 56
// sessions", "sessions 1–20 of 56 (1,234 hits)", "no hits".
func (p SearchPage) String() string {
	t := p.Totals
	hits := text.Count(int64(t.Hits))
	if t.AtLeast {
		hits += "+"
	}
	switch {
	case t.Hits == 0:
		return "no hits"
	case p.SessionsOnly && p.To == 0:
		return fmt.Sprintf("no sessions past %s (%s %s)", text.Count(int64(t.Sessions)), hits, text.Plural(t.Hits, "hit", "hits"))
	case p.SessionsOnly:
		return fmt.Sprintf("sessions %s–%s of %s (%s %s)", text.Count(int64(p.From)), text.Count(int64(p.To)), text.Count(int64(t.Sessions)), hits, text.Plural(t.Hits, "hit", "hits"))
	case p.To == 0:
		return fmt.Sprintf("no hits past %s", hits)
	}
	sessions := text.Count(int64(t.Sessions))
	if t.AtLeast {
		sessions += "+"
	}
	if p.From == p.To {
		return fmt.Sprintf("hit %s of %s in %s %s", text.Count(int64(p.From)), hits, sessions, text.Plural(t.Sessions, "session", "sessions"))
	}
	return fmt.Sprintf("hits %s–%s of %s in %s %s", text.Count(int64(p.From)), text.Count(int64(p.To)), hits, sessions, text.Plural(t.Sessions, "session", "sessions"))
}

// HitGroup is the hits of one session, for a page that groups them.
type HitGroup struct {
	Path, SessionID string
	Hits            []pidex.Hit
}

// GroupHits groups a page's hits by session, the sessions in the order of
// their best hit, each session's hits in the page's order.
func GroupHits(hits []pidex.Hit) []HitGroup {
	var groups []HitGroup
	index := map[string]int{}
	for _, h := range hits {
		i, ok := index[h.Path]
		if !ok {
			i = len(groups)
			index[h.Path] = i
			groups = append(groups, HitGroup{Path: h.Path, SessionID: h.SessionID})
		}
		groups[i].Hits = append(groups[i].Hits, h)
	}
	return groups
}
