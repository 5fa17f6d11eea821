package text

import "testing"

func TestGroupDigits(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "999": "999", "1000": "1,000", "1234567": "1,234,567", "-1234": "-1,234",
		"1234567.25": "1,234,567.25", "-999999.5": "-999,999.5", "100": "100",
	} {
		if got := GroupDigits(in); got != want {
			t.Errorf("GroupDigits(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCounted(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0 branch points"}, {1, "1 branch point"}, {2, "2 branch points"}, {1234, "1,234 branch points"}} {
		if got := Counted(tt.n, "branch point", "branch points"); got != tt.want {
			t.Errorf("Counted(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
