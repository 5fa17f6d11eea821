package text

import (
	"math/rand/v2"
	"testing"
)

// cutRunes is Cut as it was: the whole string as runes.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 2 {
		return string(r[:max(n, 0)])
	}
	return string(r[:n-1]) + "…"
}

// Cut counts only the runes it needs and cuts exactly where the whole
// string as runes cut it, invalid UTF-8 included.
func TestCutIsCutOfRunes(t *testing.T) {
	pieces := []string{"a", "é", "検", "😀", "\xff", "\xe6\xa4", " ", "\n", "…", "ab"}
	r := rand.New(rand.NewPCG(7, 9))
	cases := []struct {
		s string
		n int
	}{{"", 0}, {"abc", -1}, {"abc", 0}, {"abc", 1}, {"abc", 2}, {"abc", 3}, {"ééé", 2}, {"ééé", 3}, {"\xff\xff\xff", 2}}
	for range 20000 {
		var b []byte
		for range r.IntN(40) {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		cases = append(cases, struct {
			s string
			n int
		}{string(b), r.IntN(45) - 2})
	}
	for _, c := range cases {
		if got, want := Cut(c.s, c.n), cutRunes(c.s, c.n); got != want {
			t.Fatalf("Cut(%q, %d) = %q, want %q", c.s, c.n, got, want)
		}
	}
}
