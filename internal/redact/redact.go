// Package redact replaces secrets found in session text with a marker:
// for pidex push --redact (a team catalog is shared, and session text
// holds what was pasted into it and what tools printed), export --redact,
// and serve and mcp --redact. One redactor for all of them, with the
// rules of Ruleset:
//
//   - gitleaks' default ruleset (github.com/zricethezav/gitleaks/v8, the
//     220 rules of a maintained secret scanner: cloud keys, VCS tokens,
//     model providers' and payment services' API keys, Slack tokens and
//     webhooks, JWTs, private keys, generic high-entropy assignments),
//     run as its detector runs them, keyword prefilter and allowlists
//     included (gitleaks.go);
//   - pidex's own rules for what those leave in a conversation (rules.go):
//     keys followed by punctuation, URL passwords, bearer tokens, a few
//     providers' keys, assignments to a secret's name whatever the value's
//     shape, and a long token against the ellipsis of a cut text.
//
// Each span found is replaced by Marker (overlapping spans by one); the
// counts the functions return are these replacements. It is a net for
// the shapes above, not a guarantee: a password typed as plain prose
// ("my password is hunter2") stays.
package redact

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// Marker replaces each secret.
const Marker = "[REDACTED]"

// Ruleset names the rules: a team catalog pushed with other rules is
// pushed again (postgres.Push's format).
const Ruleset = "gitleaks " + GitleaksVersion + " + pidex 2"

// span is a secret's bytes, [lo, hi).
type span struct{ lo, hi int }

// find returns the secrets' spans in s, sorted, overlaps merged.
func find(s string) []span {
	if len(s) < 4 {
		return nil
	}
	lower := strings.ToLower(s)
	var out []span
	out = gitleaks().find(s, lower, out)
	out = findShapes(s, out)
	out = findAssignments(s, lower, out)
	out = findCut(s, out)
	out = findPiDirs(s, out)
	return merge(s, out)
}

// merge sorts spans and joins the overlapping ones; a span that is
// already the marker is dropped (redacting twice changes nothing).
func merge(s string, sp []span) []span {
	if len(sp) == 0 {
		return nil
	}
	sort.Slice(sp, func(a, b int) bool { return sp[a].lo < sp[b].lo || sp[a].lo == sp[b].lo && sp[a].hi > sp[b].hi })
	out := sp[:0]
	for _, x := range sp {
		if x.lo >= x.hi || s[x.lo:x.hi] == Marker {
			continue
		}
		if n := len(out); n > 0 && x.lo < out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, x.hi)
			continue
		}
		out = append(out, x)
	}
	return out
}

// String replaces the secrets of s with Marker and counts them.
func String(s string) (string, int) {
	sp := find(s)
	if len(sp) == 0 {
		return s, 0
	}
	return replace(s, sp), len(sp)
}

// Text redacts a value that may be a JSON document (a column holding a
// JSON array, as a session's models): as Line when it is one, else as
// String.
func Text(s string) (string, int) {
	if t := strings.TrimSpace(s); t != "" && (t[0] == '[' || t[0] == '{' || t[0] == '"') && json.Valid([]byte(t)) {
		b, n := Line([]byte(s))
		return string(b), n
	}
	return String(s)
}

func replace(s string, sp []span) string {
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, x := range sp {
		b.WriteString(s[last:x.lo])
		b.WriteString(Marker)
		last = x.hi
	}
	b.WriteString(s[last:])
	return b.String()
}

// Line redacts the string values (and keys) of one JSON line, keeping
// every other byte: each string literal is decoded, redacted, and written
// again only when a secret was in it, so the line stays valid JSON with
// the same structure, and an entry's fields other than its text are as
// they were. A string value whose key names a secret ("password": "…",
// SecretName) is replaced whole. A line that is not JSON is redacted as
// text.
func Line(line []byte) ([]byte, int) {
	var out []byte
	n, last := 0, 0
	key := ""      // the key the next value belongs to
	afterKey := -1 // where that value may start
	for i := 0; i < len(line); i++ {
		if line[i] != '"' {
			continue
		}
		j := i + 1
		escaped := false
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
				escaped = true
			}
			j++
		}
		if j >= len(line) {
			break // an unterminated string: not JSON
		}
		lit := line[i : j+1]
		var s string
		if escaped || !utf8.Valid(lit) {
			if json.Unmarshal(lit, &s) != nil {
				i = j
				continue
			}
		} else {
			s = string(lit[1 : len(lit)-1])
		}
		isKey := nextByte(line, j+1) == ':'
		r, k := String(s)
		if !isKey && afterKey >= 0 && strings.TrimSpace(string(line[afterKey:i])) == "" && SecretName(key) && secretValue(s) && r != Marker {
			r, k = Marker, 1
		}
		if k > 0 {
			out = append(out, line[last:i]...)
			out = append(out, encode(r)...)
			last, n = j+1, n+k
		}
		key, afterKey = "", -1
		if isKey {
			key = s
			afterKey = bytes.IndexByte(line[j+1:], ':') + j + 2
		}
		i = j
	}
	if n == 0 {
		if !json.Valid(line) {
			s, k := String(string(line))
			return []byte(s), k
		}
		return line, 0
	}
	return append(out, line[last:]...), n
}

// nextByte is the first byte from i on that is not JSON white space (0
// at the end).
func nextByte(b []byte, i int) byte {
	for ; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return b[i]
		}
	}
	return 0
}

// encode writes a string as JSON does, without HTML escaping (as pi's
// JSON.stringify writes it).
func encode(s string) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(strings.ToValidUTF8(s, string(utf8.RuneError)))
	return bytes.TrimRight(b.Bytes(), "\n")
}
