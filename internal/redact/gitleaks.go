package redact

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// GitleaksVersion is the gitleaks whose default ruleset the redactor runs
// (go.mod's; a test holds them equal). It is part of Ruleset: a team
// catalog pushed under another ruleset is pushed again.
const GitleaksVersion = "v8.30.1"

// leaks is gitleaks' default ruleset, ready to match text: the rules
// that read content (its path-only rules have nothing to read here), and
// the keyword prefilter gitleaks itself runs before any rule's regex (a
// rule runs only on text holding one of its keywords, in any case).
type leaks struct {
	rules     []config.Rule
	reach     []reach // per rule: how far from a keyword its matches reach (window.go)
	assigned  []bool  // per rule: a semi-generic one (window.go)
	global    []*config.Allowlist
	trie      *ahocorasick.Trie
	byKeyword [][]int // pattern index in trie → the rules to run
}

// gitleaks loads the ruleset on first use: parsing its TOML and compiling
// 220 regexps takes about 0.1 s, which only redaction should pay.
var gitleaks = sync.OnceValue(func() *leaks {
	l, err := loadLeaks()
	if err != nil {
		panic(fmt.Sprintf("redact: load gitleaks' default rules: %v", err)) // the embedded config: a build's bug
	}
	return l
})

func loadLeaks() (*leaks, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return nil, err
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return nil, err
	}
	cfg, err := vc.Translate()
	if err != nil {
		return nil, err
	}
	l := &leaks{global: cfg.Allowlists}
	ids := make([]string, 0, len(cfg.Rules))
	for id := range cfg.Rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	keyword := map[string]int{}
	var words []string
	for _, id := range ids {
		r := cfg.Rules[id]
		// Path rules match file names, SkipReport rules are only parts of
		// another rule: neither finds a secret in text on its own.
		if r.Regex == nil || r.Path != nil || r.SkipReport {
			continue
		}
		if len(r.Keywords) == 0 {
			return nil, fmt.Errorf("rule %s has no keyword: the prefilter would skip it", id)
		}
		ri := len(l.rules)
		l.rules = append(l.rules, r)
		l.reach = append(l.reach, reachOf(r.Regex))
		l.assigned = append(l.assigned, strings.Contains(r.Regex.String(), semiGeneric))
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			p, ok := keyword[k]
			if !ok {
				p = len(words)
				keyword[k] = p
				words = append(words, k)
				l.byKeyword = append(l.byKeyword, nil)
			}
			l.byKeyword[p] = append(l.byKeyword[p], ri)
		}
	}
	l.trie = ahocorasick.NewTrieBuilder().AddStrings(words).Build()
	return l, nil
}

// find adds the spans of the secrets gitleaks' rules find in s, as its
// detector would report them (detect.detectRule): the rule's secret
// group (else the first non-empty group, else the match), kept when its
// entropy is above the rule's floor and no allowlist lets it pass. lower
// is s in lower case, for the keywords.
func (l *leaks) find(s, lower string, out []span) []span {
	if len(lower) != len(s) {
		lower = asciiLower(s) // keyword hits must be s's offsets
	}
	var hits map[int][]span // rule → where its keywords are
	l.trie.Walk([]byte(lower), func(end, n, pattern int64) bool {
		if hits == nil {
			hits = map[int][]span{}
		}
		for _, r := range l.byKeyword[pattern] {
			hits[r] = append(hits[r], span{int(end - n + 1), int(end + 1)})
		}
		return true
	})
	for i := range l.rules {
		if h, ok := hits[i]; ok {
			out = l.rule(i, s, h, out)
		}
	}
	return out
}

// asciiLower is s with ASCII letters in lower case, byte for byte (a
// keyword is ASCII; strings.ToLower may change a text's length).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func (l *leaks) rule(i int, s string, hits []span, out []span) []span {
	r := &l.rules[i]
	var ms [][]int
	sort.Slice(hits, func(a, b int) bool { return hits[a].lo < hits[b].lo })
	if l.assigned[i] {
		ms = assignedNear(r.Regex, s, hits)
	} else {
		ms = near(r.Regex, l.reach[i], s, hits)
	}
	for _, m := range ms {
		lo, hi := m[0], m[1]
		// gitleaks trims newlines off a match before it reads its groups.
		for lo < hi && s[lo] == '\n' {
			lo++
		}
		for hi > lo && s[hi-1] == '\n' {
			hi--
		}
		match := s[lo:hi]
		if g := r.SecretGroup; g > 0 && 2*g+1 < len(m) && m[2*g] >= 0 {
			lo, hi = m[2*g], m[2*g+1]
		} else if g == 0 {
			for k := 2; k+1 < len(m); k += 2 {
				if m[k] >= 0 && m[k+1] > m[k] {
					lo, hi = m[k], m[k+1]
					break
				}
			}
		}
		if lo >= hi {
			continue
		}
		secret := s[lo:hi]
		if r.Entropy != 0 && entropy(secret) <= r.Entropy {
			continue
		}
		if allowed(l.global, s, m[0], secret, match) || allowed(r.Allowlists, s, m[0], secret, match) {
			continue
		}
		out = append(out, span{lo, hi})
	}
	return out
}

// allowed applies allowlists as gitleaks' checkFindingAllowed does, for
// text that has no commit and no path.
func allowed(lists []*config.Allowlist, s string, at int, secret, match string) bool {
	for _, a := range lists {
		target := secret
		switch a.RegexTarget {
		case "match":
			target = match
		case "line":
			target = lineAt(s, at)
		}
		regex := a.RegexAllowed(target)
		stop, _ := a.ContainsStopWord(secret)
		if a.MatchCondition != config.AllowlistMatchAnd {
			if regex || stop {
				return true
			}
			continue
		}
		all := true
		if len(a.Commits) > 0 {
			all = false
		}
		if len(a.Paths) > 0 && !a.PathAllowed("") {
			all = false
		}
		if len(a.Regexes) > 0 && !regex {
			all = false
		}
		if len(a.StopWords) > 0 && !stop {
			all = false
		}
		if all {
			return true
		}
	}
	return false
}

// lineAt is the line of s that holds byte at.
func lineAt(s string, at int) string {
	start := strings.LastIndexByte(s[:at], '\n') + 1
	end := strings.IndexByte(s[at:], '\n')
	if end < 0 {
		return s[start:]
	}
	return s[start : at+end]
}

// entropy is the Shannon entropy of s's characters, as gitleaks computes
// it.
func entropy(s string) float64 {
	counts := map[rune]int{}
	for _, c := range s {
		counts[c]++
	}
	e, inv := 0.0, 1/float64(len(s))
	for _, n := range counts {
		f := float64(n) * inv
		e -= f * math.Log2(f)
	}
	return e
}
