package query

import (
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite"

	"github.com/pidex-dev/pidex"
)

// The spans give every quarter hour of two years the local day Go's time
// package gives it, in zones with DST (both hemispheres, a 30-minute DST
// on Lord Howe), negative DST (Dublin) and quarter-hour offsets; Days.Of
// agrees, and so does Days.SQL in SQLite.
func TestZoneDaysMatchTime(t *testing.T) {
	db, err := sqlx.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lo := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() / pidex.BucketMs
	hi := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() / pidex.BucketMs
	for _, zone := range []string{"UTC", "America/Los_Angeles", "Asia/Kathmandu", "Asia/Kolkata",
		"Australia/Lord_Howe", "Europe/Dublin", "Pacific/Chatham", "America/St_Johns"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		days := zoneDays(loc, lo, hi)
		expr, args := days.SQL("b")
		stmt, err := db.Preparex(`SELECT ` + expr + ` FROM (SELECT ? AS b)`)
		if err != nil {
			t.Fatal(err)
		}
		hexpr, hargs := days.HourSQL("b")
		hstmt, err := db.Preparex(`SELECT ` + hexpr + ` FROM (SELECT ? AS b)`)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for b := lo; b <= hi; b++ {
			for i+1 < len(days) && days[i+1].From <= b {
				i++
			}
			day := (b*900 + days[i].Offset) / 86400
			got := localDay(day).Format("2006-01-02")
			want := time.UnixMilli(b * pidex.BucketMs).In(loc).Format("2006-01-02")
			if got != want {
				t.Fatalf("%s: bucket %d (%s): day %s, want %s", zone, b, time.UnixMilli(b*pidex.BucketMs).UTC(), got, want)
			}
			if d := days.Of(b); d != day {
				t.Fatalf("%s: bucket %d: Of %d, want %d", zone, b, d, day)
			}
			local := time.UnixMilli(b * pidex.BucketMs).In(loc)
			hour := int64((int(local.Weekday())+6)%7*24 + local.Hour()) // the heatmap's cell: Monday 0:00 is 0
			if h := days.HourOf(b); h != hour {
				t.Fatalf("%s: bucket %d (%s): hour of the week %d, want %d", zone, b, local, h, hour)
			}
			if b%97 == 0 || (i > 0 && b-days[i].From < 2) { // a sample, and every transition
				var inSQL int64
				if err := stmt.Get(&inSQL, append(append([]any{}, args...), b)...); err != nil || inSQL != day {
					t.Fatalf("%s: bucket %d: SQL %d (%v), want %d", zone, b, inSQL, err, day)
				}
				if err := hstmt.Get(&inSQL, append(append([]any{}, hargs...), b)...); err != nil || inSQL != hour {
					t.Fatalf("%s: bucket %d: hour SQL %d (%v), want %d", zone, b, inSQL, err, hour)
				}
			}
		}
		stmt.Close()
		hstmt.Close()
		if got := days.Of(-1); got != -1 {
			t.Errorf("a call without a time: day %d", got)
		}
	}
}
