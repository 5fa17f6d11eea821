package query

import (
	"context"

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

// Flatten joins segments and lists the matched ones as character ranges
// (pidex.Flatten).
func Flatten(segs []pidex.Segment) (string, [][2]int) { return pidex.Flatten(segs) }

// RankCap bounds the matches a search's first pages rank. bm25 costs
// about 3 µs a match (it reads each entry's length), so ranking every
// entry with a common word (208,000 with "the" in 1.7 GB of sessions) took
// 0.7 s; the newest 5,000 take 40 ms (10,000 took 100 ms, mostly bm25).
// A search ranks the RankCap newest matches within its filters (the
// newest by file name, then path, then offset backwards: locally the
// text index's rowids follow them, see indexer.reserveIDs). Filtered,
// every match was ranked: `--role user the` over 30,000 sessions, 2
// million matches, 7 s. A search of one session (its matches are its
// own), --sessions-only, a later page or a term rarer than that ranks
// every match.
const RankCap = 5000

// ConfirmBudget is how many bytes of candidates' lines a phrase's totals
// confirm past the page they need (then they say "at least"): a local
// catalog reads the lines back from the files, a team catalog checks the
// candidates' positions, in the same order and within the same budget, so
// that both say the same.
const ConfirmBudget = 2 << 20

// SearchPlan is a search as a catalog's text index runs it.
type SearchPlan struct {
	Query fts.Node
	// Where are the filters, on the matching entry e, its session s, file
	// f (and machine mm).
	Where Conds
	// Narrowed: Where narrows more than the reader's roots (a capped page
	// then ranks the newest matches within Where, see Capped).
	Narrowed      bool
	Active        bool // only entries on a session's current branch
	Newest        bool // newest first instead of by relevance
	Limit, Offset int
	// FileID is the one session searched (0: every session), which Where
	// holds too: a catalog may search that file's rows alone.
	FileID int64
	// Cap is how many of the newest matches a capped page ranks (RankCap).
	Cap int
	// Recent: the filters bound the entries' time from below (--since),
	// so their matches lie in the newest files: a catalog that cannot
	// read its matches newest first in one pass counts them file batch by
	// file batch, the newest first.
	Recent bool
}

// Capped reports whether the page ranks only the newest Cap matches
// within the plan's filters (see RankCap): the first pages of a search of
// more than one session.
func (p *SearchPlan) Capped() bool {
	return p.FileID == 0 && p.Offset+p.Limit <= p.Cap
}

// Filtered reports whether the matches a capped page ranks are chosen
// within filters (Narrowed, Active): a plain search takes the newest
// matches of the index, and the roots' condition after.
func (p *SearchPlan) Filtered() bool { return p.Narrowed || p.Active }

// Terms are the query's words and phrases, for highlighting.
func (p *SearchPlan) Terms() []fts.Term { return fts.Highlights(p.Query) }

// searchPlan checks o and makes its plan.
func (rd *Reader) searchPlan(ctx context.Context, o pidex.SearchOptions) (*SearchPlan, error) {
	f, err := o.Filter(rd.Vocabulary())
	if err != nil {
		return nil, err
	}
	if err := rd.CheckMachine(f.Machine); err != nil {
		return nil, err
	}
	q, err := fts.Parse(o.Query)
	if err != nil {
		return nil, err
	}
	if f.FileID, err = rd.fileOf(ctx, o.Session, f.Machine); err != nil {
		return nil, err
	}
	return rd.planSearch(q, f), nil
}

// planSearch is the plan of query q with the checked filter f, within the
// reader's roots.
func (rd *Reader) planSearch(q fts.Node, f pidex.SearchFilter) *SearchPlan {
	cs := where(f.Where, pidex.OpSearch)
	if f.FileID != 0 {
		cs = append(cs, numEq("entry.file", f.FileID))
	}
	if f.Role != "" {
		cs = append(cs, inGroup(f.Role))
	}
	if !f.Since.IsZero() {
		cs = append(cs, atLeast("entry.time", f.Since.UnixMilli()))
	}
	if !f.Until.IsZero() {
		cs = append(cs, before("entry.time", f.Until.UnixMilli()))
	}
	if f.Machine != "" {
		cs = append(cs, eq("machine.name", f.Machine))
	}
	return &SearchPlan{Query: q, Where: append(inRoots(rd.roots()), cs...), Narrowed: len(cs) > 0,
		Active: f.Active, Newest: f.Newest, Limit: f.Limit, Offset: f.Offset, FileID: f.FileID, Cap: rd.rankCap(),
		Recent: !f.Since.IsZero()}
}

// fileOf resolves a session filter ("": none), on machine ("": any).
func (rd *Reader) fileOf(ctx context.Context, session, machine string) (int64, error) {
	if session == "" {
		return 0, nil
	}
	ref, err := rd.Resolve(ctx, session, machine)
	return ref.FileID, err
}

// Search returns the entries matching o, best first (or newest first),
// with snippets.
func (rd *Reader) Search(ctx context.Context, o pidex.SearchOptions) ([]pidex.Hit, error) {
	p, err := rd.searchPlan(ctx, o)
	if err != nil {
		return nil, err
	}
	return rd.backend().Search(ctx, p)
}

// SearchSessions returns the sessions matching o with their number of
// matching entries, best match first (or most recently modified first).
func (rd *Reader) SearchSessions(ctx context.Context, o pidex.SearchOptions) ([]pidex.SessionHits, error) {
	p, err := rd.searchPlan(ctx, o)
	if err != nil {
		return nil, err
	}
	return rd.backend().SearchSessions(ctx, p)
}

// SearchTotals counts the entries o matches and the sessions holding
// them, past any page (up to pidex.CountCap entries).
func (rd *Reader) SearchTotals(ctx context.Context, o pidex.SearchOptions) (pidex.SearchTotals, error) {
	p, err := rd.searchPlan(ctx, o)
	if err != nil {
		return pidex.SearchTotals{}, err
	}
	return rd.backend().SearchTotals(ctx, p)
}

// Marker is the highlighter of a search query: it marks the words the
// query matches in any text, as a hit's snippet marks them (folding case
// and accents, code as typed, CJK inside running text).
func (rd *Reader) Marker(query string) (pidex.Marker, error) {
	q, err := fts.Parse(query)
	if err != nil {
		return nil, err
	}
	terms := fts.Highlights(q)
	return func(text string) []pidex.Segment { return fts.Mark(text, terms) }, nil
}
