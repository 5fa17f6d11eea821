// Package schema is pidex's vocabulary: Go types for the pi coding agent's
// session file format (header, entries, messages, content blocks, usage) and
// for the catalog's records (files, sessions, entries, usage rows).
//
// It imports nothing of the project and only the standard library, so every
// other package (jsonl, indexer, query, cmd) can depend on it and none of it
// depends on them.
//
// Decoding is tolerant by design: pi's format is an open set of entry types,
// roles and fields that grows with every release, and forks add their own.
// Unknown entry types and roles are kept (type string plus the raw JSON),
// never dropped.
package schema
