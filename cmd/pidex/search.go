package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/fts"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/render"
)

func (a *app) searchCmd() *cobra.Command {
	var (
		f                    query.SearchFilter
		since, until, sortBy string
		branch, session, cwd string
		sessionsOnly         bool
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
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			q, err := fts.Parse(strings.Join(args, " "))
			if err != nil {
				return err
			}
			f.Query = q
			if err := a.searchFlags(&f, since, until, sortBy, branch, cwd); err != nil {
				return err
			}
			eng, err := a.searchRefresh(ctx, session, &f)
			if err != nil {
				return err
			}
			if sessionsOnly {
				ss, err := eng.SearchSessions(ctx, f)
				if err != nil {
					return err
				}
				if a.json {
					return render.WriteJSONLines(a.stdout, ss)
				}
				return render.SessionHits(a.stdout, ss, a.io.OutTTY, a.io.Width)
			}
			hits, err := eng.Search(ctx, f)
			if err != nil {
				return err
			}
			if a.json {
				return render.WriteJSONLines(a.stdout, hits)
			}
			return render.Hits(a.stdout, hits, a.io.OutTTY, a.io.Width)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Project, "project", "", "only sessions whose working directory contains SUBSTRING")
	fl.StringVar(&cwd, "cwd", "", "only sessions whose working directory is exactly DIR")
	fl.StringVar(&session, "session", "", "only this session (id, prefix, name or file)")
	fl.StringVar(&f.Role, "role", "", "only entries of this role: user, assistant, tool or summary")
	fl.StringVar(&f.Model, "model", "", "only entries whose model contains SUBSTRING (assistant messages, model changes)")
	fl.StringVar(&since, "since", "", "only entries at or after DATE (2026-11-01, RFC 3339, or a duration like 7d)")
	fl.StringVar(&until, "until", "", "only entries before DATE (a bare date includes that day)")
	fl.StringVar(&branch, "branch", "all", "all: every branch of every file; active: only entries on a session's current branch")
	fl.StringVar(&sortBy, "sort", "relevance", "relevance or newest")
	fl.IntVar(&f.Limit, "limit", 20, "at most N hits (sessions with --sessions-only)")
	fl.BoolVar(&sessionsOnly, "sessions-only", false, "one row per session, with its number of hits")
	return cmd
}

// searchFlags checks and converts the filter flags (query.SearchOptions,
// shared with the web server) and resolves --cwd against the working
// directory.
func (a *app) searchFlags(f *query.SearchFilter, since, until, sortBy, branch, cwd string) error {
	if err := (query.SearchOptions{Since: since, Until: until, Sort: sortBy, Branch: branch}).Apply(f); err != nil {
		return err
	}
	var err error
	f.Cwd, err = resolveCwd(cwd)
	return err
}

// searchRefresh refreshes the catalog and its text index (unless
// --no-refresh), resolves --session, and says on stderr when part of the
// text is not indexed yet.
func (a *app) searchRefresh(ctx context.Context, session string, f *query.SearchFilter) (*engine.Engine, error) {
	eng, err := a.refreshFor(ctx, session, &f.FileID)
	if err != nil {
		return nil, err
	}
	if a.refreshes(eng) {
		var st *indexer.TextStats
		if err := a.drawing(func() (err error) { st, err = eng.RefreshText(ctx); return err }); err != nil {
			return nil, err
		}
		a.report(&indexer.Stats{Text: st}, false)
	}
	indexed, total, err := eng.TextCoverage(ctx)
	if err != nil {
		return nil, err
	}
	if indexed < total && !a.quiet {
		fmt.Fprintf(a.stderr, "pidex: %.0f%% of the session text is indexed so far (%s of %s); 'pidex index' finishes it\n",
			100*float64(indexed)/float64(total), render.HumanBytes(indexed), render.HumanBytes(total))
	}
	return eng, nil
}

// refreshFor refreshes the catalog, or with a --session, resolves it
// (indexing its file if it lies outside the roots) into *fileID.
func (a *app) refreshFor(ctx context.Context, session string, fileID *int64) (*engine.Engine, error) {
	if session == "" {
		return a.refresh(ctx)
	}
	eng, ref, err := a.session(ctx, session)
	*fileID = ref.FileID
	return eng, err
}
