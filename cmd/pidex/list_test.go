package main

import (
	"testing"
	"time"
)

func TestRelTime(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		ago  time.Duration
		want string
	}{
		{10 * time.Second, "just now"},
		{5 * time.Minute, "5m ago"},
		{3 * time.Hour, "3h ago"},
		{50 * time.Hour, "2d ago"},
	}
	for _, tt := range tests {
		if got := relTime(now, now.Add(-tt.ago)); got != tt.want {
			t.Errorf("relTime(-%v) = %q, want %q", tt.ago, got, tt.want)
		}
	}
	if got := relTime(now, now.AddDate(0, -3, 0)); got != now.AddDate(0, -3, 0).Local().Format("2006-01-02") {
		t.Errorf("old times are dates, got %q", got)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"much too long", 8, "much to…"},
		{"héllo wörld", 6, "héllo…"}, // runes, not bytes
	}
	for _, tt := range tests {
		if got := cut(tt.in, tt.n); got != tt.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

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
	for _, bad := range []string{"yesterday", "7x", "-3d"} {
		if _, err := parseDate(bad, false); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
