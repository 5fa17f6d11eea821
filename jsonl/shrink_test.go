package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestShrink(t *testing.T) {
	long := strings.Repeat("ab", 50)
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,"b":[true,false,null],"c":"short","d":{}}`, `{"a":1,"b":[true,false,null],"c":"short","d":{}}`},
		{` [ 1 , -2.5e3 , "x" ] `, `[1,-2.5e3,"x"]`},
		{`"` + long + `"`, `"abababababababababab…"`},
		// never inside an escape or a character
		{`"abcdefghijklmnopq\u00e9jklmnopqrstuvwxyz"`, `"abcdefghijklmnopq…"`},
		{`"abcdefghijklmnopqr\"stuvwxyz"`, `"abcdefghijklmnopqr\"…"`},
		{`"abcdefghijklmnopqrs\"tuvwxyz"`, `"abcdefghijklmnopqrs…"`},
		{`"abcdefghijklmnopqrséééééééé"`, `"abcdefghijklmnopqrs…"`},
		// an escaped quote or backslash does not end a string
		{`["a\\",  "b\"c", "\\\\\""]`, `["a\\","b\"c","\\\\\""]`},
		// past the budget: elements dropped, the top two levels' members kept
		{`{"type":"m","message":{"content":["` + long + `","x","y"],"model":"m1","deep":{"k":1}},"ts":2}`,
			`{"type":"m","message":{"content":["abababababababababab…"],"model":"m1","deep":{}},"ts":2}`},
	} {
		got, err := Shrink(strings.NewReader(tc.in), 20, 40)
		if err != nil {
			t.Errorf("Shrink(%.40q): %v", tc.in, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("Shrink(%.40q)\n got %s\nwant %s", tc.in, got, tc.want)
		}
		if !json.Valid(got) {
			t.Errorf("Shrink(%.40q) = %s: not valid JSON", tc.in, got)
		}
	}
	for _, bad := range []string{strings.Repeat("[", 20000) + strings.Repeat("]", 20000), `{"a":1`, `{"a" 1}`, `[1 2]`, `{"a":1}x`, `"open`, `{1:2}`, ``, `]`} {
		if _, err := Shrink(strings.NewReader(bad), 20, 30); err == nil {
			t.Errorf("Shrink(%.40q) took it", bad)
		} else if !errors.Is(err, ErrSyntax) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("Shrink(%.40q): %v", bad, err)
		}
	}
}

// A string far longer than the reader's buffer, with escapes across its
// chunk boundaries, is scanned to its end.
func TestShrinkLongString(t *testing.T) {
	body := strings.Repeat(`x\\\"`, 100_000)
	got, err := Shrink(strings.NewReader(`{"s":"`+body+`","after":"ok"}`), 64, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ S, After string }
	if err := json.Unmarshal(got, &v); err != nil || v.After != "ok" || !strings.HasSuffix(v.S, "…") || len(v.S) > 70 {
		t.Errorf("got %s (%v)", got, err)
	}
}

// Whatever valid JSON it is given, Shrink returns valid JSON; what fits
// in its limits comes back as it was, white space aside.
func FuzzShrink(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b\"\\",{"c":null}],"d":"é\u00e9"}`, `"` + strings.Repeat(`\\\"é`, 40) + `"`, `[[],{},""]`} {
		f.Add(s, 10, 40)
	}
	f.Fuzz(func(t *testing.T, in string, maxString, budget int) {
		if !json.Valid([]byte(in)) || maxString < 1 || maxString > 1<<10 || budget < 0 || budget > 1<<12 {
			return
		}
		got, err := Shrink(strings.NewReader(in), maxString, budget)
		if err != nil {
			t.Fatalf("Shrink(%q): %v", in, err)
		}
		if !json.Valid(got) {
			t.Fatalf("Shrink(%q) = %q: not valid JSON", in, got)
		}
		var compact bytes.Buffer
		json.Compact(&compact, []byte(in))
		if len(in) < maxString && len(in) < budget && string(got) != compact.String() {
			t.Fatalf("Shrink(%q) = %q, want it as it was", in, got)
		}
	})
}
