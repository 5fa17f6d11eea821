package postgres

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/pidex-dev/pidex"
)

// Who may push and read a team catalog (docs/team.md, Roles): two group
// roles, one for the roles that push, each held by row-level security to
// the machines machine_roles binds to it, one for the roles that only
// read; the catalog's owner (the role that migrates it) changes who is
// in them. Each change is a script of SQL statements, which pidex team
// prints, or runs (ApplyTeam) in one transaction as the owner.

// Groups are a team catalog's two group roles.
type Groups struct {
	Push string // the group of the roles that push
	Read string // the group of the roles that read
}

// GroupsFor are the groups of the team catalog in database: named after
// it, so that two catalogs on one server have their own (a role is the
// server's, not a database's).
func GroupsFor(database string) Groups {
	return Groups{Push: database + "_push", Read: database + "_read"}
}

// TeamStep is a statement of a script with what it is for.
type TeamStep struct {
	Comment string // printed as -- lines before the statement
	SQL     string // "" for a comment alone
	Shown   string // printed instead of SQL (a password's verifier is not printed)
}

// TeamScript is a change to a team catalog's roles, run in order.
type TeamScript []TeamStep

// String is the script as SQL a superuser or the owner can run with psql.
func (s TeamScript) String() string {
	var b strings.Builder
	for i, st := range s {
		if i > 0 && st.Comment != "" {
			b.WriteByte('\n')
		}
		for _, line := range strings.Split(st.Comment, "\n") {
			if line != "" {
				b.WriteString("-- " + line + "\n")
			}
		}
		switch {
		case st.Shown != "":
			b.WriteString(st.Shown + ";\n")
		case st.SQL != "":
			b.WriteString(st.SQL + ";\n")
		}
	}
	return b.String()
}

// TeamInit makes the team catalog in database ready for roles: its two
// groups, who may connect (only they; the owner always may), and the
// groups' privileges on the schema, which pidex migrates first (as the
// role that runs this, which becomes the tables' owner).
func TeamInit(database string) (TeamScript, error) {
	if err := checkRole(database + "_push"); err != nil {
		return nil, err
	}
	g := GroupsFor(database)
	db := ident(database)
	return TeamScript{
		{Comment: fmt.Sprintf("The groups of team catalog %s: the roles that push join %s, those that only read %s.\nRun by its owner with CREATEROLE (or a superuser); again after each upgrade of pidex.", database, g.Push, g.Read),
			SQL: createRole(g.Push, "NOLOGIN")},
		{SQL: createRole(g.Read, "NOLOGIN")},
		{Comment: "A role that pushes reads too; so does pidex sql as the owner (it runs as the reading group).",
			SQL: grantRole(g.Read, g.Push)},
		{SQL: grantRole(g.Read, "CURRENT_USER")},
		{Comment: "Only the groups connect; only pushes make temporary tables (their staging tables); no one but the owner makes anything else.",
			SQL: "REVOKE ALL ON DATABASE " + db + " FROM PUBLIC"},
		{SQL: "GRANT CONNECT, TEMPORARY ON DATABASE " + db + " TO " + ident(g.Push)},
		{SQL: "GRANT CONNECT ON DATABASE " + db + " TO " + ident(g.Read)},
		{SQL: "DO $$ BEGIN EXECUTE format('REVOKE CREATE ON SCHEMA %I FROM PUBLIC', current_schema()); END $$"},
		{Comment: "The schema (the tables, their row-level security): pidex migrates it as this role.\npidex team init --apply does, before the statements below (so does a pidex push as this role)."},
		{Comment: "The groups' privileges: both read everything; the pushing group writes the rows of its roles' machines only.",
			SQL: "INSERT INTO team_roles (role, may) VALUES (" + literal(g.Push) + ", 'push'), (" + literal(g.Read) + ", 'read') ON CONFLICT (role) DO UPDATE SET may = EXCLUDED.may"},
		{SQL: "SELECT pidex_grant()"},
	}, nil
}

// TeamAddMachine lets role push machine: a role that logs in, in the
// pushing group, bound to the machine (a role may be bound to several
// machines, a machine to several roles). With a password, its SCRAM
// verifier is set (never the password itself: the server gets only
// what checks it).
func TeamAddMachine(g Groups, machine, role, password string) (TeamScript, error) {
	if err := checkMachine(machine); err != nil {
		return nil, err
	}
	if err := checkMember(g, role); err != nil {
		return nil, err
	}
	s := TeamScript{
		{Comment: fmt.Sprintf("%s pushes machine %s, and only it (and the other machines bound to %s).", role, machine, role),
			SQL: createRole(role, "LOGIN")},
		{SQL: grantRole(g.Push, role)},
		{SQL: "INSERT INTO machine_roles (machine, role) VALUES (" + literal(machine) + ", " + literal(role) + ") ON CONFLICT DO NOTHING"},
	}
	return withPassword(s, role, password)
}

// TeamAddReader lets role read the team catalog: a role that logs in, in
// the reading group.
func TeamAddReader(g Groups, role, password string) (TeamScript, error) {
	if err := checkMember(g, role); err != nil {
		return nil, err
	}
	s := TeamScript{
		{Comment: role + " reads the team catalog: every machine's sessions, nothing written.", SQL: createRole(role, "LOGIN")},
		{SQL: grantRole(g.Read, role)},
	}
	return withPassword(s, role, password)
}

// TeamRevoke takes from role the machines named (it may push them no
// more), or, with none named, every machine and both groups (it may then
// neither push nor read). Its rows stay, as its machines' rows; its
// statements are refused from their next one (the policies read
// machine_roles each time).
func TeamRevoke(g Groups, role string, machines []string) (TeamScript, error) {
	if err := checkMember(g, role); err != nil {
		return nil, err
	}
	if len(machines) > 0 {
		list := make([]string, len(machines))
		for i, m := range machines {
			if err := checkMachine(m); err != nil {
				return nil, err
			}
			list[i] = literal(m)
		}
		return TeamScript{{Comment: role + " may push these machines no more.",
			SQL: "DELETE FROM machine_roles WHERE role = " + literal(role) + " AND machine IN (" + strings.Join(list, ", ") + ")"}}, nil
	}
	return TeamScript{
		{Comment: role + " may neither push nor read any more. Its sessions open now end with pg_terminate_backend; DROP ROLE removes it from the server.",
			SQL: "DELETE FROM machine_roles WHERE role = " + literal(role)},
		{SQL: "REVOKE " + ident(g.Push) + " FROM " + ident(role)},
		{SQL: "REVOKE " + ident(g.Read) + " FROM " + ident(role)},
	}, nil
}

// withPassword adds the statement that sets role's password (as its
// SCRAM-SHA-256 verifier).
func withPassword(s TeamScript, role, password string) (TeamScript, error) {
	if password == "" {
		return append(s, TeamStep{Comment: fmt.Sprintf("Its password: pidex team … --password-stdin --apply, or psql's \\password %s (sent as a verifier, never in clear).", ident(role))}), nil
	}
	v, err := scramVerifier(password)
	if err != nil {
		return nil, err
	}
	return append(s, TeamStep{SQL: "ALTER ROLE " + ident(role) + " PASSWORD " + literal(v),
		Shown: "ALTER ROLE " + ident(role) + " PASSWORD '(its SCRAM-SHA-256 verifier)'"}), nil
}

// Groups reads the team catalog's groups (made by pidex team init).
func (s *Store) Groups(ctx context.Context) (Groups, error) {
	var g Groups
	rows, err := s.db.QueryContext(ctx, `SELECT role, may FROM team_roles ORDER BY role`)
	if err != nil {
		return g, fmt.Errorf("read team roles: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var role, may string
		if err := rows.Scan(&role, &may); err != nil {
			return g, fmt.Errorf("read team roles: %w", err)
		}
		switch {
		case may == "push" && g.Push == "":
			g.Push = role
		case may == "read" && g.Read == "":
			g.Read = role
		}
	}
	if err := rows.Err(); err != nil {
		return g, fmt.Errorf("read team roles: %w", err)
	}
	if g.Push == "" || g.Read == "" {
		return g, fmt.Errorf("team catalog %s has no groups of roles yet: its owner makes them with pidex team init --apply", s.url)
	}
	return g, nil
}

// ApplyTeam runs a script in one transaction: all of it, or none.
func (s *Store) ApplyTeam(ctx context.Context, script TeamScript) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("change team roles: %w", err)
	}
	defer tx.Rollback()
	for _, st := range script {
		if st.SQL == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, st.SQL); err != nil {
			if isCode(err, insufficientPriv) {
				err = fmt.Errorf("%w: %v", pidex.ErrPermission, err)
			}
			return fmt.Errorf("change team roles: %s: %w", firstLine(st.SQL), err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("change team roles: %w", err)
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 120 {
		line = line[:120] + "…"
	}
	return line
}

// createRole makes a role unless it exists (then it is left as it is,
// and the script needs no CREATEROLE for it: a superuser may have made
// it).
func createRole(role, login string) string {
	return "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = " + literal(role) + ") THEN CREATE ROLE " +
		ident(role) + " " + login + "; END IF; END $$"
}

// grantRole makes member a member of group unless it is one (then the
// script needs no right to grant it).
func grantRole(group, member string) string {
	who := literal(member)
	if member == "CURRENT_USER" {
		who = "current_user"
	} else {
		member = ident(member)
	}
	return "DO $$ BEGIN IF NOT pg_has_role(" + who + ", " + literal(group) + ", 'MEMBER') THEN GRANT " + ident(group) + " TO " +
		member + "; END IF; END $$"
}

// checkMember refuses a role name that cannot be one of a team's roles.
func checkMember(g Groups, role string) error {
	if err := checkRole(role); err != nil {
		return err
	}
	if role == g.Push || role == g.Read {
		return pidex.Usagef("role %q is one of the team's groups: name a developer's, a machine's or a reader's own role", role)
	}
	return nil
}

// checkRole refuses a role name PostgreSQL would cut (over 63 bytes) or
// that the scripts could not quote in every place ($ ends a DO body).
func checkRole(role string) error {
	switch {
	case role == "":
		return pidex.Usagef("no role named")
	case len(role) > 63:
		return pidex.Usagef("role %q: PostgreSQL's names have at most 63 bytes", role)
	case !utf8.ValidString(role) || strings.ContainsAny(role, "$\x00") ||
		strings.ContainsFunc(role, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return pidex.Usagef("role %q: want printable characters, no $", role)
	}
	return nil
}

// ident is a quoted identifier.
func ident(s string) string { return pgx.Identifier{s}.Sanitize() }

// literal is a quoted string, read the same whatever the server's
// standard_conforming_strings (E” where it holds a backslash).
func literal(s string) string {
	q := "'" + strings.ReplaceAll(s, "'", "''") + "'"
	if strings.Contains(s, `\`) {
		q = "E'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", "''") + "'"
	}
	return q
}
