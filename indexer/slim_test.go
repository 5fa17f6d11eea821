package indexer

import (
	"context"
	"math/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/sqlite"
)

// The short forms read back as what they replace: entries.ts is printed by
// SQLite from ts_ms + ts_dt whenever tsRaw leaves ts_raw NULL, so SQLite's
// strftime must print every such millisecond as Go's toISOString does.
func TestTimestampReadsBackAsWritten(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "c.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rng := rand.New(rand.NewSource(1))
	ms := []int64{0, 1, 999, 1000, 59999, 60000, 86399999, 951782400000 /* 2000-02-29 */, 1740907968895, isoMax, isoMax - 1}
	for i := 0; i < 20000; i++ {
		ms = append(ms, rng.Int63n(isoMax+1))
		ms = append(ms, 1700000000000+rng.Int63n(400*86400000))
	}
	for _, m := range ms {
		ts := time.UnixMilli(m).UTC().Format(isoLayout)
		base := m - rng.Int63n(600000) // the message's own time, before the entry's
		raw, dt := tsRaw(ts, &base)
		if raw != nil {
			t.Fatalf("%s (%d ms): stored as written, want by time", ts, m)
		}
		var got string
		if err := db.GetContext(ctx, &got, `SELECT strftime('%Y-%m-%dT%H:%M:%fZ', (? + ?) / 1000.0, 'unixepoch')`, base, dt); err != nil {
			t.Fatal(err)
		}
		if got != ts {
			t.Fatalf("%d ms: SQLite prints %s, toISOString %s", m, got, ts)
		}
	}
	for _, ts := range []string{"", "2026-03-07T00:00:00Z", "2026-03-07T00:00:00.000+00:00", "2026-03-07 00:00:00.000Z",
		"+010000-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "not a time"} {
		base := int64(1772841600000)
		if raw, _ := tsRaw(ts, &base); raw != ts {
			t.Errorf("%q: stored as %v, want as written", ts, raw)
		}
	}
	if raw, _ := tsRaw("2026-03-07T00:00:00.000Z", nil); raw != "2026-03-07T00:00:00.000Z" {
		t.Errorf("without ts_ms: stored as %v, want as written", raw)
	}
}
