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
