// Package postgres holds the team catalog's schema in PostgreSQL as goose
// SQL migrations (dialect postgres), embedded like the SQLite catalog's
// (package migrations); docs/postgres.md explains the design.
package postgres

import "embed"

// FS holds the numbered .sql migrations.
//
//go:embed *.sql
var FS embed.FS
