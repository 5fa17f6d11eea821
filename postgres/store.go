// Package postgres is the team catalog: several machines' catalogs in one
// PostgreSQL database. Push mirrors a machine's local catalog into it,
// incrementally (only what changed since the last push travels, in
// transactions that a crash or a dropped connection leaves applied or not),
// and Reader answers every read of the engine from it (engine.Backend),
// with the same rows, order and JSON shapes as a local catalog over the
// union of the machines' files. docs/postgres.md explains the design; the
// schema is migrations/postgres.
//
// Credentials come from the URL, the environment (PGPASSWORD, …), a
// .pgpass file or a connection service file (pgx reads them all), and are
// never printed (Redacted); a connection to any host that is not loopback
// requires TLS (sslmode=verify-full) unless the URL, PGSSLMODE or the
// service says otherwise.
package postgres

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/jackc/pgservicefile"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/jmoiron/sqlx"

	"github.com/pidex-dev/pidex"
)

// IsURL reports whether s names a team catalog (a postgres:// or
// postgresql:// URL) rather than a local catalog file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redacted is the URL without its credentials, for messages: a password
// in the user part or in a query parameter is replaced by xxxxx. Anything
// that does not parse is not shown at all.
func Redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a team catalog URL that does not parse)"
	}
	q := u.Query()
	for k := range q {
		if strings.EqualFold(k, "password") {
			q.Set(k, "xxxxx")
		}
	}
	u.RawQuery = q.Encode()
	return u.Redacted()
}

// HasPassword reports whether a team catalog's URL carries a password
// (user:password@, or a password parameter): on a command line, anyone
// on the machine can read it while the command runs (ps, /proc).
func HasPassword(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	if p, ok := u.User.Password(); ok && p != "" {
		return true
	}
	for k, vs := range u.Query() {
		if strings.EqualFold(k, "password") && slices.ContainsFunc(vs, func(v string) bool { return v != "" }) {
			return true
		}
	}
	return false
}

// Config parses a team catalog's URL into a connection configuration and
// applies pidex's TLS rule: to a host that is not loopback (nor a Unix
// socket), TLS with the server's certificate verified (sslmode=verify-full)
// unless the URL's sslmode or PGSSLMODE chooses otherwise. pgx's own
// default, prefer, would fall back to plain text, where every session's
// text and the password would travel readable.
func Config(raw string) (*pgx.ConnConfig, error) {
	if !IsURL(raw) {
		return nil, pidex.Usagef("a team catalog is a postgres:// URL (got %s)", Redacted(raw))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, pidex.Usagef("team catalog URL %s does not parse", Redacted(raw))
	}
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("read team catalog URL %s: %w", Redacted(raw), redactErr(err, raw))
	}
	explicit := u.Query().Has("sslmode") || os.Getenv("PGSSLMODE") != "" || serviceSetting(u, "sslmode") != ""
	if !explicit && !local(cfg) {
		q := u.Query()
		q.Set("sslmode", "verify-full")
		u.RawQuery = q.Encode()
		if cfg, err = pgx.ParseConfig(u.String()); err != nil {
			return nil, fmt.Errorf("read team catalog URL %s: %w", Redacted(raw), redactErr(err, raw))
		}
	}
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	if _, ok := cfg.RuntimeParams["application_name"]; !ok {
		cfg.RuntimeParams["application_name"] = "pidex"
	}
	return cfg, nil
}

// serviceSetting is key's value in the connection service the URL (or
// PGSERVICE) names, as pgx reads it: from the URL's servicefile, else
// PGSERVICEFILE, else ~/.pg_service.conf ("" when none says).
func serviceSetting(u *url.URL, key string) string {
	name := cmp.Or(u.Query().Get("service"), os.Getenv("PGSERVICE"))
	if name == "" {
		return ""
	}
	file := cmp.Or(u.Query().Get("servicefile"), os.Getenv("PGSERVICEFILE"))
	if file == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		file = filepath.Join(home, ".pg_service.conf")
	}
	sf, err := pgservicefile.ReadServicefile(file)
	if err != nil {
		return ""
	}
	svc, err := sf.GetService(name)
	if err != nil {
		return ""
	}
	return svc.Settings[key]
}

// local reports whether every host of cfg is this machine: a Unix socket,
// localhost or a loopback address.
func local(cfg *pgx.ConnConfig) bool {
	hosts := []string{cfg.Host}
	for _, fb := range cfg.Fallbacks {
		hosts = append(hosts, fb.Host)
	}
	for _, h := range hosts {
		if strings.HasPrefix(h, "/") || strings.EqualFold(h, "localhost") {
			continue
		}
		if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
			continue
		}
		return false
	}
	return true
}

// redactErr keeps a password that an error message might quote out of it.
func redactErr(err error, raw string) error {
	u, perr := url.Parse(raw)
	if perr != nil {
		return errors.New("(details withheld: they may quote the URL)")
	}
	msg := err.Error()
	if p, ok := u.User.Password(); ok && p != "" {
		msg = strings.ReplaceAll(msg, p, "xxxxx")
	}
	for k, vs := range u.Query() {
		if strings.EqualFold(k, "password") {
			for _, v := range vs {
				if v != "" {
					msg = strings.ReplaceAll(msg, v, "xxxxx")
				}
			}
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// Store is an open team catalog. Its methods are safe for concurrent use.
type Store struct {
	db         *sqlx.DB
	cfg        *pgx.ConnConfig
	url        string // redacted, for messages
	version    string // Options.Version
	partitions int    // Options.Partitions
}

// Options configure Open.
type Options struct {
	// Migrate applies the schema's migrations (a push does; a reader only
	// checks that the catalog has them, and may hold a read-only role).
	// Only the owner of the catalog's tables can: another role is told to
	// ask it (pidex team init --apply).
	Migrate bool
	// Version names this pidex in the team catalog's record of who
	// migrated it (migration_sums.applied_by), which a pidex that cannot
	// read the schema names to its user.
	Version string
	// Partitions, when above 0, lays the machine-owned tables out as that
	// many hash partitions by machine (docs/postgres.md, "Keys and
	// partitions"): the migration that sets the layout (00011) does so
	// when it runs, that is when the catalog is made, or migrated from
	// before it. A catalog laid out otherwise is refused (its layout does
	// not change). 0 leaves the layout as it is (plain tables when made).
	Partitions int
}

// Open connects to the team catalog at raw (a postgres:// URL).
func Open(ctx context.Context, raw string, o Options) (*Store, error) {
	cfg, err := Config(raw)
	if err != nil {
		return nil, err
	}
	if err := pidex.CheckPartitions(o.Partitions); err != nil {
		return nil, err
	}
	s := &Store{cfg: cfg, url: Redacted(raw), version: o.Version, partitions: o.Partitions}
	s.db = sqlx.NewDb(stdlib.OpenDB(*cfg), "pgx")
	s.db.SetMaxOpenConns(8)
	s.db.SetMaxIdleConns(4)
	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("connect to team catalog %s: %w", s.url, redactErr(err, raw))
	}
	if err := s.schema(ctx, o.Migrate); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// URL is the team catalog's URL without credentials.
func (s *Store) URL() string { return s.url }

// Close closes the connections.
func (s *Store) Close() error { return s.db.Close() }

// DB is the database handle (tests).
func (s *Store) DB() *sql.DB { return s.db.DB }

// Behind lists the machines whose rows another pidex derived (another
// ingest derivation or push format than this one's): the answers hold
// their rows as that pidex derived them, until their next push with this
// one (which pushes them again whole).
func (s *Store) Behind(ctx context.Context, derivation int) ([]string, error) {
	var names []string
	err := s.db.SelectContext(ctx, &names, `SELECT m.name FROM machines m JOIN push_state p ON p.machine_id = m.id
		WHERE p.finished_ms IS NOT NULL AND (m.derivation <> $1 OR m.text_version <> $2) ORDER BY m.name`, derivation, FormatVersion)
	if err != nil {
		return nil, fmt.Errorf("read machines: %w", err)
	}
	return names, nil
}

// Changes is a count that moves whenever a push changes the team
// catalog (every push transaction bumps its machine's counter), for a
// reader that tells its pages.
func (s *Store) Changes(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.QueryRowContext(ctx, changesSQL).Scan(&n); err != nil {
		return 0, fmt.Errorf("watch team catalog: %w", err)
	}
	return n, nil
}

// changesSQL is Changes' count: the pushes' transactions and the machines.
const changesSQL = `SELECT COALESCE(sum(changes), 0)::bigint + count(*) FROM push_state`

// lockID is goose's advisory lock for the team catalog's migrations, so
// that two pidex processes migrating at once take turns.
const lockID = 0x70696478 // "pidx"

// SQLSTATE codes pidex tells apart (pgconn.PgError.Code).
const (
	undefinedTable      = "42P01"
	readOnlyTransaction = "25006"
	queryCanceled       = "57014"
	insufficientPriv    = "42501" // a missing privilege, and a row a policy refuses
	serialization       = "40001"
	deadlock            = "40P01"
	uniqueViolation     = "23505"
	lockNotAvailable    = "55P03" // lock_timeout passed
)

// isCode reports whether err is a PostgreSQL error with one of codes.
func isCode(err error, codes ...string) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	for _, c := range codes {
		if pe.Code == c {
			return true
		}
	}
	return false
}
