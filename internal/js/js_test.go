package js

import (
	"strings"
	"testing"
)

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

func TestScalars(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`{"command":"ps aux\ndocker ps -a","timeout":30}`, []string{"command", "ps aux\ndocker ps -a", "timeout", "30"}},
		{`{"a\tb":["x\ty",{"k":null,"t":true}]}`, []string{"a\tb", "x\ty", "k", "t", "true"}},
		{` "just \"a\" string" `, []string{`just "a" string`}},
		{`{}`, nil},
		{`{"s":"caf\u00e9"}`, []string{"s", "café"}},
		{`{"broken":`, []string{`{"broken":`}},
		{``, nil},
	}
	for _, tt := range tests {
		var got []string
		Scalars([]byte(tt.in), func(s string) { got = append(got, s) })
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Scalars(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
