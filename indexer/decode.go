package indexer

import (
	"github.com/pidex-dev/pidex/schema"
)

// decodeLine is schema.DecodeLine, faster. Decoding JSON was two thirds of
// a cold index with encoding/json; goccy/go-json decodes the same struct
// about five times faster and rejects the same malformed input (checked by
// TestDecodeLineMatchesStdlib and FuzzDecodeLine). Anything but a clean
// decode or a syntax error — a field of an unexpected type, a non-object
// line — goes to schema.DecodeLine, so those rare lines get exactly the
// standard library's semantics (which keeps the other fields).
func decodeLine(b []byte) (*schema.Line, error) { return schema.DecodeLineFast(b) }

// DecodeLine is the indexer's decoder of a line (schema.DecodeLine's
// semantics, faster), for readers of many lines such as pidex push.
func DecodeLine(b []byte) (*schema.Line, error) { return decodeLine(b) }
