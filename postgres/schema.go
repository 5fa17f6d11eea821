package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	pgmigrations "github.com/pidex-dev/pidex/migrations/postgres"
)

// A team catalog's schema is its migrations, known by number and by
// content: two pidex builds from different lines of development can give
// one number to different migrations (a branch's 00007 is another's
// 00008), so goose's record of numbers alone lets a build that lacks a
// migration, or has another under its number, write rows the catalog's
// schema does not expect. Every pidex compares the catalog's migrations
// with its own, by number and, where the catalog recorded them
// (migration_sums), by SHA-256, and refuses a catalog that holds one it
// does not have, naming the pidex that applied it.

// migration is one of this pidex's migrations.
type migration struct {
	version int64
	file    string
	sum     string // SHA-256 of the file, hex
}

// applied is one of the team catalog's migrations.
type applied struct {
	version   int64
	file, sum string // "" where the catalog has no record (migration_sums)
	by        string // the pidex that recorded it
}

// schema migrates the catalog (migrate) or checks that it needs no
// migration: a reader never changes the schema.
func (s *Store) schema(ctx context.Context, migrate bool) error {
	return s.schemaOf(ctx, migrate, pgmigrations.FS)
}

// schemaOf is schema with the migrations in fsys (a test gives another
// build's).
func (s *Store) schemaOf(ctx context.Context, migrate bool, fsys fs.FS) error {
	opts := []goose.ProviderOption{goose.WithAllowOutofOrder(true)}
	if migrate {
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(lockID), lock.WithLockTimeout(1, 600))
		if err != nil {
			return fmt.Errorf("migrate team catalog: %w", err)
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	db := s.db.DB
	if migrate && s.partitions > 0 {
		// The layout is the migrating session's setting pidex.partitions
		// (migration 00011 reads it).
		cfg := s.cfg.Copy()
		cfg.RuntimeParams["pidex.partitions"] = strconv.Itoa(s.partitions)
		db = stdlib.OpenDB(*cfg)
		defer db.Close()
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, fsys, opts...)
	if err != nil {
		return fmt.Errorf("load team catalog migrations: %w", err)
	}
	mine, err := migrationsOf(p, fsys)
	if err != nil {
		return err
	}
	have, err := s.appliedMigrations(ctx)
	switch {
	case isCode(err, undefinedTable) && migrate:
		have = nil // a new team catalog: Up makes it
	case isCode(err, undefinedTable):
		return fmt.Errorf("team catalog %s is empty: a push makes it (pidex push --to URL), or its owner (pidex team init --apply)", s.url)
	case err != nil:
		return fmt.Errorf("read team catalog schema: %w", err)
	}
	if err := s.sameMigrations(mine, have); err != nil {
		return err
	}
	pending := pendingMigrations(mine, have)
	if len(pending) == 0 {
		return s.checkPartitions(ctx)
	}
	if !migrate {
		return fmt.Errorf("team catalog %s lacks this pidex's migration(s) %s: its owner applies them (pidex team init --apply with this pidex; a push by the owner does too)",
			s.url, strings.Join(pending, ", "))
	}
	if len(have) > 0 {
		owner, err := s.ownsSchema(ctx)
		if err != nil {
			return err
		}
		if !owner {
			return fmt.Errorf("team catalog %s lacks this pidex's migration(s) %s, and only the owner of its tables may apply them: ask it to run pidex team init --apply with this pidex (or a newer one)",
				s.url, strings.Join(pending, ", "))
		}
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate team catalog %s: %w", s.url, err)
	}
	if err := s.recordMigrations(ctx, mine); err != nil {
		return err
	}
	return s.checkPartitions(ctx)
}

// checkPartitions refuses a catalog laid out in other partitions than
// Options.Partitions asks for: the layout is chosen once (migration
// 00011), when the catalog is made or migrated to it.
func (s *Store) checkPartitions(ctx context.Context) error {
	if s.partitions == 0 {
		return nil
	}
	have, err := s.Partitions(ctx)
	if err != nil {
		return err
	}
	if have != s.partitions {
		layout := "plain tables"
		if have > 0 {
			layout = fmt.Sprintf("%d partitions", have)
		}
		return fmt.Errorf("team catalog %s's tables are laid out as %s, chosen when it was made: its layout does not change (for %d partitions, make a new catalog and push to it)",
			s.url, layout, s.partitions)
	}
	return nil
}

// Partitions is the number of hash partitions by machine of the team
// catalog's machine-owned tables (0: plain tables).
func (s *Store) Partitions(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT pidex_partitions()`).Scan(&n); err != nil {
		return 0, fmt.Errorf("read team catalog layout: %w", err)
	}
	return n, nil
}

// migrationsOf lists the migrations of p's sources with their sums.
func migrationsOf(p *goose.Provider, fsys fs.FS) ([]migration, error) {
	var out []migration
	for _, src := range p.ListSources() {
		file := path.Base(src.Path)
		b, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("load team catalog migrations: %w", err)
		}
		sum := sha256.Sum256(b)
		out = append(out, migration{version: src.Version, file: file, sum: hex.EncodeToString(sum[:])})
	}
	return out, nil
}

// appliedMigrations lists the catalog's migrations (goose's record: the
// last row of a version says whether it is applied), with their sums
// where the catalog recorded them.
func (s *Store) appliedMigrations(ctx context.Context) ([]applied, error) {
	var versions []int64
	err := s.db.SelectContext(ctx, &versions, `SELECT version_id FROM (SELECT DISTINCT ON (version_id) version_id, is_applied
		FROM goose_db_version ORDER BY version_id, id DESC) v WHERE is_applied AND version_id > 0 ORDER BY version_id`)
	if err != nil {
		return nil, err
	}
	recorded := map[int64]applied{}
	var rows []struct {
		Version int64  `db:"version"`
		File    string `db:"file"`
		Sum     string `db:"sha256"`
		By      string `db:"applied_by"`
	}
	err = s.db.SelectContext(ctx, &rows, `SELECT version, file, sha256, applied_by FROM migration_sums`)
	if err != nil && !isCode(err, undefinedTable) { // before 00009: none recorded
		return nil, err
	}
	for _, r := range rows {
		recorded[r.Version] = applied{version: r.Version, file: r.File, sum: r.Sum, by: r.By}
	}
	out := make([]applied, len(versions))
	for i, v := range versions {
		out[i] = recorded[v]
		out[i].version = v
	}
	return out, nil
}

// sameMigrations refuses a catalog that holds a migration this pidex
// lacks, or another one under a number of this pidex's: its rows would
// not be what the catalog's schema expects (and a reader would misread
// them). The message names the pidex that applied it.
func (s *Store) sameMigrations(mine []migration, have []applied) error {
	byVersion := map[int64]migration{}
	for _, m := range mine {
		byVersion[m.version] = m
	}
	this := "this pidex"
	if s.version != "" {
		this += " (" + s.version + ")"
	}
	for _, a := range have {
		m, ok := byVersion[a.version]
		switch {
		case !ok:
			return fmt.Errorf("team catalog %s holds migration %s, which %s does not have: %s made it; use that pidex or a newer one",
				s.url, a.name(), this, a.maker("a newer pidex"))
		case a.sum != "" && a.sum != m.sum:
			return fmt.Errorf("team catalog %s's migration %05d is %s as %s applied it, and %s's is another (%s): they were built from different lines of development; use that pidex or a newer one",
				s.url, a.version, a.file, a.maker("another pidex"), this, m.file)
		}
	}
	return nil
}

func (a applied) name() string {
	if a.file != "" {
		return a.file
	}
	return fmt.Sprintf("%05d", a.version)
}

// maker names the pidex that applied a migration, or unknown.
func (a applied) maker(unknown string) string {
	if a.by != "" {
		return a.by
	}
	return unknown
}

// pendingMigrations are this pidex's migrations the catalog lacks.
func pendingMigrations(mine []migration, have []applied) []string {
	var out []string
	for _, m := range mine {
		if !slices.ContainsFunc(have, func(a applied) bool { return a.version == m.version }) {
			out = append(out, m.file)
		}
	}
	return out
}

// ownsSchema reports whether this role has the privileges of the owner
// of the catalog's tables (goose's record among them), which migrating
// needs.
func (s *Store) ownsSchema(ctx context.Context) (bool, error) {
	var owner bool
	if err := s.db.QueryRowContext(ctx, `SELECT pg_has_role(relowner, 'USAGE') FROM pg_class WHERE oid = 'goose_db_version'::regclass`).Scan(&owner); err != nil {
		return false, fmt.Errorf("read team catalog schema: %w", err)
	}
	return owner, nil
}

// recordMigrations records the sums of the catalog's migrations that it
// has no record of (those this pidex just applied, and those applied
// before migration_sums existed, which were this pidex's: it checked),
// then gives the team's groups their privileges on what the migrations
// made (pidex_grant).
func (s *Store) recordMigrations(ctx context.Context, mine []migration) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record team catalog schema: %w", err)
	}
	defer tx.Rollback()
	for _, m := range mine {
		if _, err := tx.ExecContext(ctx, `INSERT INTO migration_sums (version, file, sha256, applied_by) VALUES ($1, $2, $3, $4)
			ON CONFLICT (version) DO NOTHING`, m.version, m.file, m.sum, s.version); err != nil {
			return fmt.Errorf("record team catalog schema: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `SELECT pidex_grant()`); err != nil {
		return fmt.Errorf("grant the team's roles their privileges: %w", err)
	}
	return tx.Commit()
}
