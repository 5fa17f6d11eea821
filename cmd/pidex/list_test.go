package main

import (
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	day, err := parseDate("2026-11-01", false)
	if err != nil || day.Format("2006-01-02 15:04") != "2026-11-01 00:00" {
		t.Fatalf("date: %v, %v", day, err)
	}
	end, _ := parseDate("2026-11-01", true)
	if end.Sub(day) != 24*time.Hour {
		t.Errorf("--until DATE should include that day, got %v", end)
	}
	if ago, err := parseDate("7d", false); err != nil || time.Since(ago) < 7*24*time.Hour-time.Minute {
		t.Errorf("7d: %v, %v", ago, err)
	}
	if _, err := parseDate("2026-11-01T10:00:00Z", false); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"yesterday", "7x", "-3d", "106752d", "15251w", "9999999999h"} {
		if _, err := parseDate(bad, false); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
