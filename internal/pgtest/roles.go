package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// Roles are the cluster's, not a database's: a test that makes roles
// names them after its database (Role), and they are dropped with it, so
// that tests running at once never share one.

// Role is the name of a role for the test whose database url names:
// "<database>_<suffix>", dropped (with every membership and privilege)
// when the database is.
func Role(rawURL, suffix string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	return strings.TrimPrefix(u.Path, "/") + "_" + suffix
}

// AsRole is url with role as its user and password as its password (none
// when ""). The throwaway cluster trusts every connection on its socket,
// so any role may log in without one (NewCluster's RequirePasswords asks
// for them).
func AsRole(rawURL, role, password string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	if password != "" {
		u.User = url.UserPassword(role, password)
	} else {
		u.User = url.User(role)
	}
	return u.String()
}

// RequireCreateRole skips t unless the user of url may create roles (a
// superuser, or CREATEROLE): the throwaway cluster's always may, a
// PIDEX_TEST_PG server's may not.
func RequireCreateRole(t testing.TB, rawURL string) {
	t.Helper()
	db, err := sql.Open("pgx", rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var may bool
	if err := db.QueryRow(`SELECT rolsuper OR rolcreaterole FROM pg_roles WHERE rolname = current_user`).Scan(&may); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	if !may {
		t.Skip("pgtest: the test server's user may not create roles (" + EnvURL + ": give it CREATEROLE)")
	}
}

// dropRoles drops the roles named after database (Role), once it is gone.
func dropRoles(ctx context.Context, db *sql.DB, database string) error {
	rows, err := db.QueryContext(ctx, `SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)`, database+"_")
	if err != nil {
		return fmt.Errorf("list roles of %s: %w", database, err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, n := range names {
		if _, err := db.ExecContext(ctx, `DROP ROLE IF EXISTS "`+strings.ReplaceAll(n, `"`, `""`)+`"`); err != nil {
			return fmt.Errorf("drop role %s: %w", n, err)
		}
	}
	return nil
}
