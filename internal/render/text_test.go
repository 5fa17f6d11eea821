package render

import (
	"bytes"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/internal/text"
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
		if got := RelTime(now, now.Add(-tt.ago)); got != tt.want {
			t.Errorf("RelTime(-%v) = %q, want %q", tt.ago, got, tt.want)
		}
	}
	if got := RelTime(now, now.AddDate(0, -3, 0)); got != now.AddDate(0, -3, 0).Local().Format("2006-01-02") {
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
		if got := text.Cut(tt.in, tt.n); got != tt.want {
			t.Errorf("text.Cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// TerminalJSON writes C1 controls and DEL as \u escapes, whatever the
// write boundaries (a C1 is two bytes in UTF-8), and leaves the rest.
func TestTerminalJSON(t *testing.T) {
	in := "{\"a\":\"x\u009b31m\u0085\x7f é\u00a0\u009c\"}\n"
	want := "{\"a\":\"x\\u009b31m\\u0085\\u007f é\u00a0\\u009c\"}\n"
	for cut := 0; cut <= len(in); cut++ {
		var b bytes.Buffer
		w := TerminalJSON(&b)
		w.Write([]byte(in[:cut]))
		w.Write([]byte(in[cut:]))
		if b.String() != want {
			t.Fatalf("cut at %d: %q, want %q", cut, b.String(), want)
		}
	}
}
