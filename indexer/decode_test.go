package indexer

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pidex-dev/pidex/schema"
)

// checkSameDecode fails when decodeLine and the standard library disagree
// on whether a line is malformed, or on what it holds.
func checkSameDecode(t *testing.T, b []byte) {
	t.Helper()
	fast, ferr := schema.DecodeLineFast(b)
	std, serr := schema.DecodeLine(b)
	if (fast == nil) != (std == nil) {
		t.Fatalf("%.200q: fast (%v, %v), stdlib (%v, %v)", b, fast != nil, ferr, std != nil, serr)
	}
	if fast != nil && !reflect.DeepEqual(fast, std) {
		t.Fatalf("%.200q: fast %+v, stdlib %+v", b, fast, std)
	}
}

var decodeCases = []string{
	`{"type":"message","id":"bad\*"}`, `{"a":1}{"b":2}`, `{"a":1} x`, "{\"a\":\"tab\there\"}",
	`{"a":01}`, `{"a":1,}`, `{"a":[1,2,]}`, `{"a":"\u12"}`, `{"a":"\ud800"}`, `{"a":tru}`, `{"a":1`,
	`{'a':1}`, `{"a":1e}`, `{"a":NaN}`, `{"message":{"role":"user","content":"x\q"}}`,
	`{"message":{"content":{"a":1 "b":2}}}`, "{\"a\":\"\x01\"}", "{\"a\":1}\r", ` {"a":1} `, `42`, `null`,
	`[]`, `"s"`, `{"id":5}`, `{"parentId":3,"type":"x"}`, `{"a":1e400}`, `{"type":"session","id":7,"cwd":"/x"}`,
	`{"type":"message","message":{"role":"user","timestamp":"x","content":null}}`,
	`{"type":"message","message":{"role":"user","content":null}}`,
	`{"type":"message","message":{"role":"assistant","content":[],"usage":{"input":"1"}}}`,
	`{"type":"label","targetId":"a","label":null}`, `{"type":"session_info","name":5}`,
	`{"type":"message","message":null}`, `{"type":"compaction","firstKeptEntryIndex":2.5}`,
	"{\"type\":\"x\",\"t\":\"\xff\xfe\"}", `{"type":"x","type":"y"}`, `{"TYPE":"x","Id":"y"}`,
}

func TestDecodeLineMatchesStdlib(t *testing.T) {
	for _, c := range decodeCases {
		checkSameDecode(t, []byte(c))
	}
	files, _ := filepath.Glob("../testdata/sessions/*/*.jsonl")
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			checkSameDecode(t, sc.Bytes())
		}
		fh.Close()
	}
}

func FuzzDecodeLine(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkSameDecode(t, b) })
}
