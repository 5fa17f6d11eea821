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

// On a terminal a snippet is wrapped between words to the terminal's
// width, each line indented; a terminal's own wrap at 80 columns cut
// "docker-compose" as "docke / r-compose" (issue 39, item 13).
func TestHitSnippetWrapsBetweenWords(t *testing.T) {
	ts := pidex.Time(1777629605000)
	snippet := "bash the services start with docker-compose up -d and the logs of every container follow with docker-compose logs -f web worker"
	segs := []pidex.Segment{{Text: snippet[:29]}, {Text: "docker-compose", Hit: true}, {Text: snippet[43:]}}
	h := pidex.Hit{Path: "/s/a.jsonl", SessionID: "s1", EntryID: "e1", Role: "toolResult", Timestamp: &ts, Segments: segs, Cwd: "/w/app"}
	for _, width := range []int{80, 40, 31} {
		var b bytes.Buffer
		if err := Hits(&b, []pidex.Hit{h}, true, width, nil); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		body := lines[1 : len(lines)-1]
		if len(body) < 2 {
			t.Fatalf("width %d: the snippet is not wrapped:\n%s", width, b.String())
		}
		var words []string
		for _, l := range body {
			plain := strings.NewReplacer(string(styleBold), "", sgrReset, "").Replace(l)
			if len(plain) > width || !strings.HasPrefix(plain, "  ") || strings.HasPrefix(plain, "   ") {
				t.Errorf("width %d: line %q", width, plain)
			}
			words = append(words, strings.Fields(plain)...)
		}
		if got := strings.Join(words, " "); got != snippet {
			t.Errorf("width %d: words broken or lost:\n%s", width, got)
		}
		if !strings.Contains(b.String(), string(styleBold)+"docker-compose"+sgrReset) && width >= 40 {
			t.Errorf("width %d: the match is not bold whole:\n%q", width, b.String())
		}
	}
}
