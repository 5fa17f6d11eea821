package js

import "testing"

func TestTruthy(t *testing.T) {
	for in, want := range map[string]bool{
		"": false, "null": false, "false": false, "0": false, "-0": false, "0.0": false, `""`: false,
		"true": true, "1": true, "-1e-9": true, `"0"`: true, `" "`: true, "[]": true, "{}": true, "1e400": true,
	} {
		if got := Truthy([]byte(in)); got != want {
			t.Errorf("Truthy(%s) = %v, want %v", in, got, want)
		}
	}
}
