package query

import (
	"math"
	"math/big"
)

// Total sums as SQLite's total() does (func.c: sumStep, totalFinalize):
// integers exactly while they fit, then Kahan–Babuška–Neumaier
// compensated summation, large integers split so that no bit is lost.
// A team catalog recomputes with it the rollup sums that a local catalog
// would hold (its rollups are total()s), so that both give the same
// figures. The zero Total is empty.
type Total struct {
	sum, err float64
	isum     int64
	approx   bool
}

const bigInt = 4503599627370496 // 2^52: integers beyond are split

// AddInt adds an integer value (SQLite stores a whole number in an
// INTEGER column as an integer).
func (t *Total) AddInt(v int64) {
	if !t.approx {
		if s, ok := addInt64(t.isum, v); ok {
			t.isum = s
			return
		}
		t.init(t.isum)
		t.approx = true
	}
	if v <= -bigInt || v >= bigInt {
		sm := v % 16384
		t.step(float64(v - sm))
		t.step(float64(sm))
		return
	}
	t.step(float64(v))
}

// AddFloat adds a REAL value.
func (t *Total) AddFloat(v float64) {
	if !t.approx {
		t.init(t.isum)
		t.approx = true
	}
	t.step(v)
}

// Add adds a value read from a column of integer affinity: SQLite keeps a
// whole number that fits in 64 bits as an integer there, anything else as
// a REAL.
func (t *Total) Add(v float64) {
	if v == math.Trunc(v) && v >= -9.223372036854775e18 && v <= 9.223372036854775e18 {
		t.AddInt(int64(v))
		return
	}
	t.AddFloat(v)
}

func (t *Total) init(i int64) {
	if i <= -bigInt || i >= bigInt {
		sm := i % 16384
		t.sum, t.err = float64(i-sm), float64(sm)
		return
	}
	t.sum, t.err = float64(i), 0
}

func (t *Total) step(r float64) {
	s := t.sum
	u := s + r
	if math.Abs(s) > math.Abs(r) {
		t.err += s - u + r
	} else {
		t.err += r - u + s
	}
	t.sum = u
}

func addInt64(a, b int64) (int64, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// Value is the sum as totalFinalize returns it.
func (t *Total) Value() float64 {
	if !t.approx {
		return float64(t.isum)
	}
	r := t.sum
	if math.Float64bits(t.err)&(0x7ff<<52) != 0x7ff<<52 { // not an infinity or NaN
		r += t.err
	}
	return r
}

// Exact is the exact value of a float64 as a rational: every double is a
// finite binary fraction.
func Exact(x float64) *big.Rat {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return new(big.Rat).SetFloat64(x)
}

// Decimal writes a float64's exact value in decimal (no exponent): as a
// numeric, it sums exactly in PostgreSQL. Infinities and NaN have no
// decimal: "NaN" (which numeric reads) for them.
func Decimal(x float64) string {
	r := Exact(x)
	if r == nil {
		return "NaN"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	// The denominator is a power of two, 2^k: k digits after the point
	// hold the value exactly.
	k := r.Denom().BitLen() - 1
	return r.FloatString(k)
}

// Round is the float64 nearest a rational (±Inf beyond the largest
// double, nil as NaN).
func Round(r *big.Rat) float64 {
	if r == nil {
		return math.NaN()
	}
	f, _ := r.Float64()
	return f
}
