package redact

import "github.com/pidex-dev/pidex"

// Document redacts a session as a reader sees it, in place (Value: every
// string of the document and of the listing record, paths and working
// directory included). It returns how many secrets it replaced.
func Document(doc *pidex.Document, info *pidex.Session) int {
	n := 0
	if info != nil {
		v, k := Value(*info)
		*info, n = v, n+k
	}
	if doc != nil {
		v, k := Value(*doc)
		*doc, n = v, n+k
	}
	return n
}
