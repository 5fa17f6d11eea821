package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/catalog"
	"github.com/pidex-dev/pidex/indexer"
)

func (a *app) indexCmd() *cobra.Command {
	var full, watch bool
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Refresh the catalog incrementally and print what changed",
		Long: `Refresh the catalog: new files are read, appended files are read from where
the last refresh stopped, rewritten files are read again, removed files are
dropped; an unchanged file costs one stat. --full rebuilds the catalog into a
new file and swaps it in atomically.

--watch keeps refreshing until interrupted: after any change under the session
roots (debounced), and once a minute as a safety net. It prints a line per
refresh that changed something (with --json, one object per line).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			var st *indexer.Stats
			var err error
			if full {
				st, err = a.rebuild(ctx)
			} else {
				var db *catalog.DB
				if db, err = a.open(ctx); err == nil {
					st, err = a.runIndexer(ctx, db)
				}
			}
			if err != nil {
				return err
			}
			a.report(st, true)
			switch {
			case watch && a.json:
				err = writeJSONLine(a.stdout, st)
			case a.json:
				err = writeJSON(a.stdout, st)
			default:
				err = a.printStats(st)
			}
			if err != nil || !watch {
				return err
			}
			if err := a.flush(); err != nil {
				return err
			}
			return a.watch(ctx)
		},
	}
	cmd.Flags().BoolVar(&watch, "watch", false, "keep the catalog current until interrupted, printing what each refresh changed")
	cmd.Flags().BoolVar(&full, "full", false, "rebuild the catalog from scratch into a new file, then swap it in")
	return cmd
}

func (a *app) printStats(st *indexer.Stats) error {
	_, err := fmt.Fprintf(a.stdout, "files %d: new %d, appended %d, rewritten %d, removed %d, unchanged %d\nentries added %d, read %s, not sessions %d, pending %d, warnings %d, errors %d\n",
		st.Files, st.New, st.Appended, st.Rewritten, st.Removed, st.Unchanged,
		st.Entries, humanBytes(st.Bytes), len(st.NotSessions), len(st.Pending), len(st.Warnings), len(st.Errors))
	return err
}

// rebuild indexes everything into a fresh catalog next to the current one
// and renames it over the old, so readers see either the old or the new
// catalog, never a half-built one.
func (a *app) rebuild(ctx context.Context) (*indexer.Stats, error) {
	tmp := a.dbPath + ".rebuild"
	removeDB(tmp)
	db, err := catalog.Open(ctx, tmp)
	if err != nil {
		return nil, err
	}
	st, err := a.runIndexer(ctx, db)
	if err == nil {
		err = checkpoint(ctx, db)
	}
	db.Close()
	if err != nil {
		removeDB(tmp)
		return nil, err
	}
	// Fold the old catalog's WAL into it before it is replaced, so no stale
	// -wal file is left next to the new one.
	if _, statErr := os.Stat(a.dbPath); statErr == nil {
		if old, err := catalog.Open(ctx, a.dbPath); err == nil {
			_ = checkpoint(ctx, old)
			old.Close()
		}
	}
	if err := os.Rename(tmp, a.dbPath); err != nil {
		removeDB(tmp)
		return nil, fmt.Errorf("swap in rebuilt catalog: %w", err)
	}
	os.Remove(a.dbPath + "-wal")
	os.Remove(a.dbPath + "-shm")
	return st, nil
}

func checkpoint(ctx context.Context, db *catalog.DB) error {
	if _, err := db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("checkpoint catalog: %w", err)
	}
	return nil
}

func removeDB(p string) {
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Remove(p + s)
	}
}

// watch refreshes on every change until ctx ends (Ctrl-C), reporting each
// refresh that changed something. The refresh before it already ran.
func (a *app) watch(ctx context.Context) error {
	db, err := a.open(ctx)
	if err != nil {
		return err
	}
	ix := &indexer.Indexer{DB: db, Roots: a.roots()}
	var werr error
	err = ix.Watch(ctx, indexer.WatchOptions{OnRefresh: func(st *indexer.Stats, err error) {
		if err != nil {
			fmt.Fprintln(a.stderr, "pidex: refresh:", err)
			return
		}
		if st.New+st.Appended+st.Rewritten+st.Removed == 0 && len(st.Warnings)+len(st.Errors) == 0 {
			return
		}
		a.report(st, true)
		if a.json {
			werr = writeJSONLine(a.stdout, st)
		} else {
			_, werr = fmt.Fprintf(a.stdout, "%s new %d, appended %d, rewritten %d, removed %d; %d entries, %s\n",
				time.Now().Format(time.TimeOnly), st.New, st.Appended, st.Rewritten, st.Removed, st.Entries, humanBytes(st.Bytes))
		}
		if werr == nil {
			werr = a.flush()
		}
	}})
	if err != nil {
		return err
	}
	return werr
}
