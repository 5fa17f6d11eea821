package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/bench/internal/shape"
)

// -shape real measures like real session files: entries per MB and the
// line-size percentiles within 10% of the 146 real files, kinds and blocks
// in the proportions of the real fixtures (shape.Compare's tolerances).
// 300 sessions, 170 MB: a tenth of the benchmark corpus, the smallest whose
// figures do not hang on a few large sessions (with 100 sessions a seed in
// three puts custom entries off).
func TestRealShape(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := t.TempDir()
	if _, err := generate(config{out: dir, files: 300, size: 170_000_000, seed: 1, projects: 40, workers: 2, text: "realistic", plant: 50, shape: "real"}); err != nil {
		t.Fatal(err)
	}
	f, err := shape.Measure(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := shape.Compare(f, shape.RealSizes, shape.Real())
	var table strings.Builder
	shape.WriteRows(&table, rows)
	t.Logf("%d entries\n%s", f.Entries, table.String())
	for _, r := range rows {
		if !r.OK {
			t.Errorf("%s: %v, real %v", r.Name, r.Got, r.Want)
		}
	}
}

// A real-shaped corpus is valid pi (each file in its era's format), the
// same whatever the workers, and has every kind the classic one has.
func TestRealShapeIsValidPi(t *testing.T) {
	base := t.TempDir()
	var trees [2]map[string][]byte
	var st *stats
	for i, workers := range []int{1, 3} {
		out := filepath.Join(base, string(rune('a'+i)))
		var err error
		st, err = generate(config{out: out, files: 60, size: 30_000_000, seed: 2, projects: 5, workers: workers, text: "realistic", plant: 20, forks: 6, shape: "real"})
		if err != nil {
			t.Fatal(err)
		}
		trees[i] = readTree(t, out)
		if i == 0 {
			checkPi(t, out, st, true)
		}
	}
	for rel, x := range trees[0] {
		if !bytes.Equal(x, trees[1][rel]) {
			t.Errorf("%s differs between 1 and 3 workers", rel)
		}
	}
	versions := map[string]int{}
	for _, x := range trees[0] {
		switch {
		case bytes.HasPrefix(x, []byte(`{"type":"session","version":3,`)):
			versions["v3"]++
		case bytes.HasPrefix(x, []byte(`{"type":"session","version":2,`)):
			versions["v2"]++
		default:
			versions["v1"]++
		}
	}
	if versions["v1"] == 0 || versions["v3"] == 0 {
		t.Errorf("files by format %v: want v1 and v3", versions)
	}
	if len(st.forks) == 0 {
		t.Error("no forks written")
	}

	t.Logf("files by format %v", versions)
}

// Narration and short replies are whole sentences: every template filled
// in, nothing left of the formatting.
func TestShortTexts(t *testing.T) {
	g := newGen(buildPools(1), config{}, &realShape, nil)
	g.r = rand.New(rand.NewPCG(1, 2))
	g.sh, g.lang = g.shape, -1
	for i := 0; i < 2000; i++ {
		g.line = g.line[:0]
		if i%2 == 0 {
			g.shortStepText()
		} else {
			g.shortUserText()
		}
		// a text block, a list of them, or a plain string
		var block struct{ Text string }
		var blocks []struct{ Text string }
		var text string
		if json.Unmarshal(g.line, &block) == nil {
			text = block.Text
		} else if json.Unmarshal(g.line, &blocks) == nil && len(blocks) == 1 {
			text = blocks[0].Text
		} else if err := json.Unmarshal(g.line, &text); err != nil {
			t.Fatalf("%s: %v", g.line, err)
		}
		if text == "" || strings.Contains(text, "%!") || strings.Contains(text, "{ident}") || strings.Contains(text, "{path}") {
			t.Fatalf("not a filled-in sentence: %q", text)
		}
	}
}

// The classic shape (the default) is the corpus gencorpus wrote before
// -shape existed, byte for byte: the digest below is of the corpus written
// by gencorpus at fc01f73 with the same flags (sha256 over each file's
// path, a NUL and its bytes, in path order). Synthetic text, so that it
// does not depend on the Go installation; float rounding can differ on
// other architectures.
func TestClassicUnchanged(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("digest taken on amd64")
	}
	dir := t.TempDir()
	if _, err := generate(config{out: dir, files: 20, size: 2_000_000, seed: 9, projects: 3, workers: 1, forks: 2}); err != nil {
		t.Fatal(err)
	}
	tree := readTree(t, dir)
	h := sha256.New()
	for _, rel := range slices.Sorted(maps.Keys(tree)) {
		h.Write([]byte(rel + "\x00"))
		h.Write(tree[rel])
	}
	const want = "5988b32f02f5c3051f71e18a17ec027f27bf8caa5aa98119bae26ae9490b398c"
	if got := hex.EncodeToString(h.Sum(nil)); len(tree) != 20 || got != want {
		t.Errorf("%d files, digest %s, want 20 files, %s", len(tree), got, want)
	}
}
