// Package pi is the one home for what pi's session format means. A
// registry holds one Kind per entry type (kinds.go) and one Role per
// message role (roles.go); each says, as data, how the entry looks in a
// reading view, which search group and usage source it belongs to,
// whether it puts a model in effect, compacts or edits the context, and,
// as functions, its searchable text, its one-line preview, what a reading
// view shows of it, the facts the catalog records (model, usage, label,
// name, target), and what it contributes to the model context pi rebuilds
// (BuildContext, pi's buildSessionContext) and to pi's context settings.
//
// Every side of pidex derives its rules from the registry: the indexer's
// facts and model attribution, search role groups and their SQL, cost
// sources, the display classes of the web pages, the reading views and
// the context rebuild. So adding an entry kind is one edit: one Register
// call in kinds.go (fields schema.Line lacks are read from Line.Raw);
// TestKindsComplete and the CLI's TestNewKindIsOneEdit hold that.
//
// Also here: pi's listing rules (listing.go). The JavaScript semantics
// pi's reader relies on (Date parsing, truthiness, objects that keep
// their key order) are internal/js.
package pi
