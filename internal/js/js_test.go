package js

import (
	"encoding/json"
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

// unescapeShort decodes what it takes exactly as encoding/json does.
func FuzzStringValue(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\tc"`, `"q\"uote\\ \/ \b\f\r"`, `"caf\u00e9"`, `"\ud83d\ude00"`,
		`"bad \x"`, `"cut\"`, `"ctl` + "\x01" + `"`, `"in"side"`, "\"\xff\\n\"", `""`, `"\\"`, `"`, "\"\u2028\\n\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := unescapeShort(b)
		var want string
		err := json.Unmarshal(b, &want)
		if ok && (err != nil || got != want) {
			t.Fatalf("unescapeShort(%q) = %q; encoding/json: %q, %v", b, got, want, err)
		}
		if s, vok := StringValue(b); err == nil && (!vok || s != want) {
			t.Fatalf("StringValue(%q) = %q, %v; encoding/json: %q", b, s, vok, want)
		}
	})
}

func BenchmarkStringValue(b *testing.B) {
	v := []byte(`"` + strings.Repeat(`func main() {\n\tfmt.Println(\"hello, 世界\")\n}\n`, 40) + `"`)
	b.SetBytes(int64(len(v)))
	for b.Loop() {
		if _, ok := StringValue(v); !ok {
			b.Fatal("not decoded")
		}
	}
}
