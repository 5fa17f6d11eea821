package readside

import (
	"testing"
	"time"
)

// The spans give every quarter hour of two years the local day Go's time
// package gives it, in zones with DST (both hemispheres, a 30-minute DST
// on Lord Howe), negative DST (Dublin) and quarter-hour offsets; DayOf
// agrees.
func TestZoneSpansMatchTime(t *testing.T) {
	lo := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() / BucketMs
	hi := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() / BucketMs
	for _, zone := range []string{"UTC", "America/Los_Angeles", "Asia/Kathmandu", "Asia/Kolkata",
		"Australia/Lord_Howe", "Europe/Dublin", "Pacific/Chatham", "America/St_Johns"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		spans := ZoneSpans(loc, lo, hi)
		i := 0
		for b := lo; b <= hi; b++ {
			for i+1 < len(spans) && spans[i+1].From <= b {
				i++
			}
			day := (b*900 + spans[i].Offset) / 86400
			got := LocalDay(day).Format("2006-01-02")
			want := time.UnixMilli(b * BucketMs).In(loc).Format("2006-01-02")
			if got != want {
				t.Fatalf("%s: bucket %d (%s): day %s, want %s", zone, b, time.UnixMilli(b*BucketMs).UTC(), got, want)
			}
			if d := DayOf(b, spans); d != day {
				t.Fatalf("%s: bucket %d: DayOf %d, want %d", zone, b, d, day)
			}
		}
	}
}
