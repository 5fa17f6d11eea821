package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
	"github.com/pidex-dev/pidex/postgres"
)

// teamFlags are what every pidex team command takes.
type teamFlags struct {
	to            string // the team catalog (--to, else PIDEX_PG)
	apply         bool
	passwordStdin bool
	partitions    int // init: hash partitions by machine of the tables
}

func (a *app) teamCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "team",
		Short: "Print or apply the SQL that says who may push and read a team catalog",
		Long: `Who may push and read a team catalog in PostgreSQL (docs/team.md, Roles):
each developer (or machine) logs in as a role of its own, bound to the machine
names it may push; PostgreSQL's row-level security holds every push to those
machines' rows, so no role can write, delete or rewrite another machine's. A
reader's role reads every machine and writes nothing. Neither needs the
owner's role, the one that made the catalog's tables.

Each subcommand prints the SQL of its change; with --apply it runs it (in one
transaction) on the team catalog given by --to or PIDEX_PG, connected as its
owner (init: the role that owns the database, with CREATEROLE; it then owns
the tables). --password-stdin (with --apply) reads the new role's password
from standard input (a prompt on a terminal) and sets it as a SCRAM verifier:
the password appears on no command line and never reaches the server.`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var f teamFlags
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.to, "to", "", "the team catalog, to --apply the change to (env PIDEX_PG), connected as its owner")
	pf.BoolVar(&f.apply, "apply", false, "run the SQL on the team catalog instead of printing it")
	var role string
	init := &cobra.Command{
		Use:   "init",
		Short: "Make the team catalog's groups and give them their privileges (as the owner)",
		Long: `Make the two groups of the team catalog (DATABASE_push, DATABASE_read), let
only them connect, migrate the schema (with its row-level security) and give
the groups their privileges. Run it as the owner of the database, with
CREATEROLE; again after upgrading pidex (it migrates the schema).

--partitions N (with --apply, when the catalog is made) lays every table of
machine rows out as N hash partitions by machine (PostgreSQL's declarative
partitioning, docs/postgres.md): for a catalog of many machines. The layout
is chosen once: a catalog made without it, or with another N, is refused.`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.teamRun(cmd, f, func(_ postgres.Groups, database, _ string) (postgres.TeamScript, error) {
				return postgres.TeamInit(database)
			})
		},
	}
	init.Flags().IntVar(&f.partitions, "partitions", 0, "with --apply: lay the machine tables out as N hash partitions by machine (when the catalog is made)")
	addMachine := &cobra.Command{
		Use:   "add-machine MACHINE",
		Short: "Let a role push a machine (its own rows only)",
		Long: `Let ROLE push MACHINE (and nothing else): a role that logs in, in the pushing
group, bound to the machine name. A role may be bound to several machines (a
developer's laptop and workstation); --role defaults to the machine's name (a
role per machine). The role's pushes use --machine MACHINE.`,
		Args: exactlyOne("MACHINE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if role == "" {
				role = args[0]
			}
			return a.teamRun(cmd, f, func(g postgres.Groups, _, password string) (postgres.TeamScript, error) {
				return postgres.TeamAddMachine(g, args[0], role, password)
			})
		},
	}
	addMachine.Flags().StringVar(&role, "role", "", "the role that pushes it (default: the machine's name)")
	addReader := &cobra.Command{
		Use:   "add-reader ROLE",
		Short: "Let a role read every machine's sessions, and write nothing",
		Args:  exactlyOne("ROLE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.teamRun(cmd, f, func(g postgres.Groups, _, password string) (postgres.TeamScript, error) {
				return postgres.TeamAddReader(g, args[0], password)
			})
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke ROLE [MACHINE...]",
		Short: "Take machines from a role, or everything",
		Long: `Take the MACHINEs named from ROLE (it may push them no more), or, with none
named, every machine and both groups: it may then neither push nor read. The
rows it pushed stay, as their machines' rows. The policies read the bindings
at every statement: its next statement is refused.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return pidex.Usagef("%s needs a ROLE; see '%s --help'", cmd.Name(), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.teamRun(cmd, f, func(g postgres.Groups, _, _ string) (postgres.TeamScript, error) {
				return postgres.TeamRevoke(g, args[0], args[1:])
			})
		},
	}
	var serverRole, label string
	addToken := &cobra.Command{
		Use:   "add-token MACHINE...",
		Short: "Make a token that lets a machine push through a team server (shown once)",
		Long: `Make a token for pidex push --to https://TEAM-SERVER/ (pidex push-server): it
may push the MACHINEs named, and nothing else. The token is printed once, on
stdout; the team catalog keeps only its SHA-256. Put it on the machine in
` + defaultTokenFile() + ` (chmod 600), or in PIDEX_PUSH_TOKEN or a file named by
PIDEX_PUSH_TOKEN_FILE: never on a command line.

--role names the team server's role (the one in its --to URL): the machines
are bound to it (as add-machine does), so that PostgreSQL holds the server to
them too. Always applied (the token is made as its hash is stored), as the
catalog's owner (--to or PIDEX_PG). --json: {id, machines, token}.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return pidex.Usagef("%s needs the MACHINE names the token may push; see '%s --help'", cmd.Name(), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return a.addToken(cmd, f, args, serverRole, label) },
	}
	addToken.Flags().StringVar(&serverRole, "role", "", "the team server's role, to bind the machines to")
	addToken.Flags().StringVar(&label, "label", "", "a note to know the token by (pidex team tokens)")
	revokeToken := &cobra.Command{
		Use:   "revoke-token ID...",
		Short: "Revoke push tokens: a team server refuses them from its next request",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return pidex.Usagef("%s needs the ID of a token (pidex team tokens lists them); see '%s --help'", cmd.Name(), cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ids := make([]int64, len(args))
			for i, s := range args {
				id, err := strconv.ParseInt(s, 10, 64)
				if err != nil || id <= 0 {
					return pidex.Usagef("revoke-token: %q is not a token's ID (pidex team tokens lists them)", s)
				}
				ids[i] = id
			}
			return a.teamRun(cmd, f, func(postgres.Groups, string, string) (postgres.TeamScript, error) {
				return postgres.TeamRevokeToken(ids)
			})
		},
	}
	tokens := &cobra.Command{
		Use:   "tokens",
		Short: "List the push tokens: their machines, when made, last used, revoked (never the tokens)",
		Long: `List the push tokens of the team catalog (--to or PIDEX_PG, as its owner: no
other role sees them): ID, machines, label, when made, last used and revoked.
--json: [{id, machines, label, created_ms, used_ms, revoked_ms}].`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.listTokens(cmd, f) },
	}
	for _, c := range []*cobra.Command{addMachine, addReader} {
		c.Flags().BoolVar(&f.passwordStdin, "password-stdin", false, "with --apply: read the role's password from standard input and set it (as a SCRAM verifier)")
	}
	for name, c := range map[string]*cobra.Command{"team init": init, "team add-machine": addMachine, "team add-reader": addReader, "team revoke": revoke,
		"team add-token": addToken, "team revoke-token": revokeToken, "team tokens": tokens} {
		c.Example = examples[name]
	}
	cmd.AddCommand(init, addMachine, addReader, revoke, addToken, revokeToken, tokens)
	return cmd
}

// exactlyOne: the command takes one argument, named what.
func exactlyOne(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
			return pidex.Usagef("%s takes one %s, got %d argument(s); see '%s --help'", cmd.Name(), what, len(args), cmd.CommandPath())
		}
		return nil
	}
}

// teamRun builds a team change and prints it, or applies it to the team
// catalog connected as its owner. The groups are the catalog's own when
// applying (team_roles), else named after the database of the URL (or
// pidex, without one), as init names them.
func (a *app) teamRun(cmd *cobra.Command, f teamFlags, build func(g postgres.Groups, database, password string) (postgres.TeamScript, error)) error {
	ctx := cmd.Context()
	if f.to == "" {
		f.to = os.Getenv("PIDEX_PG")
	}
	if f.partitions != 0 && !f.apply {
		return pidex.Usagef("--partitions lays the tables out as pidex makes them: add --apply (the printed SQL makes no table)")
	}
	if err := pidex.CheckPartitions(f.partitions); err != nil {
		return err
	}
	if f.passwordStdin && !f.apply {
		return pidex.Usagef("--password-stdin sets the password as the change is applied: add --apply (printed, the SQL leaves the password out; psql's \\password sets one)")
	}
	database := "pidex"
	if f.to != "" {
		cfg, err := postgres.Config(f.to)
		if err != nil {
			return err
		}
		if cfg.Database != "" {
			database = cfg.Database
		}
	}
	if !f.apply {
		script, err := build(postgres.GroupsFor(database), database, "")
		if err != nil {
			return err
		}
		_, err = io.WriteString(a.stdout, script.String())
		return err
	}
	if f.to == "" {
		return pidex.Usagef("%s --apply: no team catalog: give --to postgres://… or set PIDEX_PG (connected as its owner)", cmd.CommandPath())
	}
	password := ""
	if f.passwordStdin {
		var err error
		if password, err = a.readPassword(cmd); err != nil {
			return err
		}
	}
	init := cmd.Name() == "init"
	st, err := postgres.Open(ctx, f.to, postgres.Options{Migrate: init, Version: buildName(), Partitions: f.partitions})
	if err != nil {
		return err
	}
	defer st.Close()
	g := postgres.GroupsFor(database)
	if !init {
		if g, err = st.Groups(ctx); err != nil {
			return err
		}
	}
	script, err := build(g, database, password)
	if err != nil {
		return err
	}
	if err := st.ApplyTeam(ctx, script); err != nil {
		return err
	}
	if !a.quiet {
		fmt.Fprintf(a.stderr, "pidex: applied to team catalog %s:\n", st.URL())
	}
	_, err = io.WriteString(a.stdout, script.String())
	return err
}

// readPassword reads a new role's password from standard input: asked
// for twice, unechoed, on a terminal; else its first line.
func (a *app) readPassword(cmd *cobra.Command) (string, error) {
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		ask := func(prompt string) (string, error) {
			fmt.Fprint(a.stderr, prompt)
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(a.stderr)
			return string(b), err
		}
		p, err := ask("password: ")
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		again, err := ask("again: ")
		if err != nil {
			return "", fmt.Errorf("read the password: %w", err)
		}
		if p != again {
			return "", pidex.Usagef("the two passwords differ")
		}
		return checkPassword(p)
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read the password from standard input: %w", err)
	}
	return checkPassword(strings.TrimRight(line, "\r\n"))
}

func checkPassword(p string) (string, error) {
	if p == "" {
		return "", pidex.Usagef("--password-stdin: standard input holds no password")
	}
	return p, nil
}

// teamStore opens the team catalog of --to or PIDEX_PG as its owner.
func (a *app) teamStore(cmd *cobra.Command, f teamFlags) (*postgres.Store, error) {
	if f.to == "" {
		f.to = os.Getenv("PIDEX_PG")
	}
	if f.to == "" {
		return nil, pidex.Usagef("%s: no team catalog: give --to postgres://… or set PIDEX_PG (connected as its owner)", cmd.CommandPath())
	}
	return postgres.Open(cmd.Context(), f.to, postgres.Options{Version: buildName()})
}

// addToken makes a push token, stores its hash (and binds the machines
// to the server's role), and prints the token once.
func (a *app) addToken(cmd *cobra.Command, f teamFlags, machines []string, role, label string) error {
	ctx := cmd.Context()
	st, err := a.teamStore(cmd, f)
	if err != nil {
		return err
	}
	defer st.Close()
	var g postgres.Groups
	if role != "" {
		if g, err = st.Groups(ctx); err != nil {
			return err
		}
	}
	token, err := postgres.NewToken()
	if err != nil {
		return err
	}
	script, err := postgres.TeamAddToken(g, machines, role, label, token)
	if err != nil {
		return err
	}
	if err := st.ApplyTeam(ctx, script); err != nil {
		return err
	}
	id, err := st.TokenID(ctx, token)
	if err != nil {
		return err
	}
	if a.json {
		return render.WriteJSON(a.jsonOut(), struct {
			ID       int64    `json:"id"`
			Machines []string `json:"machines"`
			Token    string   `json:"token"`
		}{id, machines, token})
	}
	if !a.quiet {
		fmt.Fprintf(a.stderr, "pidex: token %d may push %s through a team server; shown once (the team catalog keeps its hash only).\n"+
			"On the machine: save it in %s (chmod 600), or in PIDEX_PUSH_TOKEN; then pidex push --to https://TEAM-SERVER/\n",
			id, strings.Join(machines, ", "), defaultTokenFile())
	}
	_, err = fmt.Fprintln(a.stdout, token)
	return err
}

// listTokens lists the push tokens.
func (a *app) listTokens(cmd *cobra.Command, f teamFlags) error {
	st, err := a.teamStore(cmd, f)
	if err != nil {
		return err
	}
	defer st.Close()
	toks, err := st.Tokens(cmd.Context())
	if err != nil {
		return err
	}
	if a.json {
		return render.WriteJSON(a.jsonOut(), toks)
	}
	when := func(ms *int64) string {
		if ms == nil {
			return "-"
		}
		return time.UnixMilli(*ms).Local().Format("2006-01-02 15:04")
	}
	for _, t := range toks {
		if _, err := fmt.Fprintf(a.stdout, "%d\t%s\t%s\tmade %s\tused %s\trevoked %s\n", t.ID, strings.Join(t.Machines, ","), t.Label,
			when(&t.CreatedMs), when(t.UsedMs), when(t.RevokedMs)); err != nil {
			return err
		}
	}
	return nil
}
