package pidex

import (
	"slices"
	"sort"
)

// MinIDPrefix is the shortest prefix ShortIDs gives: a UUID's first group.
// Shorter ones would be unique today and ambiguous after the next session
// (git keeps seven hex digits for the same reason).
const MinIDPrefix = 8

// ShortIDs returns, for each of ids, its shortest prefix that no other id
// of all begins with (at least MinIDPrefix characters): the prefix a
// session reference resolves, as git abbreviates hashes. UUIDv7 ids made
// by one clock share their first dozen characters, so a fixed cut would
// name nothing. An id that two files share (a copied file) is told apart
// from the other ids only: no prefix of it names one of the two (their
// paths do). all is every session id a reference can match; it need not
// be sorted.
func ShortIDs(all, ids []string) map[string]string {
	sorted := slices.Clone(all)
	slices.Sort(sorted)
	out := make(map[string]string, len(ids))
	for _, id := range ids {
		n := 0 // the longest prefix id shares with another id
		i := sort.SearchStrings(sorted, id)
		// The ids sharing the longest prefix with id sort next to it: skip
		// id itself (and its twins) and compare with its neighbours.
		j := i
		for j < len(sorted) && sorted[j] == id {
			j++
		}
		if i > 0 {
			n = max(n, commonPrefix(id, sorted[i-1]))
		}
		if j < len(sorted) {
			n = max(n, commonPrefix(id, sorted[j]))
		}
		out[id] = id[:prefixEnd(id, min(len(id), max(n+1, MinIDPrefix)))]
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// prefixEnd moves a cut forward to a character boundary (ids are text,
// not always ASCII).
func prefixEnd(s string, n int) int {
	for n < len(s) && s[n]&0xC0 == 0x80 {
		n++
	}
	return n
}
