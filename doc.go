// Package pidex is pidex's domain: the types that the library, its faces
// (the CLI, the web server, the MCP server) and its backends all speak —
// sessions, entries, trees, search hits, cost reports, documents for
// reading — the options of every operation with their defaults and their
// validation, and the sentinel errors that each face maps to its exit
// codes or HTTP statuses in one place.
//
// It imports nothing of the project, so every other package can import
// it. Package engine implements the operations over a catalog; a face
// only translates its inputs (flags, URL parameters, tool arguments) into
// options and renders the results.
//
// Options hold the user's words (a date as "7d" or "2026-11-01", a zone
// as "Asia/Tokyo"); their Filter methods apply the defaults, check every
// value and return the typed filter a backend runs. A bad value is an
// *OptionError naming the option in neutral words ("tz"), which each face
// names its own way (--tz, ?tz=).
package pidex
