package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/query"
)

// SQLConn is a read-only connection to the catalog for ad-hoc SQL: it
// cannot change the catalog, nor create, write or attach any file.
// Four locks: the file is opened read-only, query_only is on, an
// authorizer denies every action that writes, attaches or loads, and
// only one statement, starting with SELECT, WITH, VALUES, EXPLAIN or a
// read-only PRAGMA, is accepted (VACUUM INTO works on read-only databases
// and has no authorizer action, so the statement check is what stops it).
type SQLConn struct {
	db   *sql.DB
	conn *sql.Conn
	// denied: the authorizer refused an action of the statement (SQLite
	// reports some refusals as plain SQLITE_ERROR).
	denied atomic.Bool
	// files are the catalog's session files by path, as entry_json and
	// entry_text may read them (see sqlfuncs.go), loaded at open.
	files map[string]sqlFile
	// offsets are the entries of the files those functions read, by file
	// id, loaded at the first read of each (cached counts them).
	mu      sync.Mutex
	offsets map[int64][]entrySpan
	cached  int
}

// OpenSQL opens the catalog at path for Query; its views show the
// sessions under roots (none: every session of the catalog).
func OpenSQL(ctx context.Context, path string, roots []string) (*SQLConn, error) {
	uri, err := ReadOnlyURI(path, "busy_timeout(10000)", TempPragma, MmapPragma)
	if err != nil {
		return nil, fmt.Errorf("open catalog read-only: %w", err)
	}
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		return nil, fmt.Errorf("open catalog read-only: %w", err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open catalog read-only: %w", err)
	}
	c := &SQLConn{db: db, conn: conn, files: map[string]sqlFile{}, offsets: map[int64][]entrySpan{}}
	if err := c.scope(ctx, roots); err != nil {
		c.conn.Close()
		c.db.Close()
		return nil, err
	}
	if err := c.loadFiles(ctx); err != nil {
		c.conn.Close()
		c.db.Close()
		return nil, err
	}
	register(c)
	if _, err := msqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, pidex.MaxSQLValue); err != nil {
		c.Close()
		return nil, fmt.Errorf("open catalog read-only: %w", err)
	}
	err = conn.Raw(func(dc any) error {
		r, ok := dc.(msqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("the SQLite driver has no authorizer")
		}
		return r.RegisterAuthorizer(func(action msqlite.AuthorizerActionCode, arg1, arg2, arg3, arg4 string) msqlite.AuthorizerReturnCode {
			code := readOnly(action, arg1, arg2, arg3, arg4)
			if code != msqlite.AuthorizerOK {
				c.denied.Store(true)
			}
			return code
		})
	})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("open catalog read-only: %w", err)
	}
	return c, nil
}

// scope shadows each view with a temporary one of the same name that
// shows only the sessions under roots, then makes the connection
// query-only (the temporary views are made before: query_only refuses
// them too).
func (c *SQLConn) scope(ctx context.Context, roots []string) error {
	if len(roots) > 0 {
		quoted := make([]string, len(roots))
		for i, r := range roots {
			quoted[i] = "'" + strings.ReplaceAll(r, "'", "''") + "'" // a view holds no parameters
		}
		under := ` WHERE path IN (SELECT path FROM main.files WHERE root IN (` + strings.Join(quoted, ", ") + `))`
		for _, v := range pidex.Views {
			if _, err := c.conn.ExecContext(ctx, `CREATE TEMP VIEW `+v.Name+` AS SELECT * FROM main.`+v.Name+under); err != nil {
				return fmt.Errorf("open catalog read-only: %w", err)
			}
		}
	}
	if _, err := c.conn.ExecContext(ctx, `PRAGMA query_only = 1`); err != nil {
		return fmt.Errorf("open catalog read-only: %w", err)
	}
	return nil
}

// loadFiles records the catalog's session files with their indexed size
// and mtime, the only files entry_json and entry_text read.
func (c *SQLConn) loadFiles(ctx context.Context) error {
	type file struct {
		path string
		sqlFile
	}
	files, err := query.Collect(ctx, c.conn, "open catalog read-only", "SELECT id, path, size, mtime_ns FROM files WHERE kind = 'session'", nil,
		func(f *file) []any { return []any{&f.id, &f.path, &f.size, &f.mtime} })
	for _, f := range files {
		c.files[f.path] = f.sqlFile
	}
	return err
}

// SQL runs one read-only statement on the catalog's views, on a
// connection of its own that cannot change anything (see SQLConn).
func (rd *Reader) SQL(ctx context.Context, o pidex.SQLOptions, roots []string, sink pidex.RowSink) error {
	if err := o.Check(); err != nil {
		return err
	}
	c, err := OpenSQL(ctx, rd.db.Path, roots) // SQL's own read-only connection
	if err != nil {
		return err
	}
	defer c.Close()
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	return c.Stream(ctx, o.Statement, o.Params, sink)
}

// Close closes the connection.
func (c *SQLConn) Close() error {
	unregister(c)
	c.conn.Close()
	return c.db.Close()
}

// readOnly is the authorizer: reads, functions (but not load_extension),
// read-only pragmas and recursion pass; every other action is refused.
func readOnly(action msqlite.AuthorizerActionCode, arg1, arg2, _, _ string) msqlite.AuthorizerReturnCode {
	switch action {
	case msqlite.AuthRead, msqlite.AuthSelect, msqlite.AuthRecursive:
		return msqlite.AuthorizerOK
	case msqlite.AuthFunction:
		if strings.EqualFold(arg2, "load_extension") {
			return msqlite.AuthorizerDeny
		}
		return msqlite.AuthorizerOK
	case msqlite.AuthPragma:
		// arg2 is the pragma's argument: a table name for the schema
		// pragmas, a new value for the others (which is a write).
		name := strings.ToLower(arg1)
		if (arg2 == "" && readPragmas[name]) || schemaPragmas[name] {
			return msqlite.AuthorizerOK
		}
	}
	return msqlite.AuthorizerDeny
}

// schemaPragmas take a table or index name and only read.
var schemaPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "index_list": true, "index_info": true, "index_xinfo": true,
	"foreign_key_list": true,
}

// readPragmas may be read (never set) through pidex sql.
var readPragmas = map[string]bool{
	"table_list": true, "function_list": true, "pragma_list": true,
	"compile_options": true, "database_list": true, "collation_list": true, "module_list": true,
	"user_version": true, "application_id": true, "page_count": true, "page_size": true, "freelist_count": true,
	"encoding": true, "schema_version": true, "data_version": true, "journal_mode": true,
}

// Stream runs one read-only statement with named parameters (:name) and
// hands its rows to sink as SQLite produces them, until there are no more
// or sink says stop. An error of the sink (writing the output) is
// returned as it is; SQLite's are *pidex.StatementError, a refusal a
// usage error.
func (c *SQLConn) Stream(ctx context.Context, stmt string, params map[string]string, sink pidex.RowSink) error {
	if err := (pidex.SQLOptions{Statement: stmt}).Check(); err != nil {
		return err
	}
	var args []any
	for k, v := range params {
		args = append(args, sql.Named(k, paramValue(v)))
	}
	c.denied.Store(false)
	rows, err := c.conn.QueryContext(ctx, stmt, args...)
	if err != nil {
		return c.sqlError(ctx, err)
	}
	defer rows.Close()
	return query.StreamRows(rows, sink, func(v any) any { return v }, func(err error) error { return c.sqlError(ctx, err) })
}

func (c *SQLConn) sqlError(ctx context.Context, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return pidex.ErrTimeout
	}
	if c.denied.Load() || IsCode(err, CodeAuth, CodeReadOnly) {
		msg := err.Error()
		return pidex.Usagef("pidex sql is read-only: refused, the statement would write, attach or load something (%s)", msg)
	}
	return fmt.Errorf("sql: %w", &pidex.StatementError{Err: err})
}

// paramValue types a --param value: integers and reals as numbers (SQLite
// compares types), everything else as text.
func paramValue(v string) any {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	return v
}
