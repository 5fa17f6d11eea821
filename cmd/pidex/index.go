package main

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/catalog"
	"github.com/pidex-dev/pidex/indexer"
)

func (a *app) indexCmd() *cobra.Command {
	var full bool
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Refresh the catalog incrementally and print what changed",
		Long: `Refresh the catalog: new files are read, appended files are read from where
the last refresh stopped, rewritten files are read again, removed files are
dropped; an unchanged file costs one stat. --full rebuilds the catalog into a
new file and swaps it in atomically.`,
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
			if a.json {
				return writeJSON(a.stdout, st)
			}
			return a.printStats(st)
		},
	}
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
