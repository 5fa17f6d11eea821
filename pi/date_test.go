package pi

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"
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
			t.Errorf("ParseDate(%s) = NaN, want %d (%s)", strconv.Quote(r.Input), *r.MS, FormatDate(*r.MS))
		case r.MS != nil && got != *r.MS:
			t.Errorf("ParseDate(%s) = %d (%s), want %d (%s)", strconv.Quote(r.Input), got, FormatDate(got), *r.MS, FormatDate(*r.MS))
		}
	}
}

func TestFormatDateMatchesNode(t *testing.T) {
	var rows []struct {
		MS  int64  `json:"ms"`
		ISO string `json:"iso"`
	}
	readJSON(t, "testdata/jsisostring.json", &rows)
	for _, r := range rows {
		if got := FormatDate(r.MS); got != r.ISO {
			t.Errorf("FormatDate(%d) = %q, want %q", r.MS, got, r.ISO)
		}
		// toISOString output is what pi writes; it must read back unchanged.
		if back, ok := ParseDate(r.ISO); !ok || back != r.MS {
			t.Errorf("ParseDate(%q) = %d, %v, want %d", r.ISO, back, ok, r.MS)
		}
	}
	for _, ms := range []int64{maxTimeMs + 1, -maxTimeMs - 1} {
		if got := FormatDate(ms); got != "" {
			t.Errorf("FormatDate(%d) = %q, want \"\" (JavaScript throws)", ms, got)
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
		if iso := FormatDate(ms); iso == "" {
			t.Fatalf("FormatDate(%d) = \"\" for an accepted date", ms)
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
