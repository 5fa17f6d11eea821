package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/postgres"
)

// app holds the global flags and what every command shares. The work is
// the engine's; the app parses flags and prints.
type app struct {
	io        *render.IOStreams
	stdin     io.Reader // nil: the process's (tests give one)
	stdout    io.Writer
	stderr    io.Writer
	dbPath    string
	catalog   string // a team catalog's postgres:// URL ("": the local catalog)
	machine   string // --machine: a team catalog's machine (reads: a filter; push: this machine's name)
	sessions  []string
	json      bool
	quiet     bool
	noRefresh bool
	noPager   bool
	// longLived: the command runs until interrupted (serve, mcp, --watch):
	// its catalog reads copies of the read caches (engine.Options.OneShot).
	longLived bool
	// rebuild: index --full, which reads every file into a new catalog
	// instead of refreshing this one (no early listing to start).
	rebuild bool
	args    []string // the command line, for messages about it
	// launch starts an agent on a session (pidex resume): execAgent, or a
	// test's stand-in, since exec would replace the test binary.
	launch func(program string, r *pidex.Resume) error

	eng      *engine.Engine
	progress *pidex.Progress
	warned   bool // some input could not be read: exit code 3
	roWarned bool // said once that the catalog is read-only
}

// newApp builds the CLI over two streams, telling terminals from pipes by
// their file descriptors (see render.System).
func newApp(stdout, stderr io.Writer) *app {
	return newAppIO(render.System(stdout, stderr))
}

// newAppIO builds the CLI over streams described by the caller (tests).
func newAppIO(s *render.IOStreams) *app {
	a := &app{io: s, stdout: s.Out, stderr: s.ErrOut, progress: &pidex.Progress{}, launch: execAgent}
	if s.ErrTTY {
		// Messages quote session names, paths and candidates: on a
		// terminal their control characters are shown escaped, as on
		// stdout. The progress bar draws on s.ErrOut itself.
		a.stderr = render.SafeWriter(s.ErrOut)
	}
	return a
}

func (a *app) execute(ctx context.Context, args []string) error {
	a.args = args
	root := a.rootCmd()
	root.SetArgs(args)
	if a.stdin != nil {
		root.SetIn(a.stdin)
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	defer func() {
		if a.eng != nil {
			a.eng.Close()
		}
	}()
	_, err := root.ExecuteContextC(ctx)
	return err
}

func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "pidex",
		Short:         "Search, count and query your pi coding agent sessions",
		Long:          "pidex keeps a SQLite catalog of pi's session files (it only ever reads them) and answers from it in milliseconds.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          unknownCommand,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetFlagErrorFunc(flagError)
	// --version prints what `pidex version` prints.
	bi := readBuildInfo()
	root.Version = bi.Version
	root.SetVersionTemplate("{{with .Annotations}}{{.version}}{{end}}")
	root.Annotations = map[string]string{"version": bi.String()}
	f := root.PersistentFlags()
	f.StringVar(&a.dbPath, "db", "", "catalog file (default $PIDEX_DB, else $XDG_CACHE_HOME/pidex/index.sqlite or ~/.cache/pidex/index.sqlite)")
	f.StringVar(&a.catalog, "catalog", os.Getenv("PIDEX_CATALOG"), "read a team catalog instead: a postgres:// URL that pidex push fills (env PIDEX_CATALOG; credentials from the URL, the environment or ~/.pgpass, never printed)")
	f.StringVar(&a.machine, "machine", "", "team catalogs: read only this machine's sessions; pidex push: the name this machine pushes as (default its host name)")
	f.StringArrayVar(&a.sessions, "sessions", nil, "session root to index, DIR or SOURCE:DIR (pi, omp, openclaw) (repeatable; default: every agent's own, see pidex roots)")
	f.BoolVar(&a.json, "json", false, "print JSON on stdout (see docs/output.md for the format)")
	f.BoolVarP(&a.quiet, "quiet", "q", false, "no progress or warning summary on stderr")
	f.BoolVar(&a.noRefresh, "no-refresh", false, "answer from the catalog as it is, without refreshing it first")
	f.BoolVar(&a.noPager, "no-pager", false, "write show and tree directly, not through $PIDEX_PAGER, $PAGER or less")
	root.AddCommand(a.indexCmd(), a.pathCmd(), a.listCmd(), a.treeCmd(), a.showCmd(), a.searchCmd(), a.costCmd(), a.statsCmd(), a.pricesCmd(), a.sqlCmd(), a.schemaCmd(), a.warningsCmd(), a.rootsCmd(), a.resumeCmd(), a.exportCmd(), a.serveCmd(), a.mcpCmd(), a.pushCmd(), a.pushServerCmd(), a.teamCmd(), a.versionCmd())
	root.SetOut(a.stdout) // before the completion command, which keeps it
	root.SetErr(a.stderr)
	a.completions(root)
	addExamples(root)
	return root
}

// engine opens the engine once per invocation (which may rebuild a
// catalog an older pidex made: drawn like any refresh).
func (a *app) engine(ctx context.Context) (*engine.Engine, error) {
	if a.eng != nil {
		return a.eng, nil
	}
	if a.catalog != "" && !postgres.IsURL(a.catalog) {
		return nil, fmt.Errorf("--catalog %s: want a team catalog's postgres:// URL (a local catalog file is --db): %w", postgres.Redacted(a.catalog), errUsage)
	}
	var eng *engine.Engine
	err := a.drawing(func() (err error) {
		eng, err = engine.Open(ctx, a.engineOptions())
		return err
	})
	if err != nil {
		return nil, err
	}
	a.eng = eng
	return eng, nil
}

func (a *app) engineOptions() engine.Options {
	return engine.Options{
		DBPath: a.dbPath, Catalog: a.catalog, Roots: a.sessions, Progress: a.progress, OneShot: !a.longLived,
		// A one-shot command reads a current catalog unless told not to:
		// its folders are listed while the catalog opens.
		RefreshFirst: !a.longLived && !a.noRefresh && !a.rebuild,
		Notify: func(msg string) {
			if !a.quiet {
				fmt.Fprintln(a.stderr, "pidex:", msg)
			}
		},
	}
}

// refresh brings the catalog up to date before a read, unless --no-refresh.
// Problems with the input are summarised on stderr; they never stop the read.
func (a *app) refresh(ctx context.Context) (*engine.Engine, error) {
	eng, err := a.engine(ctx)
	if err != nil || !a.refreshes(eng) {
		return eng, err
	}
	if _, err := a.refreshNow(ctx, eng, false); err != nil {
		return nil, err
	}
	return eng, nil
}

// session refreshes the catalog (unless --no-refresh) and resolves a
// SESSION argument; a session file named by path outside the roots is
// indexed too, with its folder.
func (a *app) session(ctx context.Context, arg string) (pidex.Catalog, pidex.SessionRef, error) {
	eng, err := a.refreshWith(ctx, arg)
	if err != nil {
		return nil, pidex.SessionRef{}, err
	}
	ref, err := eng.Resolve(ctx, arg, a.machine)
	return eng, ref, err
}

// refreshWith refreshes the catalog (unless --no-refresh), indexing the
// folder of session (a --session filter; "" for none) when it names a
// file outside the roots.
func (a *app) refreshWith(ctx context.Context, session string) (*engine.Engine, error) {
	eng, err := a.engine(ctx)
	if err != nil {
		return nil, err
	}
	if session != "" {
		eng.Include(session)
	}
	return a.refresh(ctx)
}

// readFresh answers read from the catalog brought up to date first
// (refreshWith; with text, its text index too), reading beside the
// refresh on the other core: most refreshes change nothing, and then what
// read found beside the refresh is what it would find after it. When the
// refresh wrote anything, or the early read failed (a session the refresh
// had yet to index), read runs again after it. read only gathers its
// answer (the caller prints it afterwards): it may run twice.
func (a *app) readFresh(ctx context.Context, session string, text bool, read func(pidex.Catalog) error) (pidex.Catalog, error) {
	eng, err := a.engine(ctx)
	if err != nil {
		return nil, err
	}
	if session != "" {
		eng.Include(session)
	}
	if !a.refreshes(eng) {
		return eng, read(eng)
	}
	early := make(chan error, 1)
	go func() { early <- read(eng) }()
	wrote, err := a.refreshNow(ctx, eng, text)
	earlyErr := <-early // waited for even after a failed refresh: read ends before this returns
	if err != nil {
		return nil, err
	}
	if earlyErr == nil && !wrote {
		return eng, nil
	}
	return eng, read(eng)
}

// refreshNow refreshes the catalog (and, with text, its text index),
// drawing progress and reporting problems as refresh does, and says
// whether it wrote anything.
func (a *app) refreshNow(ctx context.Context, eng *engine.Engine, text bool) (wrote bool, err error) {
	var st *pidex.IndexStats
	refresh := eng.Refresh
	if text {
		refresh = eng.RefreshBeforeText // the text pass follows
	}
	err = a.drawing(func() (err error) { st, err = refresh(ctx); return err })
	if errors.Is(err, pidex.ErrNewerCatalog) {
		// A newer pidex replaced the catalog since this one opened it:
		// answered from as it is, as one it built before (refreshes).
		if !a.roWarned && !a.quiet {
			fmt.Fprintf(a.stderr, "pidex: catalog %s was replaced by one a newer pidex built: answering from it as it is, without refreshing\n", eng.DBPath())
		}
		a.roWarned = true
		return false, nil
	}
	if err != nil {
		return false, err
	}
	a.report(st, false)
	wrote = st.Wrote
	if text {
		var ts *pidex.TextStats
		if err := a.drawing(func() (err error) { ts, err = eng.RefreshText(ctx); return err }); err != nil {
			return false, err
		}
		a.report(&pidex.IndexStats{Text: ts}, false)
		wrote = wrote || ts.Files > 0 || ts.Entries > 0
	}
	return wrote, nil
}

// refreshes says whether a read refreshes the catalog first: not with
// --no-refresh, and not when the catalog is read-only for this process,
// which is answered from as it is, with one warning per run.
func (a *app) refreshes(eng *engine.Engine) bool {
	if a.noRefresh || eng.Team() {
		return false // a team catalog is as its machines' pushes left it
	}
	if !eng.ReadOnly() {
		return true
	}
	if !a.roWarned && !a.quiet {
		fmt.Fprintf(a.stderr, "pidex: catalog %s %s: answering from it as it is, without refreshing\n", eng.DBPath(), eng.ReadOnlyWhy())
	}
	a.roWarned = true
	return false
}

// warnPassword warns, on stderr, of a password in a team catalog URL
// given on the command line of a command that runs until interrupted:
// anyone on the machine can read a process's command line (ps,
// /proc/PID/cmdline) as long as it runs. The password is never printed.
func (a *app) warnPassword(cmd *cobra.Command, flag, raw string) {
	if cmd.Flags().Changed(flag) && postgres.HasPassword(raw) {
		fmt.Fprintf(a.stderr, "pidex: warning: the URL given with --%s holds a password, which anyone on this machine can read while pidex runs (ps, /proc/PID/cmdline): "+
			"give it in PGPASSWORD, ~/.pgpass or a service file, or the URL in PIDEX_PG or PIDEX_CATALOG (docs/team.md, Credentials)\n", flag)
	}
}

// report prints warnings and errors to stderr (each with file and line
// when verbose, else a one-line summary) and records that the run saw
// unreadable input.
func (a *app) report(st *pidex.IndexStats, verbose bool) {
	if st.Text != nil && len(st.Text.Errors) > 0 {
		st.Errors = append(st.Errors, st.Text.Errors...)
		st.Text.Errors = []string{}
	}
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
