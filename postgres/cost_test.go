package postgres

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/pidex-dev/pidex/query"
)

// A part's sum gives what adding its values as big.Rats and rounding once
// gives, whether it had one value (read as text) or several, with NULLs,
// NaN and infinities as before (not a number: 0).
func TestExactPartRoundsAsRat(t *testing.T) {
	str := func(s string) *string { return &s }
	rng := rand.New(rand.NewPCG(1, 2))
	var cases [][]*string
	for range 2000 {
		n := 1 + rng.IntN(3)
		var vs []*string
		for range n {
			digits := rng.IntN(30)
			vs = append(vs, str(fmt.Sprintf("%d.%0*d", rng.Int64N(1<<50), digits, rng.Int64N(1<<60))))
		}
		cases = append(cases, vs)
	}
	cases = append(cases, []*string{nil}, []*string{str("NaN")}, []*string{str("Infinity")}, []*string{str("-Infinity")},
		[]*string{str("0.1"), str("0.2")}, []*string{str("NaN"), str("1.5")}, []*string{str("1.5"), str("NaN")},
		[]*string{nil, str("2.25")}, []*string{str("1e400")}, []*string{str("123456789012345678901234567890.123456789012345678901234567890")})
	for _, vs := range cases {
		var p exactPart
		var want *big.Rat
		for j, s := range vs {
			p.addText(0, s)
			if j == 0 || want == nil {
				want = new(big.Rat)
			}
			if r := ratOf(s); r == nil {
				want = nil
			} else {
				want.Add(want, r)
			}
		}
		w := 0.0
		if want != nil {
			w = query.Round(want)
		}
		if got := p.value(0); got != w {
			t.Errorf("%v: %v, want %v", deref(vs), got, w)
		}
	}
}

func deref(vs []*string) []string {
	out := make([]string, len(vs))
	for i, s := range vs {
		out[i] = "NULL"
		if s != nil {
			out[i] = *s
		}
	}
	return out
}
