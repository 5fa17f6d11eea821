package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// Matching in windows around the keywords finds every match that
// matching the whole text finds, for every rule, on real sessions' text
// and the planted secrets (alone and inside a long text).
func TestWindowsMissNothing(t *testing.T) {
	var texts []string
	for _, s := range sessionStrings(t) {
		if len(s) >= 64 { // a shorter text is one window
			texts = append(texts, s)
		}
	}
	pad := strings.Repeat("some ordinary words about the key, the token and the api. ", 200)
	for _, p := range catalogtest.Planted {
		texts = append(texts, p.Text, pad+p.Text+pad, pad+"\n"+p.Text+"\n"+pad)
	}
	l := gitleaks()
	for _, s := range texts {
		lower := asciiLower(s)
		hits := map[int][]span{}
		l.trie.Walk([]byte(lower), func(end, n, pattern int64) bool {
			for _, r := range l.byKeyword[pattern] {
				hits[r] = append(hits[r], span{int(end - n + 1), int(end + 1)})
			}
			return true
		})
		for i, h := range hits {
			got := l.rule(i, s, h, nil)
			want := l.rule(i, s, []span{{0, len(s)}}, nil) // one window: the whole text
			for _, w := range want {
				if !covered(w, got) {
					t.Errorf("rule %s: the windows miss %q", l.rules[i].RuleID, s[w.lo:w.hi])
				}
			}
		}
		for _, p := range shapes() {
			var got []span
			for _, m := range near(p.re, p.reach, s, allIndexes(s, p.triggers)) {
				got = append(got, span{m[0], m[1]})
			}
			for _, m := range p.re.FindAllStringIndex(s, -1) {
				if !covered(span{m[0], m[1]}, got) {
					t.Errorf("shape %s: the windows miss %q", p.re, s[m[0]:m[1]])
				}
			}
		}
	}
}

func covered(x span, in []span) bool {
	for _, y := range in {
		if y.lo <= x.lo && x.hi <= y.hi {
			return true
		}
	}
	return false
}

// sessionStrings are the string values of the real sessions in testdata.
func sessionStrings(t testing.TB) []string {
	files, _ := filepath.Glob("../../testdata/sessions/--real--/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no sessions in testdata/sessions/--real--")
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var v any
			if json.Unmarshal(line, &v) == nil {
				walk(v)
			}
		}
	}
	return out
}
