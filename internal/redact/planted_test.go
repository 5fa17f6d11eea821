package redact

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// Every planted kind is redacted in its text, as a JSON string and as a
// value under its own name, and nothing of it is left.
func TestPlanted(t *testing.T) {
	if len(catalogtest.Planted) < 20 {
		t.Fatalf("%d kinds planted, want at least 20", len(catalogtest.Planted))
	}
	for _, p := range catalogtest.Planted {
		got, n := String(p.Text)
		if n == 0 || leftOf(got, p) {
			t.Errorf("%s: String(%q) = %q (%d)", p.Kind, p.Text, got, n)
		}
		if again, m := String(got); m != 0 || again != got {
			t.Errorf("%s: redacting twice changed %q to %q (%d)", p.Kind, got, again, m)
		}
		line, _ := json.Marshal(map[string]any{"text": p.Text, "password": p.Secret, "n": 1})
		red, k := Line(line)
		if k < 2 || leftOf(string(red), p) || !json.Valid(red) {
			t.Errorf("%s: Line(%s) = %s (%d)", p.Kind, line, red, k)
		}
		if c := strings.Count(string(red), Marker); c != k {
			t.Errorf("%s: Line counted %d, wrote %d markers: %s", p.Kind, k, c, red)
		}
	}
}

func leftOf(s string, p catalogtest.Plant) bool {
	s = strings.ToLower(s)
	for _, probe := range p.Probes() {
		if strings.Contains(s, probe) {
			return true
		}
	}
	return false
}

// Which layer catches which kind: gitleaks' rules alone, pidex's alone
// (go test -v -run TestLayers). Not a pass/fail: the figures behind
// BENCHMARKS.md's.
func TestLayers(t *testing.T) {
	var gl, own, old int
	for _, p := range catalogtest.Planted {
		s := p.Text
		lower := strings.ToLower(s)
		g := gitleaks().find(s, lower, nil)
		o := findCut(s, findAssignments(s, lower, findShapes(s, nil)))
		gOK, oOK := !leftOf(replace(s, merge(s, g)), p), !leftOf(replace(s, merge(s, o)), p)
		if gOK {
			gl++
		}
		if oOK {
			own++
		}
		// The shapes alone were the redactor before gitleaks.
		if !leftOf(replace(s, merge(s, findShapes(s, nil))), p) {
			old++
		}
		t.Logf("%-28s gitleaks %-5v pidex %v", p.Kind, gOK, oOK)
	}
	t.Logf("of %d kinds: gitleaks' rules alone %d, pidex's alone %d, pidex's shapes alone (the redactor before) %d",
		len(catalogtest.Planted), gl, own, old)
}

// BenchmarkLine redacts real sessions' lines (testdata/sessions/--real--),
// as push --redact does: the speed BENCHMARKS.md quotes.
func BenchmarkLine(b *testing.B) {
	files, _ := filepath.Glob("../../testdata/sessions/--real--/*.jsonl")
	var lines [][]byte
	size := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) > 0 {
				lines = append(lines, l)
				size += len(l)
			}
		}
	}
	gitleaks()
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		for _, l := range lines {
			Line(l)
		}
	}
}

// GitleaksVersion is the version go.mod requires (it names the ruleset a
// team catalog's files were pushed under).
func TestGitleaksVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	want := "github.com/zricethezav/gitleaks/v8 " + GitleaksVersion + "\n"
	if !strings.Contains(string(mod), want) {
		t.Errorf("go.mod does not require %q", strings.TrimSpace(want))
	}
}
