package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pidex-dev/pidex/catalog"
	"github.com/pidex-dev/pidex/indexer"
	"github.com/pidex-dev/pidex/query"
	"github.com/pidex-dev/pidex/schema"
)

// app holds the global flags and what every command shares.
type app struct {
	stdout, stderr io.Writer
	dbPath         string
	sessions       []string
	json           bool
	quiet          bool
	noRefresh      bool

	db     *catalog.DB
	extra  string // a folder outside the roots holding a session named on the command line
	warned bool   // some input could not be read: exit code 3
}

func newApp(stdout, stderr io.Writer) *app {
	return &app{stdout: stdout, stderr: stderr}
}

func (a *app) execute(ctx context.Context, args []string) error {
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	defer func() {
		if a.db != nil {
			a.db.Close()
		}
	}()
	_, err := root.ExecuteContextC(ctx)
	if err != nil && isCobraUsage(err) {
		return fmt.Errorf("%w: %s", errUsage, err.Error())
	}
	return err
}

// isCobraUsage recognises cobra's argument and flag errors, which it does
// not type.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "flag needs", "invalid argument", "accepts ", "requires at least", "requires at most", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "pidex",
		Short:         "Search, count and query your pi coding agent sessions",
		Long:          "pidex keeps a SQLite catalog of pi's session files (it only ever reads them) and answers from it in milliseconds.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	f := root.PersistentFlags()
	f.StringVar(&a.dbPath, "db", catalog.DefaultPath(), "catalog file (env PIDEX_DB)")
	f.StringArrayVar(&a.sessions, "sessions", nil, "session root to index (repeatable; default: $PI_CODING_AGENT_SESSION_DIR, $PI_CODING_AGENT_DIR/sessions or ~/.pi/agent/sessions)")
	f.BoolVar(&a.json, "json", false, "print JSON on stdout (see README for the format)")
	f.BoolVarP(&a.quiet, "quiet", "q", false, "no progress or warning summary on stderr")
	f.BoolVar(&a.noRefresh, "no-refresh", false, "answer from the catalog as it is, without refreshing it first")
	root.AddCommand(a.indexCmd(), a.pathCmd(), a.listCmd(), a.treeCmd(), a.showCmd(), a.warningsCmd())
	return root
}

func (a *app) roots() []string {
	if len(a.sessions) > 0 {
		return a.sessions
	}
	return indexer.DefaultRoots()
}

// outsideRoot returns the folder of a session file named on the command
// line when it lies outside every root (a session copied elsewhere, or
// handed over by someone), so that this run indexes it too; else "".
func outsideRoot(arg string, roots []string) string {
	if !strings.HasSuffix(arg, ".jsonl") {
		return ""
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(abs); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	dir := filepath.Dir(abs)
	roots, _ = indexer.AbsRoots(roots)
	for _, r := range roots {
		if dir == r || filepath.Dir(dir) == r {
			return ""
		}
	}
	return dir
}

// open opens the catalog once per invocation.
func (a *app) open(ctx context.Context) (*catalog.DB, error) {
	if a.db != nil {
		return a.db, nil
	}
	db, err := catalog.Open(ctx, a.dbPath)
	if err != nil {
		return nil, fmt.Errorf("%w\n(the catalog is only a cache: 'pidex index --full' rebuilds it, or delete %s)", err, a.dbPath)
	}
	a.db = db
	return db, nil
}

// refresh brings the catalog up to date before a read, unless --no-refresh.
// Problems with the input are summarised on stderr; they never stop the read.
func (a *app) refresh(ctx context.Context) (*catalog.DB, error) {
	db, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	if a.noRefresh {
		return db, nil
	}
	st, err := a.runIndexer(ctx, db)
	if err != nil {
		return nil, err
	}
	a.report(st, false)
	return db, nil
}

// session refreshes the catalog and resolves a SESSION argument.
func (a *app) session(ctx context.Context, arg string) (*catalog.DB, schema.SessionRef, error) {
	a.extra = outsideRoot(arg, a.roots())
	db, err := a.refresh(ctx)
	if err != nil {
		return nil, schema.SessionRef{}, err
	}
	ref, err := query.Resolve(ctx, db.DB, arg)
	return db, ref, err
}

// runIndexer runs one refresh with a progress bar when appropriate.
func (a *app) runIndexer(ctx context.Context, db *catalog.DB) (*indexer.Stats, error) {
	roots := a.roots()
	if a.extra != "" {
		roots = append(roots[:len(roots):len(roots)], a.extra)
	}
	ix := &indexer.Indexer{DB: db, Roots: roots, Progress: &indexer.Progress{}}
	for _, r := range ix.Roots {
		if _, err := os.Stat(r); err != nil && !a.quiet {
			// Not an error (pi may simply not have run yet), but worth a word.
			fmt.Fprintf(a.stderr, "pidex: no session folder at %s\n", r)
		}
	}
	stop := a.drawProgress(ix.Progress)
	st, err := ix.Refresh(ctx)
	stop()
	if err != nil {
		return nil, fmt.Errorf("refresh catalog: %w", err)
	}
	return st, nil
}

// report prints warnings and errors to stderr (each with file and line
// when verbose, else a one-line summary) and records that the run saw
// unreadable input.
func (a *app) report(st *indexer.Stats, verbose bool) {
	if len(st.Warnings) == 0 && len(st.Errors) == 0 {
		return
	}
	a.warned = true
	if a.quiet {
		return
	}
	if verbose {
		for _, w := range st.Warnings {
			fmt.Fprintln(a.stderr, "warning:", w.String())
		}
		for _, e := range st.Errors {
			fmt.Fprintln(a.stderr, "error:", e)
		}
		return
	}
	files := map[string]bool{}
	for _, w := range st.Warnings {
		files[w.Path] = true
	}
	fmt.Fprintf(a.stderr, "pidex: %d unreadable line(s) skipped in %d file(s), %d unreadable file(s); 'pidex warnings' lists them\n",
		len(st.Warnings), len(files), len(st.Errors))
}

// isTerminal reports whether w is a terminal (not merely a character
// device: /dev/null is one too).
func isTerminal(w io.Writer) bool {
	if b, ok := w.(*bufWriter); ok {
		w = b.file
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
