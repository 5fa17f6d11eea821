// Package schema is the vocabulary of pi's session format: Go types for the
// header, the flat decoded line, messages of every role, content blocks,
// usage and cost, and the names of entry types, roles and block types. It
// holds no meaning (what an entry kind is, how pi reads a field: package
// pi) and no catalog records (package pidex, the domain).
//
// It imports nothing of the project and only the standard library, so any
// tool can import it.
//
// Decoding is tolerant by design: pi's format is an open set of entry types,
// roles and fields that grows with every release, and forks add their own.
// Unknown entry types and roles are kept (type string plus the raw JSON),
// never dropped.
package schema
