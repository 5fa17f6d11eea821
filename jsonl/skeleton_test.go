package jsonl

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// A Skeleton keeps everything but its long strings, each a mark whose
// Ref reads back, through Unescape, the string encoding/json decodes.
func TestSkeleton(t *testing.T) {
	long := strings.Repeat(`ab\"c\\d\u00e9\ud83d\ude00 \n`, 10_000) // escapes and a pair across buffer edges
	in := `{"type":"message","message":{"role":"toolResult","content":[{"type":"text","text":"` + long + `"},` +
		`{"type":"text","text":"short"}],"n":[1,2.5,true,null]},"other":"` + strings.Repeat(`x\n`, 2500) + `"}`
	sk, refs, partial, err := Skeleton(strings.NewReader(in), 1000, 1<<20)
	if err != nil || partial {
		t.Fatal(partial, err)
	}
	if len(refs) != 2 || !json.Valid(sk) {
		t.Fatalf("%d refs in %s", len(refs), sk)
	}
	want := `{"type":"message","message":{"role":"toolResult","content":[{"type":"text","text":"` + RefMark(0) + `"},` +
		`{"type":"text","text":"short"}],"n":[1,2.5,true,null]},"other":"` + RefMark(1) + `"}`
	if string(sk) != want {
		t.Errorf("skeleton\n got %.300s\nwant %.300s", sk, want)
	}
	for i, r := range refs {
		var dec string
		if err := json.Unmarshal([]byte(`"`+in[r.From:r.To]+`"`), &dec); err != nil {
			t.Fatalf("ref %d [%d, %d) is not a string's content: %v", i, r.From, r.To, err)
		}
		if got := unescapeAll(t, in[r.From:r.To]); got != dec {
			t.Errorf("ref %d: Unescape gives %d bytes, encoding/json %d", i, len(got), len(dec))
		}
	}
	var text []string
	if err := SplitRefs("a"+RefMark(0)+"b"+RefMark(1)+RefMark(0), func(s string) error { text = append(text, s); return nil }, func(i int) error {
		text = append(text, "#"+string(rune('0'+i)))
		return nil
	}); err != nil || strings.Join(text, "|") != "a|#0|b|#1||#0|" {
		t.Errorf("SplitRefs: %q, %v", text, err)
	}

	for _, tc := range []struct {
		in, want string
		partial  bool
		err      error
	}{
		{`{"a":"` + strings.Repeat("x", 2000) + `"}`, `{"a":"` + RefMark(0) + `"}`, false, nil},
		// a long key is cut, as Shrink cuts it
		{`{"` + strings.Repeat("k", 2000) + `":1}`, `{"` + strings.Repeat("k", 1000) + `…":1}`, false, nil},
		// past the budget, elements are left out
		{`[` + strings.Repeat(`"short",`, 1000) + `"x"]`, `[` + strings.Repeat(`"short",`, 499) + `"short"]`, true, nil},
		{`{"type":"m",` + strings.Repeat(`"k":"short",`, 1000) + `"x":1}`, `{"type":"m",` + strings.Repeat(`"k":"short",`, 665) + `"k":"short"}`, true, nil},
		{`{"a":"\ufdd0","b":"` + strings.Repeat("x", 2000) + `"}`, "", false, ErrMarked}, // the mark's character itself
		{`{"a":"` + "\ufdd0" + `"}`, "", false, ErrMarked},
	} {
		sk, _, partial, err := Skeleton(strings.NewReader(tc.in), 1000, 4000)
		if !errors.Is(err, tc.err) || string(sk) != tc.want || partial != tc.partial || err == nil && !json.Valid(sk) {
			t.Errorf("Skeleton(%.40q…) = %.60s…, %v, %v; want %.60s…, %v, %v", tc.in, sk, partial, err, tc.want, tc.partial, tc.err)
		}
	}
}

func unescapeAll(t *testing.T, content string) string {
	t.Helper()
	var b strings.Builder
	if err := Unescape(strings.NewReader(content), func(s string) error { b.WriteString(s); return nil }); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Unescape decodes as encoding/json does: every escape, surrogate pairs
// and lone surrogates, wherever the buffer's edges fall.
func TestUnescape(t *testing.T) {
	pieces := []string{`a`, `é`, `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`, `\u0041`, `\u00e9`, `\ud83d\ude00`,
		`\ud83d`, `\ude00`, `\ud83dx`, `\ud83d\u0041`, `\uD83D\uDE00`, ` `, "漢"}
	r := rand.New(rand.NewPCG(39, 6))
	cases := []string{"", `\u0000`, strings.Repeat("x", 64<<10-1) + `\ud83d\ude00`}
	for range 200 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	var b strings.Builder
	for b.Len() < 300<<10 {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	cases = append(cases, b.String())
	for _, c := range cases {
		var want string
		if err := json.Unmarshal([]byte(`"`+c+`"`), &want); err != nil {
			t.Fatalf("%.40q: %v", c, err)
		}
		if got := unescapeAll(t, c); got != want {
			t.Errorf("Unescape(%.60q) = %.60q, want %.60q", c, got, want)
		}
	}
	for _, bad := range []string{`\`, `\x`, `\u12`, `\u12g4`} {
		if err := Unescape(strings.NewReader(bad), func(string) error { return nil }); !errors.Is(err, ErrSyntax) {
			t.Errorf("Unescape(%q): %v", bad, err)
		}
	}
}

// A Skeleton and its strings read back cost kilobytes, whatever their
// size: a 32 MB string.
func TestSkeletonIsBounded(t *testing.T) {
	in := `{"type":"message","message":{"content":"` + strings.Repeat(`line of tool output\n`, 32<<20/21) + `"}}`
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, refs, _, err := Skeleton(strings.NewReader(in), 16<<10, 1<<20)
	if err != nil || len(refs) != 1 {
		t.Fatal(refs, err)
	}
	n := 0
	if err := Unescape(strings.NewReader(in[refs[0].From:refs[0].To]), func(s string) error { n += len(s); return nil }); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 || n != 32<<20/21*20 {
		t.Errorf("%d bytes read back, %d KB allocated", n, alloc>>10)
	}
}
