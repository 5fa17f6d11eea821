package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/query"
)

// DefaultSQLTimeout bounds a statement on the team catalog that names no
// timeout: a statement there runs on the team's server, beside every
// machine's pushes and every reader.
const DefaultSQLTimeout = 5 * time.Minute

// SQL runs one read-only statement on the team catalog's views, as
// the local catalog does (package sqlite), with the same refusals: the
// statement check first (pidex.SQLOptions.Check: one SELECT, WITH, VALUES
// or EXPLAIN), then a READ ONLY transaction, in which PostgreSQL refuses
// every write (a data-modifying WITH, nextval, …), then the team's
// reading group (docs/team.md, Roles), which the statement runs as when
// this role may take it: it may only read, and cannot lock what pushes
// lock. The connection is one of its own, closed after the statement, so
// that nothing a statement sets (set_config on the session) outlives it.
// The timeout is the transaction's statement_timeout (and the context's
// deadline): o.Timeout, else DefaultSQLTimeout.
func (r *Reader) SQL(ctx context.Context, o pidex.SQLOptions, _ []string, sink pidex.RowSink) error {
	if err := o.Check(); err != nil {
		return err
	}
	if o.Verb() == "PRAGMA" {
		return pidex.Usagef("PRAGMA is SQLite's: a team catalog is PostgreSQL (its catalogs are information_schema and pg_catalog)")
	}
	stmt, args := namedParams(o.Statement, o.Params)
	db := sql.OpenDB(stdlib.GetConnector(*r.s.cfg))
	defer db.Close()
	db.SetMaxOpenConns(1)
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultSQLTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return sqlError(ctx, err)
	}
	defer tx.Rollback()
	ms := max(1, timeout.Milliseconds())
	if _, err := tx.ExecContext(ctx, "SET LOCAL statement_timeout = "+strconv.FormatInt(ms, 10)); err != nil {
		return sqlError(ctx, err)
	}
	if err := readingRole(ctx, tx); err != nil {
		return sqlError(ctx, err)
	}
	rows, err := tx.QueryContext(ctx, stmt, args...)
	if err != nil {
		return sqlError(ctx, err)
	}
	defer rows.Close()
	return query.StreamRows(rows, sink, sqlValue, func(err error) error { return sqlError(ctx, err) })
}

// readingRole makes the transaction run as the team's reading group
// when this role is a member of it (a reader's, a pusher's and the
// owner's are: pidex team init).
func readingRole(ctx context.Context, tx *sql.Tx) error {
	var group string
	err := tx.QueryRowContext(ctx, `SELECT role FROM team_roles WHERE may = 'read' AND pg_has_role(role, 'MEMBER') ORDER BY role LIMIT 1`).Scan(&group)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // no groups (a catalog without roles), or not in them
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "SET LOCAL ROLE "+ident(group))
	return err
}

// sqlValue is a value as the local catalog's SQL gives it: int64,
// float64, string, []byte or nil (a bool as 0 or 1, a time as RFC 3339,
// and a whole number as an integer: token counts are double precision
// here, where SQLite's INTEGER columns give integers, and 3138560 would
// print as 3.13856e+06).
func sqlValue(v any) any {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
	case bool:
		if x {
			return int64(1)
		}
		return int64(0)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return v
}

func sqlError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || isCode(err, queryCanceled) {
		return pidex.ErrTimeout
	}
	if isCode(err, readOnlyTransaction) {
		return pidex.Usagef("pidex sql is read-only: refused, the statement would write (%v)", err)
	}
	if isCode(err, insufficientPriv) {
		// The server's refusal: the role may not read (or lock) it.
		return &pidex.StatementError{Err: permissionError(pgMessage(err))}
	}
	return fmt.Errorf("sql: %w", err)
}

// namedParams rewrites the :name parameters of stmt that params binds
// into PostgreSQL's $n (a :name inside a string, an identifier, a comment
// or a dollar-quoted body is text, and :: is a cast), and returns their
// values as text, which PostgreSQL reads as the type the statement gives
// the parameter (a number where it is compared with a number). A :name
// params does not bind is left as written.
func namedParams(stmt string, params map[string]string) (string, []any) {
	if len(params) == 0 {
		return stmt, nil
	}
	var b strings.Builder
	var args []any
	index := map[string]int{}
	for i := 0; i < len(stmt); {
		c := stmt[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(stmt) {
				if stmt[j] == c {
					if j+1 < len(stmt) && stmt[j+1] == c { // a doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(stmt))
			b.WriteString(stmt[i:j])
			i = j
		case c == '-' && strings.HasPrefix(stmt[i:], "--"):
			j := strings.IndexByte(stmt[i:], '\n')
			if j < 0 {
				j = len(stmt) - i
			}
			b.WriteString(stmt[i : i+j])
			i += j
		case c == '/' && strings.HasPrefix(stmt[i:], "/*"):
			j := strings.Index(stmt[i+2:], "*/")
			end := len(stmt)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(stmt[i:end])
			i = end
		case c == '$' && !(i+1 < len(stmt) && isDigit(stmt[i+1])):
			// A dollar quote: $tag$ … $tag$ (the tag empty or a word).
			j := i + 1
			for j < len(stmt) && (stmt[j] == '_' || 'a' <= stmt[j]|0x20 && stmt[j]|0x20 <= 'z' || isDigit(stmt[j])) {
				j++
			}
			if j < len(stmt) && stmt[j] == '$' {
				tag := stmt[i : j+1]
				end := len(stmt)
				if k := strings.Index(stmt[j+1:], tag); k >= 0 {
					end = j + 1 + k + len(tag)
				}
				b.WriteString(stmt[i:end])
				i = end
				continue
			}
			b.WriteByte(c)
			i++
		case c == ':' && strings.HasPrefix(stmt[i:], "::"):
			b.WriteString("::")
			i += 2
		case c == ':':
			j := i + 1
			for j < len(stmt) && (stmt[j] == '_' || 'a' <= stmt[j]|0x20 && stmt[j]|0x20 <= 'z' || j > i+1 && isDigit(stmt[j])) {
				j++
			}
			name := stmt[i+1 : j]
			v, ok := params[name]
			if name == "" || !ok {
				b.WriteString(stmt[i:j])
				i = max(j, i+1)
				continue
			}
			n, seen := index[name]
			if !seen {
				args = append(args, v)
				n = len(args)
				index[name] = n
			}
			b.WriteString("$" + strconv.Itoa(n))
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), args
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// pgMessage is a PostgreSQL error's message without the driver's
// decoration (ERROR: …, the SQLSTATE).
func pgMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}

// permissionError is the server's refusal of what a role may not do
// (errors.Is(err, pidex.ErrPermission)), in its words.
type permissionError string

func (e permissionError) Error() string {
	if strings.HasPrefix(string(e), "permission denied") {
		return string(e)
	}
	return "permission denied: " + string(e)
}

func (e permissionError) Is(target error) bool { return target == pidex.ErrPermission }
