// Package pi is the one home for what pi's session format means: for each
// entry kind and message role, its searchable text, its one-line preview,
// the summary `pidex show` prints, the model it puts in effect, the usage
// record it carries, its label or session name, and what it contributes to
// the model context pi rebuilds; plus the JavaScript semantics pi's reader
// relies on (Date parsing, truthiness, objects that keep their key order).
//
// The indexer, the context rebuild, show, tree, and later search and serve
// all call it, so adding an entry kind is one edit: one Kind value in
// kinds.go. schema holds the vocabulary (the decoded types); this package
// holds their meaning. It imports only schema and the standard library.
package pi
