// Package migrations holds the catalog's schema as goose SQL migrations,
// embedded so the binary carries them; catalog.Open applies them.
package migrations

import "embed"

// FS holds the numbered .sql migrations.
//
//go:embed *.sql
var FS embed.FS
