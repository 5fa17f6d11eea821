package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/internal/view"
	"github.com/pidex-dev/pidex/pi"
)

func (a *app) searchCmd() *cobra.Command {
	var (
		o            pidex.SearchOptions
		sessionsOnly bool
	)
	cmd := &cobra.Command{
		Use:   "search QUERY...",
		Short: "Search the text of every session (words, \"phrases\", prefix*, OR, -exclude)",
		Long: `Search user and assistant text, thinking, tool calls and results, bash
commands and output, custom messages, summaries, session names and labels of
every session, on every branch. Case and accents do not matter (Café finds
cafe); code is found as typed (parse_header, session-manager.ts,
src/query/path.go are exact phrases of their parts); Chinese, Japanese and
Korean words are found inside running text.

Query language:
  word          a word
  "two words"   a phrase
  migrat*       a prefix
  a OR b        either (OR in capitals)
  a b           both
  -word         without word (also -"a phrase")
  ( … )         grouping

Hits are ranked by relevance (bm25; more recent first among equals) or with
--sort newest by time. Each hit shows its session, project, role, time, a
snippet with the matched words highlighted, and the command that opens it.
--sessions-only lists sessions with their number of hits instead.
Several arguments are one query (pidex search parse header = "parse header"
as two words). A query that starts with '-' follows '--':
pidex search -- -draft notes.

--json prints [{path, sessionId, entryId, offset, line, role, timestamp,
snippet, highlights, score}] (with --sessions-only: [{path, sessionId, name,
firstMessage, hits}]).`,
		Args: aQuery,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			o.Query = strings.Join(args, " ")
			if err := resolvePaths(o.Where); err != nil {
				return err
			}
			o.Machine = a.machine
			var (
				totals          pidex.SearchTotals
				ss              []pidex.SessionHits
				hits            []pidex.Hit
				indexed, inText int64
			)
			eng, err := a.readFresh(ctx, o.Session, true, func(eng pidex.Catalog) (err error) {
				if indexed, inText, err = eng.TextCoverage(ctx); err != nil {
					return err
				}
				if totals, err = eng.SearchTotals(ctx, o); err != nil {
					return err
				}
				if sessionsOnly {
					ss, err = eng.SearchSessions(ctx, o)
				} else {
					hits, err = eng.Search(ctx, o)
				}
				return err
			})
			if err != nil {
				return err
			}
			a.coverageNote(indexed, inText)
			if sessionsOnly {
				a.pageNote(view.NewSearchPage(totals, o.Offset, o.Limit, len(ss), true))
				if a.json {
					return render.WriteJSONLines(a.jsonOut(), ss)
				}
				var handles []string
				if a.io.OutTTY {
					refs := make([]pidex.SessionRef, len(ss))
					for i, s := range ss {
						refs[i] = pidex.SessionRef{Path: s.Path, SessionID: s.SessionID, Machine: s.Machine}
					}
					if handles, err = eng.Handles(ctx, refs, true); err != nil {
						return err
					}
				}
				return render.SessionHits(a.stdout, ss, a.io.OutTTY, a.io.Width, handles)
			}
			a.pageNote(view.NewSearchPage(totals, o.Offset, o.Limit, len(hits), false))
			if a.json {
				return render.WriteJSONLines(a.jsonOut(), hits)
			}
			// Each hit's open command names its file by handle: a short one
			// to type on a terminal, the whole id piped.
			refs := make([]pidex.SessionRef, len(hits))
			for i, h := range hits {
				refs[i] = pidex.SessionRef{Path: h.Path, SessionID: h.SessionID, Machine: h.Machine}
			}
			handles, err := eng.Handles(ctx, refs, a.io.OutTTY)
			if err != nil {
				return err
			}
			return render.Hits(a.stdout, hits, a.io.OutTTY, a.io.Width, handles)
		},
	}
	fl := cmd.Flags()
	filterFlags(fl, pidex.OpSearch, &o.Where)
	fl.StringVar(&o.Session, "session", "", "only this session (id, prefix, name or file)")
	fl.StringVar(&o.Role, "role", "", "only entries of this role: "+strings.Join(pi.Vocabulary().RoleGroups, ", "))
	fl.StringVar(&o.Since, "since", "", "only entries at or after DATE (2026-11-01, RFC 3339, or a duration like 7d)")
	fl.StringVar(&o.Until, "until", "", "only entries before DATE (a bare date includes that day)")
	fl.StringVar(&o.Branch, "branch", pidex.BranchAll, "all: every branch of every file; active: only entries on a session's current branch")
	fl.StringVar(&o.Sort, "sort", pidex.SortRelevance, "relevance or newest")
	fl.IntVar(&o.Limit, "limit", pidex.DefaultSearchLimit, "at most N hits (sessions with --sessions-only)")
	fl.IntVar(&o.Offset, "offset", 0, "skip the first N hits (sessions with --sessions-only): the next page starts at --offset LIMIT")
	fl.BoolVar(&sessionsOnly, "sessions-only", false, "one row per session, with its number of hits")
	return cmd
}

// pageNote says on stderr which hits the answer holds of how many, and
// how to get the next page: stdout stays the hits alone. Only for a
// person, as the progress bar: when stderr is a terminal, and not with
// --quiet (a script that reads stderr gets no extra line).
func (a *app) pageNote(p view.SearchPage) {
	if a.quiet || !a.io.ErrTTY {
		return
	}
	note := p.String()
	if p.Next >= 0 {
		note += fmt.Sprintf("; --offset %d shows the next page", p.Next)
	}
	fmt.Fprintln(a.stderr, "pidex: "+note)
}

// coverageNote says on stderr when part of the text is not indexed yet
// (indexed of total entries).
func (a *app) coverageNote(indexed, total int64) {
	if note := view.Coverage(indexed, total); note != "" && !a.quiet {
		fmt.Fprintf(a.stderr, "pidex: %s; 'pidex index' finishes it\n", note)
	}
}
