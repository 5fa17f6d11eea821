package schema

import "errors"

// Sentinel errors shared by the catalog's readers and the CLI, which maps
// them to exit codes in one place.
var (
	// ErrNotFound: no session matches the given id, prefix, path or name.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous: more than one session matches; the error message lists them.
	ErrAmbiguous = errors.New("ambiguous")
	// ErrUsage: the caller asked for something malformed (bad flag value, …).
	ErrUsage = errors.New("usage")
)
