package schema

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var blockCases = []string{
	`[]`, `null`, `[{"type":"text","text":"hi"}]`,
	`[{"type":"text","text":"a","text":"b"}]`,    // a repeated key: the last wins
	`[{"TYPE":"text","Text":"case-blind keys"}]`, // encoding/json matches keys case-insensitively
	`[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls -l","n":[1,2.5e3,null,true]}}]`,
	`[{"type":"thinking","thinking":"hm","thinkingSignature":"sig","redacted":true}]`,
	`[{"type":"image","data":"aGk=","mimeType":"image/png"}]`,
	`[{"type":"text","text":"esc \" \\ \/ \b\f\n\r\t \u001b[0m \u00e9 \ud83d\ude00 \ud800 lone"}]`,
	"[{\"type\":\"text\",\"text\":\"bad utf8 \xff\xfe here\"}]",
	`[{"type":"text","text":"x"},"not an object",3]`, // wrong-typed elements
	`[{"type":"text","text":5}]`,                     // a wrong-typed field
	`[{"type":"text","text":"unterminated"`,          // a syntax error
	`{"type":"text"}`,                                // not an array
	`[{"type":"text","redacted":"yes"}]`,
	`[{"type":"text","text":"日本語のテキスト、😀 emoji"}]`,
	// Escapes other than surrogates take goccy's path.
	`[{"type":"text","text":"\u001b[31mred\u001b[0m \u200d\ufe0f \uFFFD \u00E9 \u0000 \u2028 \u007f"}]`,
	`[{"type":"toolCall","id":"c","name":"bash","arguments":{"out":"\u001b[1m","\u0041":"key escaped"}}]`,
	`[{"type":"text","text":"\uD83D\uDE00 upper pair, \uDBFF\uDFFF, lone \udfff, \uDC00 then \uD800"}]`,
	`[{"type":"text","text":"\\ud800 is text, not an escape"}]`,
	`[{"type":"text","text":"bad \u12 escape"}]`,
	`[{"type":"text","text":"bad \uzzzz escape"}]`,
	`[{"type":"text","text":"ends in \u`,
}

func TestSurrogateEscape(t *testing.T) {
	for in, want := range map[string]bool{
		``: false, `\u`: false, `\ud8`: true, `\ud7ff`: false, `\ud800`: true, `\uDFFF`: true,
		`\uDbff`: true, `\ue000`: false, `\u001b \u200d`: false, `x\u0041\uDC00`: true,
		`\\ud800`: true, // an escaped backslash: a false alarm, which is safe
	} {
		if got := surrogateEscape([]byte(in)); got != want {
			t.Errorf("surrogateEscape(%q) = %v, want %v", in, got, want)
		}
	}
}

// Blocks decode to what encoding/json makes of them, or fail alike, on
// every content of the test sessions and on the corners above.
func TestBlocksMatchStdlib(t *testing.T) {
	for _, c := range blockCases {
		checkSameBlocks(t, []byte(c))
	}
	files, _ := filepath.Glob("../testdata/sessions/*/*.jsonl")
	n := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var l struct {
				Message struct {
					Content json.RawMessage `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &l) == nil && len(l.Message.Content) > 0 && l.Message.Content[0] == '[' {
				checkSameBlocks(t, l.Message.Content)
				n++
			}
		}
		fh.Close()
	}
	if n < 100 {
		t.Errorf("only %d contents compared", n)
	}
}

func FuzzBlocks(f *testing.F) {
	for _, c := range blockCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkSameBlocks(t, b) })
}

func checkSameBlocks(t *testing.T, b []byte) {
	t.Helper()
	got, gerr := decodeBlocks(Content(b))
	var want []Block
	werr := json.Unmarshal(b, &want)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%q: error %v, encoding/json %v", b, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v\nwant %#v", b, got, want)
	}
}
