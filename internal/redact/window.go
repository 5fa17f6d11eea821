package redact

import (
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// Running a regexp over a whole text costs a pass per possible start,
// whatever its keyword prefilter said: gitleaks' generic rule over a
// 50 kB tool output that holds "key" once read all 50 kB. A rule whose
// matches are at most reach bytes long, and always hold one of its
// keywords, matches only within reach of a keyword: it is run on those
// windows alone.

// reach says how far from a keyword a match of re can extend: at most
// bounded bytes of its bounded parts, plus up to runs runs of token
// bytes (no space, no quote: an unbounded repeat of a class without
// them, [A-Za-z0-9]{20,}). ok is false when a match can go anywhere (a
// .* or a \s+).
type reach struct {
	bounded, runs int
	ok            bool
}

func reachOf(re *regexp.Regexp) reach {
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return reach{}
	}
	r := reach{ok: true}
	r.walk(t.Simplify(), 1)
	return r
}

// walk adds t's reach, repeated times over.
func (r *reach) walk(t *syntax.Regexp, times int) {
	switch t.Op {
	case syntax.OpLiteral:
		r.bounded += times * len(t.Rune) * utf8.UTFMax
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		r.bounded += times * utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		r.walk(t.Sub[0], times)
	case syntax.OpRepeat:
		if t.Max >= 0 {
			r.walk(t.Sub[0], times*t.Max)
			return
		}
		r.unbounded(t.Sub[0], times)
	case syntax.OpStar, syntax.OpPlus:
		r.unbounded(t.Sub[0], times)
	case syntax.OpConcat:
		for _, sub := range t.Sub {
			r.walk(sub, times)
		}
	case syntax.OpAlternate:
		best := reach{ok: true}
		for _, sub := range t.Sub {
			var x reach
			x.ok = true
			x.walk(sub, times)
			best.bounded, best.runs, best.ok = max(best.bounded, x.bounded), max(best.runs, x.runs), best.ok && x.ok
		}
		r.bounded, r.runs, r.ok = r.bounded+best.bounded, r.runs+best.runs, r.ok && best.ok
	}
	// Empty-width (^ $ \b) and empty matches add nothing.
}

// unbounded adds a repeat without end: a run of token bytes when what it
// repeats is one, else anything.
func (r *reach) unbounded(t *syntax.Regexp, times int) {
	if !tokenClass(t) {
		r.ok = false
		return
	}
	r.runs += times
}

// tokenClass: t matches one character, never a space or a quote.
func tokenClass(t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpLiteral:
		for _, c := range t.Rune {
			if !isTokenRune(c) {
				return false
			}
		}
		return len(t.Rune) == 1
	case syntax.OpCharClass:
		for _, c := range " \t\n\r\"'`" {
			for i := 0; i+1 < len(t.Rune); i += 2 {
				if t.Rune[i] <= c && c <= t.Rune[i+1] {
					return false
				}
			}
		}
		return true
	}
	return false
}

func isTokenRune(c rune) bool { return c > 0x7f || !isStop(byte(c)) }

// isStop ends a run of token bytes.
func isStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`':
		return true
	}
	return false
}

// near is re's matches in s, found in the windows around the hits that
// reach r allows, or in all of s when r does not bound them.
func near(re *regexp.Regexp, r reach, s string, hits []span) [][]int {
	if !r.ok {
		return re.FindAllStringSubmatchIndex(s, -1)
	}
	wins := make([]span, 0, len(hits))
	for _, h := range hits {
		lo, hi := h.lo, h.hi
		for range r.runs + 1 {
			lo = max(0, lo-r.bounded)
			for lo > 0 && !isStop(s[lo-1]) {
				lo--
			}
			hi = min(len(s), hi+r.bounded)
			for hi < len(s) && !isStop(s[hi]) {
				hi++
			}
		}
		wins = append(wins, span{lo, hi})
		if lo == 0 && hi == len(s) {
			return re.FindAllStringSubmatchIndex(s, -1)
		}
	}
	return matchNear(re, s, wins, 0)
}

// matchNear is re.FindAllStringSubmatchIndex(s, -1) restricted to the
// windows of reach bytes (and a margin, so that the edges of a window
// are not where a match starts or ends) around each hit [lo, hi): the
// windows are merged, and the offsets returned are s's.
func matchNear(re *regexp.Regexp, s string, hits []span, reach int) [][]int {
	reach += 16
	var out [][]int
	lo, hi := -1, -1
	flush := func() {
		if lo < 0 {
			return
		}
		for _, m := range re.FindAllStringSubmatchIndex(s[lo:hi], -1) {
			for k := range m {
				if m[k] >= 0 {
					m[k] += lo
				}
			}
			out = append(out, m)
		}
	}
	for _, h := range hits {
		a, b := runeStart(s, max(0, h.lo-reach)), runeStart(s, min(len(s), h.hi+reach))
		if lo >= 0 && a <= hi {
			hi = max(hi, b)
			continue
		}
		flush()
		lo, hi = a, b
	}
	flush()
	return out
}

// runeStart moves i back to the start of the character it is in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// semiGeneric is the separator of gitleaks' "semi-generic" rules
// (generic-api-key, and every rule its generateSemiGenericRegex wrote:
// NAME … = value, with the rule's keyword in NAME): a keyword, at most
// 23 name characters, spaces and quotes, this separator, then the value.
const semiGeneric = `(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`

// assignedNear is matchNear for a semi-generic rule: only the keywords
// followed within 24 bytes by a separator can start a match, whose
// windows reach 64 bytes before the keyword and past the value (the
// run of bytes up to a space, a quote, a semicolon or a backquote after
// the separator), however long.
func assignedNear(re *regexp.Regexp, s string, hits []span) [][]int {
	var wins []span
	for _, h := range hits {
		sep := -1
		for i := h.hi; i < len(s) && i < h.hi+24; i++ {
			if c := s[i]; c == '=' || c == ':' || c == '>' || c == '|' || c == '?' || c == ',' {
				sep = i
				break
			}
		}
		if sep < 0 {
			continue
		}
		end := sep + 1
		for end < len(s) && end < sep+12 && isSepSpace(s[end]) {
			end++
		}
		for end < len(s) && !isValueStop(s[end]) {
			end++
		}
		wins = append(wins, span{max(0, h.lo-64), min(len(s), end+8)})
	}
	return matchNear(re, s, wins, 0)
}

func isSepSpace(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\'', '"', '`', '=', ':', '>':
		return true
	}
	return false
}

func isValueStop(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '\'', '"', '`', ';':
		return true
	}
	return false
}
