package query

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite"
)

// Total sums what SQLite's total() sums, to the bit, over integers (small
// and past 2^52, overflowing 64 bits) and reals mixed.
func TestTotalIsSQLites(t *testing.T) {
	db, err := sqlx.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	db.MustExec(`CREATE TABLE v (g INTEGER, i INTEGER, r REAL)`)
	r := rand.New(rand.NewPCG(7, 8))
	want := map[int]*Total{}
	for g := range 40 {
		want[g] = &Total{}
		for range 1 + r.IntN(60) {
			var v float64
			switch r.IntN(5) {
			case 0:
				v = float64(r.IntN(100000))
			case 1:
				v = math.Trunc(r.Float64() * 1e18)
			case 2:
				v = r.Float64() * 0.01
			case 3:
				v = r.NormFloat64() * 1e6
			default:
				v = float64(r.IntN(3)) * 9e18
			}
			db.MustExec(`INSERT INTO v VALUES (?, ?, ?)`, g, v, v)
			want[g].Add(v)
		}
	}
	rows, err := db.Query(`SELECT g, total(i), total(r) FROM v GROUP BY g`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var g int
		var ti, tr float64
		if err := rows.Scan(&g, &ti, &tr); err != nil {
			t.Fatal(err)
		}
		if got := want[g].Value(); math.Float64bits(got) != math.Float64bits(ti) {
			t.Errorf("group %d: Total %v, SQLite's total() %v", g, got, ti)
		}
		_ = tr
	}
}

func TestDecimalIsExact(t *testing.T) {
	for _, x := range []float64{0, 1, -2.5, 0.1, 1.0 / 3, 1e-300, 5e-324, math.MaxFloat64, 123456789.123} {
		got, ok := new(big.Rat).SetString(Decimal(x))
		if !ok || got.Cmp(Exact(x)) != 0 {
			t.Errorf("Decimal(%v) = %s, not exact", x, Decimal(x))
		}
		if Round(got) != x {
			t.Errorf("Round(Decimal(%v)) = %v", x, Round(got))
		}
	}
}
