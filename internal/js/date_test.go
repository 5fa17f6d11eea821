package js

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/pidex-dev/pidex"
)

// The tables are Node's own answers, written by testdata/gen/jsdate.mjs.

func TestParseDateMatchesNode(t *testing.T) {
	var rows []struct {
		Input string `json:"input"`
		MS    *int64 `json:"ms"` // nil: Date.parse gave NaN
	}
	readJSON(t, "testdata/jsdate.json", &rows)
	if len(rows) < 150 {
		t.Fatalf("only %d rows in jsdate.json", len(rows))
	}
	for _, r := range rows {
		got, ok := ParseDate(r.Input)
		switch {
		case r.MS == nil && ok:
			t.Errorf("ParseDate(%s) = %d, want NaN", strconv.Quote(r.Input), got)
		case r.MS != nil && !ok:
			t.Errorf("ParseDate(%s) = NaN, want %d (%s)", strconv.Quote(r.Input), *r.MS, pidex.Time(*r.MS))
		case r.MS != nil && got != *r.MS:
			t.Errorf("ParseDate(%s) = %d (%s), want %d (%s)", strconv.Quote(r.Input), got, pidex.Time(got), *r.MS, pidex.Time(*r.MS))
		}
	}
}

func FuzzParseDate(f *testing.F) {
	var rows []struct {
		Input string `json:"input"`
	}
	readJSON(f, "testdata/jsdate.json", &rows)
	for _, r := range rows {
		f.Add(r.Input)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, ok := ParseDate(s)
		if !ok {
			return
		}
		if ms < -maxTimeMs || ms > maxTimeMs {
			t.Fatalf("ParseDate(%q) = %d, outside the Date range", s, ms)
		}
		if iso := pidex.Time(ms).String(); iso == "" {
			t.Fatalf("pidex.Time(%d) = \"\" for an accepted date", ms)
		}
	})
}

func readJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}
