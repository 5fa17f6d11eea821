package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
)

// stdSession is what encoding/json writes for s today (the encoder of
// WriteJSONLines), without the newline.
func stdSession(t testing.TB, s pidex.Session) ([]byte, error) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// sameAsStd checks that appendSession writes encoding/json's bytes for s,
// appending to a non-empty buffer, or declines exactly when encoding/json
// fails; and that the whole document matches WriteJSONLines'.
func sameAsStd(t testing.TB, s pidex.Session) {
	t.Helper()
	want, wantErr := stdSession(t, s)
	prefix := []byte("[\n")
	got, ok := appendSession(append([]byte(nil), prefix...), &s)
	switch {
	case wantErr != nil && ok:
		t.Fatalf("encoding/json fails (%v), appendSession wrote %q", wantErr, got)
	case wantErr != nil:
		if !bytes.Equal(got, prefix) {
			t.Fatalf("appendSession declined but left %q", got)
		}
	case !ok:
		t.Fatalf("appendSession declined; encoding/json writes %s", want)
	case !bytes.Equal(got[len(prefix):], want):
		t.Fatalf("appendSession differs from encoding/json:\n got %q\nwant %q", got[len(prefix):], want)
	}
	docsMatch(t, []pidex.Session{s, s})
}

// docsMatch checks WriteSessionsJSON against WriteJSONLines: the same
// bytes, or the same error and nothing written.
func docsMatch(t testing.TB, ss []pidex.Session) {
	t.Helper()
	var got, want bytes.Buffer
	gotErr := WriteSessionsJSON(&got, ss)
	wantErr := WriteJSONLines(&want, ss)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("error %v, encoding/json's %v", gotErr, wantErr)
	}
	if g, w := got.Bytes(), want.Bytes(); !bytes.Equal(g, w) {
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		from := max(i-60, 0)
		t.Fatalf("document differs from WriteJSONLines' at byte %d of %d (want %d):\n got …%q\nwant …%q",
			i, len(g), len(w), g[from:min(i+60, len(g))], w[from:min(i+60, len(w))])
	}
}

func ptr[T any](v T) *T { return &v }

// baseSession has every field set, so a case changes one.
func baseSession() pidex.Session {
	return pidex.Session{
		Path:              "/home/ann/.pi/agent/sessions/--home-ann-proj--/2026-09-14T10-00-00-000Z_abc.jsonl",
		ID:                "01a006b8-6c28-762d-b68a-dec1594048eb",
		Cwd:               "/home/ann/proj",
		Name:              ptr("onboarding notes"),
		ParentSessionPath: ptr("/home/ann/.pi/agent/sessions/--home-ann-proj--/parent.jsonl"),
		Created:           ptr(pidex.Time(1789380000000)),
		Modified:          pidex.Time(1789383600123),
		MessageCount:      42,
		FirstMessage:      "fix the build",
		EntryCount:        57,
		LeafID:            ptr("866a783e"),
		BranchPoints:      2,
		Models:            []string{"anthropic/claude-opus-4-5", "openai/gpt-5"},
		Tokens:            pidex.Tokens{Input: 19885845, Output: 2579151, CacheRead: 347845408, CacheWrite: 3485290, Total: 373795694},
		Cost:              188.643916895,
		SizeBytes:         39725985,
		Source:            pidex.SourcePi,
		FileID:            7,
	}
}

// trickyStrings are the strings whose JSON encodings differ most between
// encoders.
func trickyStrings() []string {
	ss := []string{
		"", `"`, `\`, `\"`, `a"b\c`, "<>&", "<script>&amp;</script>",
		"\x7f", "a\x7fb", "\u2028", "\u2029", "x\u2028y\u2029z", "\u202a\u2027",
		"日本語のセッション", "검색", "emoji 🎉👩‍👩‍👧 flag 🇯🇵",
		"\xff", "\xfe\xff", "a\xc3", "\xc3(", "\xe2\x80", "\xe2\x80\xa8\xe2\x80", "\xed\xa0\x80", // surrogate
		"\xf4\x90\x80\x80", // past U+10FFFF
		"\xc0\x80",         // overlong NUL
		"\ufffd", "\u0080\u009b\u009f", "\u00a0", "\U0010ffff",
		strings.Repeat("long text ", 100) + "\n" + strings.Repeat("é", 50),
	}
	for c := 0; c < 0x20; c++ {
		ss = append(ss, string(rune(c)), "a"+string(rune(c))+"b")
	}
	var all strings.Builder
	for c := 0; c < 0x80; c++ {
		all.WriteByte(byte(c))
	}
	for c := 0x80; c < 0x100; c++ { // every invalid lone byte
		all.WriteByte(byte(c))
		ss = append(ss, string([]byte{byte(c)}))
	}
	return append(ss, all.String())
}

func TestAppendSessionStrings(t *testing.T) {
	for i, str := range trickyStrings() {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			s := baseSession()
			s.Path, s.ID, s.Cwd, s.FirstMessage, s.Source = str, str, str, str, str
			s.Name, s.ParentSessionPath, s.LeafID = &str, &str, &str
			s.Models = []string{str, "x" + str, str}
			s.Machine = str
			sameAsStd(t, s)
		})
	}
}

// stdString is encoding/json's encoding of s, without HTML escapes.
func stdString(t testing.TB, s string) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// skipPlain reads 8 bytes at a time: every byte that needs a look must be
// found wherever it falls in a word, alone or beside others, and in the
// tail of fewer than 8 bytes.
func TestAppendJSONStringAlignment(t *testing.T) {
	specials := []string{"\x00", "\x1f", " ", "\"", "\\", "\x7f", "\x80", "\xff", "é", "日", "🎉", "\u2028", "\u2029",
		"\xe2\x80", "\"\\", "\x01\xff\"", "\xe2\x80\xa8\n", "!#[]", "\x1f\x20\x21\x22"}
	for _, sp := range specials {
		for pad := 0; pad <= 17; pad++ {
			for tail := 0; tail <= 9; tail++ {
				s := strings.Repeat("a", pad) + sp + strings.Repeat("z", tail)
				if got, want := string(appendJSONString(nil, s)), stdString(t, s); got != want {
					t.Fatalf("%q: got %s, want %s", s, got, want)
				}
			}
		}
	}
}

func FuzzJSONString(f *testing.F) {
	for _, s := range trickyStrings() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(appendJSONString([]byte("x"), s)), "x"+stdString(t, s); got != want {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

func TestAppendSessionFields(t *testing.T) {
	tests := []struct {
		name string
		edit func(*pidex.Session)
	}{
		{"every field", func(*pidex.Session) {}},
		{"zero session", func(s *pidex.Session) { *s = pidex.Session{} }},
		{"nil pointers", func(s *pidex.Session) { s.Name, s.ParentSessionPath, s.Created, s.LeafID = nil, nil, nil, nil }},
		{"pointers to empty", func(s *pidex.Session) {
			s.Name, s.ParentSessionPath, s.LeafID = ptr(""), ptr(""), ptr("")
			s.Created = ptr(pidex.Time(0))
		}},
		{"nil models", func(s *pidex.Session) { s.Models = nil }},
		{"empty models", func(s *pidex.Session) { s.Models = []string{} }},
		{"one empty model", func(s *pidex.Session) { s.Models = []string{""} }},
		{"machine set", func(s *pidex.Session) { s.Machine = "laptop" }},
		{"a subagent", func(s *pidex.Session) { s.SpawnedBy, s.Run = "/p/parent.jsonl", "r1/run-0" }},
		{"subagents, nested", func(s *pidex.Session) {
			kid := baseSession()
			kid.SpawnedBy, kid.Run = s.Path, "Scout"
			grandkid := baseSession()
			grandkid.SpawnedBy, grandkid.Run, grandkid.Name = kid.Path, "Scout.Grep", nil
			kid.Subagents = []pidex.Session{grandkid}
			s.Subagents = []pidex.Session{kid, {}}
		}},
		{"subagents empty", func(s *pidex.Session) { s.Subagents = []pidex.Session{} }},
		{"machine empty", func(s *pidex.Session) { s.Machine = "" }},
		{"file id", func(s *pidex.Session) { s.FileID = math.MinInt64 }},
		{"huge ints", func(s *pidex.Session) {
			s.MessageCount, s.EntryCount, s.BranchPoints, s.SizeBytes = math.MaxInt64, math.MinInt64, -1, 1<<53+1
		}},
		// Time's MarshalJSON: extended years, and null outside JavaScript's range.
		{"time before 1970", func(s *pidex.Session) { s.Created, s.Modified = ptr(pidex.Time(-1)), -86400000 }},
		{"time extended years", func(s *pidex.Session) { s.Created, s.Modified = ptr(pidex.Time(-8.64e15)), 8.64e15 }},
		{"time year 10000", func(s *pidex.Session) { s.Created, s.Modified = ptr(pidex.Time(253402300800000)), 253402300799999 }},
		{"time out of range", func(s *pidex.Session) { s.Created, s.Modified = ptr(pidex.Time(8.64e15+1)), math.MinInt64 }},
	}
	floats := []float64{
		0, math.Copysign(0, -1), 1, -1, 0.5, 1e-6, 1e-7, -1e-7, 9.99999e-7, 1e20, 1e21, -1e21, 1.5e21, 123456789.125,
		0.1 + 0.2, 1e-300, 5e-324, math.MaxFloat64, -math.MaxFloat64, 1 << 53, 1<<53 + 2, 1e100, 12345678901234567890,
		float64(math.MaxInt64), 188.643916895, 1e-10, 2.5e-9, 1e-100,
	}
	for _, f := range floats {
		tests = append(tests,
			struct {
				name string
				edit func(*pidex.Session)
			}{fmt.Sprintf("float %g", f), func(s *pidex.Session) {
				s.Cost = f
				s.Tokens = pidex.Tokens{Input: f, Output: -f, CacheRead: f, CacheWrite: f / 3, Total: f / 7}
			}})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := baseSession()
			tc.edit(&s)
			sameAsStd(t, s)
		})
	}
}

// A NaN or an infinity goes to encoding/json, which fails the whole
// listing with its error, as WriteJSONLines did.
func TestAppendSessionNonFinite(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for field := range 6 {
			s := baseSession()
			p := [...]*float64{&s.Tokens.Input, &s.Tokens.Output, &s.Tokens.CacheRead, &s.Tokens.CacheWrite, &s.Tokens.Total, &s.Cost}[field]
			*p = f
			t.Run(fmt.Sprintf("%g in field %d", f, field), func(t *testing.T) {
				sameAsStd(t, s)
				var buf bytes.Buffer
				if err := WriteSessionsJSON(&buf, []pidex.Session{baseSession(), s}); err == nil || buf.Len() != 0 {
					t.Fatalf("err %v, wrote %d bytes; want the error and nothing written", err, buf.Len())
				}
			})
		}
	}
}

// A subagent's NaN fails the listing as its parent's would.
func TestAppendSessionNonFiniteSubagent(t *testing.T) {
	s := baseSession()
	kid := baseSession()
	kid.Cost = math.NaN()
	s.Subagents = []pidex.Session{baseSession(), kid}
	sameAsStd(t, s)
	var buf bytes.Buffer
	if err := WriteSessionsJSON(&buf, []pidex.Session{baseSession(), s}); err == nil || buf.Len() != 0 {
		t.Fatalf("err %v, wrote %d bytes; want the error and nothing written", err, buf.Len())
	}
}

// A listing streamed in chunks (docsMatch: byte for byte encoding/json's)
// still prints nothing when its last session cannot be encoded.
func TestWriteSessionsJSONLongListing(t *testing.T) {
	ss := genSessions(2000)
	docsMatch(t, ss)
	bad := baseSession()
	bad.Cost = math.NaN()
	var buf bytes.Buffer
	if err := WriteSessionsJSON(&buf, append(ss, bad)); err == nil || buf.Len() != 0 {
		t.Fatalf("err %v, wrote %d bytes; want the error and nothing written", err, buf.Len())
	}
	if err := WriteSessionsJSON(&buf, ss); err != nil || buf.Len() < 200<<10 {
		t.Fatalf("streamed %d bytes: %v", buf.Len(), err)
	}
}

func TestWriteSessionsJSONShape(t *testing.T) {
	docsMatch(t, nil)
	docsMatch(t, []pidex.Session{})
	docsMatch(t, []pidex.Session{baseSession()})
	docsMatch(t, []pidex.Session{baseSession(), {}, baseSession()})
	var buf bytes.Buffer
	if err := WriteSessionsJSON(&buf, []pidex.Session{{}, {}}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "[\n{") || !strings.HasSuffix(buf.String(), "}\n]\n") || strings.Count(buf.String(), "\n") != 4 {
		t.Fatalf("not one element per line:\n%s", buf.String())
	}
}

// The listings of every corpus the other tests index, pi's, oh-my-pi's,
// OpenClaw's and the ccusage comparison's, encode as encoding/json
// encodes them.
func TestWriteSessionsJSONCorpora(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes the test corpora")
	}
	td := filepath.Join("..", "..", "testdata")
	e, err := engine.Open(context.Background(), engine.Options{
		DBPath: filepath.Join(t.TempDir(), "c.sqlite"),
		Roots: []string{
			filepath.Join(td, "sessions"),
			"omp:" + filepath.Join(td, "sessions-omp", "agent", "sessions"),
			"omp:" + filepath.Join(td, "sessions-omp", "profiles", "work", "agent", "sessions"),
			"openclaw:" + filepath.Join(td, "sessions-openclaw", "agents"),
			filepath.Join(td, "ccusage", "sessions"),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	ss, err := e.List(context.Background(), pidex.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]int{}
	for _, s := range ss {
		sources[s.Source]++
	}
	if len(ss) < 40 || sources[pidex.SourcePi] == 0 || sources[pidex.SourceOmp] == 0 || sources[pidex.SourceOpenClaw] == 0 {
		t.Fatalf("corpora not indexed: %d sessions, by source %v", len(ss), sources)
	}
	t.Logf("%d sessions, by source %v", len(ss), sources)
	for _, s := range ss {
		t.Run(s.Path, func(t *testing.T) { sameAsStd(t, s) })
	}
	docsMatch(t, ss)
}

func FuzzSessionJSON(f *testing.F) {
	for _, s := range trickyStrings() {
		f.Add(s, "", 0.0, 1e21, int64(0), false)
	}
	f.Add("a\u2028b", "\xff", 1e-7, 0.1+0.2, int64(-1), true)
	f.Add("", "", math.NaN(), math.Inf(1), int64(8.64e15+1), true)
	f.Fuzz(func(t *testing.T, s1, s2 string, f1, f2 float64, n int64, flag bool) {
		s := pidex.Session{
			Path: s1, ID: s2, Cwd: s1 + s2, FirstMessage: s2 + s1, Source: s1,
			Name: &s1, LeafID: &s2,
			Created: ptr(pidex.Time(n)), Modified: pidex.Time(n / 3),
			MessageCount: n, EntryCount: -n, BranchPoints: n >> 7, SizeBytes: n ^ 0x5555,
			Models: []string{s1, s2},
			Tokens: pidex.Tokens{Input: f1, Output: f2, CacheRead: f1 * f2, CacheWrite: f1 + f2, Total: f1 / 3},
			Cost:   f2,
		}
		if flag { // the other halves of the nil/empty choices
			s.Name, s.ParentSessionPath, s.Created = nil, &s1, nil
			s.Models = nil
			if n%2 == 0 {
				s.Models = []string{}
			}
			s.Machine = s2
		}
		sameAsStd(t, s)
	})
}

// genSessions is a listing like a real one of n sessions: long paths,
// first messages of a few hundred bytes, some non-ASCII, several models.
func genSessions(n int) []pidex.Session {
	models := []string{"anthropic/claude-opus-4-5", "anthropic/claude-sonnet-4-5", "openai/gpt-5", "google/gemini-2.5-pro"}
	ss := make([]pidex.Session, n)
	for i := range ss {
		id := fmt.Sprintf("01a006b8-6c28-762d-b68a-%012x", i)
		msg := strings.Repeat(fmt.Sprintf("Session %d: fix the flaky test in the scheduler, then \"rerun\" it. ", i), 1+i%7)
		if i%5 == 0 {
			msg += "全文検索のテスト：インデックスを作り直す\n\tdone"
		}
		s := pidex.Session{
			Path:         fmt.Sprintf("/home/user/.pi/agent/sessions/--home-user-proj-%02d--/2026-08-15T18-39-04-744Z_%s.jsonl", i%40, id),
			ID:           id,
			Cwd:          fmt.Sprintf("/home/user/proj-%02d", i%40),
			Created:      ptr(pidex.Time(1789380000000 + int64(i)*61_000)),
			Modified:     pidex.Time(1789390000000 + int64(i)*97_531),
			MessageCount: int64(i * 13 % 9000),
			FirstMessage: msg,
			EntryCount:   int64(i * 17 % 9500),
			LeafID:       ptr(fmt.Sprintf("%08x", i*2654435761%(1<<32))),
			BranchPoints: int64(i % 4),
			Models:       models[:1+i%len(models)],
			Tokens: pidex.Tokens{
				Input: float64(i * 6629), Output: float64(i * 859), CacheRead: float64(i * 115948),
				CacheWrite: float64(i * 1161), Total: float64(i * 124597),
			},
			Cost:      float64(i)*0.0628813 + 0.001,
			SizeBytes: int64(i * 13241),
			Source:    pidex.SourcePi,
		}
		if i%3 == 0 {
			s.Name = ptr(fmt.Sprintf("notes %d", i))
		}
		if i%11 == 0 {
			s.ParentSessionPath = ptr(s.Path)
		}
		ss[i] = s
	}
	return ss
}

func TestGenSessionsMatch(t *testing.T) { docsMatch(t, genSessions(300)) }

// BenchmarkSessionsJSON compares the hand-written encoder with
// encoding/json (WriteJSONLines) on a listing of 3,000 sessions.
func BenchmarkSessionsJSON(b *testing.B) {
	ss := genSessions(3000)
	b.Run("hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := WriteSessionsJSON(io.Discard, ss); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := WriteJSONLines(io.Discard, ss); err != nil {
				b.Fatal(err)
			}
		}
	})
}
