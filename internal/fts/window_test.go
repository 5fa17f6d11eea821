package fts

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
)

// A SnippetWindow fed a text in pieces gives the snippet the whole text
// gives, wherever the match lies and however the pieces fall: a hit deep
// in a 100 MB line is shown where it matches (issue 39, item 6).
func TestSnippetWindow(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 6))
	vocab := []string{"line", "of", "tool", "output", "Zebra", "zebrafinch", "café", "検索", "the", "docker-compose", "x"}
	filler := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(vocab[r.IntN(4)] + []string{" ", "\n", "\t", "  "}[r.IntN(4)])
		}
		return b.String()
	}
	for _, q := range []string{"zebra*", `"zebrafinch output"`, "cafe", "検索", "docker-compose", "zebrafinch OR cafe"} {
		n, err := Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		terms := Highlights(n)
		for _, size := range slices.Repeat([]int{0, 30, 3000, 100_000}, 10) {
			match := []string{"Zebrafinch output", "zebrafinch output", "Café", "検索した", "docker-compose", "zebras"}[r.IntN(6)]
			text := filler(size) + match + " " + filler(r.IntN(5000))
			want := Snippet(text, terms, 160)
			w := NewSnippetWindow(terms)
			done := false
			for rest := text; len(rest) > 0 && !done; {
				k := min(len(rest), 1+r.IntN([]int{20, 300, 7000}[r.IntN(3)]))
				done = w.Feed(rest[:k])
				rest = rest[k:]
			}
			got, ok := w.Text()
			if !ok {
				if slices.ContainsFunc(want, isHit) {
					t.Errorf("%s after %d bytes: no window, the whole text has a match", q, size)
				}
				continue
			}
			if len(got) > 3*windowContext {
				t.Errorf("%s: a window of %d bytes", q, len(got))
			}
			if gs := Snippet(got, terms, 160); !slices.Equal(flat(gs), flat(want)) {
				t.Errorf("%s after %d bytes:\nwindow %q\nwhole  %q", q, size, flat(gs), flat(want))
			}
		}
	}
}

func isHit(s pidex.Segment) bool { return s.Hit }

// flat is a snippet as text, its matches in brackets.
func flat(segs []pidex.Segment) []string {
	var out []string
	for _, s := range segs {
		if s.Hit {
			out = append(out, "["+s.Text+"]")
		} else {
			out = append(out, s.Text)
		}
	}
	return out
}
