package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
)

// On a terminal the matched words are bold and each hit says how to open
// it; piped, a hit is one tab-separated line without escape codes.
func TestHits(t *testing.T) {
	ts := pidex.Time(1777629605000)
	h := pidex.Hit{Path: "/s/a.jsonl", SessionID: "s1", EntryID: "e1", Line: 3, Role: "user", Timestamp: &ts,
		Segments: []pidex.Segment{{Text: "fix the "}, {Text: "build", Hit: true}, {Text: "\tnow"}},
		Snippet:  "fix the build now", FirstMessage: "first\nmessage", Cwd: "/w/app"}
	var b bytes.Buffer
	if err := Hits(&b, []pidex.Hit{h}, true, 80, nil); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"app  first message  user e1", string(styleBold) + "build" + sgrReset, "pidex show s1 --leaf e1", "pidex resume s1 --leaf e1"} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := Hits(&b, []pidex.Hit{h}, false, 80, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || strings.Contains(b.String(), "\x1b") || len(strings.Split(lines[1], "\t")) != 12 {
		t.Errorf("piped output:\n%q", b.String())
	}
}
