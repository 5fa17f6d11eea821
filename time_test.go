package pidex

import (
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/internal/js"
)

// Node's own answers for toISOString (testdata/gen/jsdate.mjs); pi writes
// them, so each must also read back unchanged through JavaScript's
// Date.parse (internal/js).
func TestTimeMatchesToISOString(t *testing.T) {
	var rows []struct {
		MS  int64  `json:"ms"`
		ISO string `json:"iso"`
	}
	b, err := os.ReadFile("internal/js/testdata/jsisostring.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if got := Time(r.MS).String(); got != r.ISO {
			t.Errorf("Time(%d) = %q, want %q", r.MS, got, r.ISO)
		}
		if back, ok := js.ParseDate(r.ISO); !ok || back != r.MS {
			t.Errorf("js.ParseDate(%q) = %d, %v, want %d", r.ISO, back, ok, r.MS)
		}
	}
	for _, ms := range []int64{maxTimeMs + 1, -maxTimeMs - 1} {
		if got := Time(ms).String(); got != "" {
			t.Errorf("Time(%d) = %q, want \"\" (JavaScript throws)", ms, got)
		}
	}
}

func TestParseTime(t *testing.T) {
	day, err := ParseTime("since", "2026-11-01", false, time.Local)
	if err != nil || day.Format("2006-01-02 15:04") != "2026-11-01 00:00" {
		t.Fatalf("date: %v, %v", day, err)
	}
	end, _ := ParseTime("until", "2026-11-01", true, time.Local)
	if end.Sub(day) != 24*time.Hour {
		t.Errorf("an upper bound's DATE should include that day, got %v", end)
	}
	if ago, err := ParseTime("since", "7d", false, time.Local); err != nil || time.Since(ago) < 7*24*time.Hour-time.Minute {
		t.Errorf("7d: %v, %v", ago, err)
	}
	if _, err := ParseTime("since", "2026-11-01T10:00:00Z", false, time.Local); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"yesterday", "7x", "-3d", "106752d", "15251w", "9999999999h"} {
		_, err := ParseTime("since", bad, false, time.Local)
		var oe *OptionError
		if !errors.As(err, &oe) || oe.Option != "since" || !errors.Is(err, ErrUsage) {
			t.Errorf("%q: %v, want an OptionError of since", bad, err)
		}
	}
}
