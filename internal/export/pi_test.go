package export_test

import (
	"context"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/htmltest"
	"github.com/pidex-dev/pidex/internal/tooltest"
)

// pi's own HTML export (`pi --export FILE OUT`, pi 1.6.0) of each test
// session, opened in Chromium, shows no entry that ours does not: every
// entry pi renders on the branch it opens on (#messages [id^=entry-]) is
// shown by ours when it opens, and the facts of pi's header (models, tool
// calls, tokens and cost, as pi sums them over every entry) are ours too.
// pi runs on copies of the files in a folder of their own, with a HOME
// of its own: it migrates an older file in place when it opens it. Ours is
// exported from a catalog of the copies pi left, so that a migrated v1
// file has the ids pi gave it on both sides.
func TestHTMLShowsWhatPiShows(t *testing.T) {
	clients, path := tooltest.Clients(t)
	root := t.TempDir()
	var files []string
	err := filepath.WalkDir("../../testdata/sessions", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		rel, _ := filepath.Rel("../../testdata/sessions", p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(root, rel)
		files = append(files, dst)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}

	// pi's exports, a few at a time; a file pi refuses (no valid header,
	// nothing to export) has none.
	home, out := t.TempDir(), t.TempDir()
	piHTML := map[string]string{} // by the copy's path
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(4)
	for _, f := range files {
		g.Go(func() error {
			html := filepath.Join(out, strings.ReplaceAll(strings.TrimPrefix(f, root), string(filepath.Separator), "_")+".html")
			cmd := exec.Command(tooltest.Bin(clients, "pi"), "--export", f, html)
			cmd.Env = append(os.Environ(), "PATH="+path, "HOME="+home, "PI_OFFLINE=1")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Logf("pi --export %s: %v: %s", filepath.Base(f), err, strings.TrimSpace(string(b)))
				return nil
			}
			mu.Lock()
			piHTML[f] = html
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait()

	ctx := context.Background()
	eng, err := engine.Open(ctx, engine.Options{DBPath: filepath.Join(t.TempDir(), "db.sqlite"), Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	if _, err := eng.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	sessions, err := eng.List(ctx, pidex.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := htmltest.NewTab(t)
	compared, real := 0, 0
	for _, s := range sessions {
		pi, ok := piHTML[s.Path]
		if !ok {
			continue
		}
		name := filepath.Base(s.Path)
		ours := filepath.Join(out, name+".pidex.html")
		if err := os.WriteFile(ours, []byte(write(t, eng, s.Path, pidex.ExportOptions{Format: pidex.FormatHTML})), 0o644); err != nil {
			t.Fatal(err)
		}
		open(b, "file://"+pi)
		piIDs := js[[]string](b, `[...document.querySelectorAll('#messages [id^="entry-"]')].map(e => e.id.slice(6))`)
		facts := js[map[string]string](b, `Object.fromEntries([...document.querySelectorAll(".header-info .info-item")].map(i => [i.querySelector(".info-label").textContent.replace(":", ""), i.querySelector(".info-value").textContent]))`)
		open(b, "file://"+ours)
		shown := js[[]string](b, visible)
		for _, id := range piIDs {
			if !slices.Contains(shown, id) {
				t.Errorf("%s: pi shows entry %s, ours does not (ours shows %v)", name, id, shown)
			}
		}
		if len(piIDs) == 0 && len(shown) > 0 {
			t.Logf("%s: pi shows no entry, ours %d", name, len(shown))
		}
		compared++
		if strings.Contains(s.Path, "--real--") {
			real++
		}
		if len(facts) == 0 {
			continue // pi wrote no header (no branch it could open)
		}
		// pi sums the assistant's calls: ours are a line of its LLM calls.
		var assistant piSums
		if line := js[string](b, `(document.querySelector('#sources li[data-source="assistant"]') || {}).textContent || ""`); line != "" {
			if assistant, ok = parseSources(line); !ok {
				t.Fatalf("%s: the assistant's calls read %q", name, line)
			}
		}
		for fact, want := range map[string]string{
			"Tool Calls": js[string](b, `document.getElementById("tool-calls").textContent`),
			"Tokens":     piTokens(assistant.tokens),
			"Models":     strings.Replace(js[string](b, `document.getElementById("models").textContent`), "none", "unknown", 1),
		} {
			got := facts[fact]
			if fact == "Models" {
				got, want = sortedList(got), sortedList(want)
			}
			if got != want {
				t.Errorf("%s: pi's %s is %q, ours %q", name, fact, got, want)
			}
		}
		// pi writes the cost with three decimals (and, by a slip of its
		// template, without its $), ours in cents.
		if cost, err := strconv.ParseFloat(strings.TrimPrefix(facts["Cost"], "$"), 64); err != nil || math.Abs(cost-assistant.cost) > 0.0051 {
			t.Errorf("%s: pi's cost is %q, ours $%.4f", name, facts["Cost"], assistant.cost)
		}
	}
	if compared < 20 || real < 4 {
		t.Errorf("compared %d sessions with pi's export (%d real ones), want every test session pi exports", compared, real)
	}
	t.Logf("compared %d sessions with pi's export (%d real ones)", compared, real)
}

// piSums are the tokens and cost of one line of the export's LLM calls
// ("assistant: 9 calls, $0.12, 89,521 tokens (input 48,024, …)").
type piSums struct {
	tokens pidex.Tokens
	cost   float64
}

var reSources = regexp.MustCompile(`^\S+: [\d,]+ calls?, \$([\d,.]+), [\d,]+ tokens \(input ([\d,]+), output ([\d,]+), cache read ([\d,]+), cache write ([\d,]+)\)$`)

func parseSources(line string) (piSums, bool) {
	m := reSources.FindStringSubmatch(line)
	if m == nil {
		return piSums{}, false
	}
	var n [5]float64
	for i := range n {
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[i+1], ",", ""), 64)
		if err != nil {
			return piSums{}, false
		}
		n[i] = v
	}
	return piSums{cost: n[0], tokens: pidex.Tokens{Input: n[1], Output: n[2], CacheRead: n[3], CacheWrite: n[4]}}, true
}

// piTokens writes token counts as pi's export header does (formatTokens):
// ↑input ↓output Rcache-read Wcache-write, each only when not 0.
func piTokens(tk pidex.Tokens) string {
	format := func(n float64) string {
		switch {
		case n < 1000:
			return strconv.FormatFloat(n, 'f', -1, 64)
		case n < 10000:
			return strconv.FormatFloat(n/1000, 'f', 1, 64) + "k"
		case n < 1000000:
			return strconv.FormatFloat(math.Round(n/1000), 'f', -1, 64) + "k"
		}
		return strconv.FormatFloat(n/1000000, 'f', 1, 64) + "M"
	}
	var parts []string
	for _, p := range []struct {
		mark string
		n    float64
	}{{"↑", tk.Input}, {"↓", tk.Output}, {"R", tk.CacheRead}, {"W", tk.CacheWrite}} {
		if p.n != 0 {
			parts = append(parts, p.mark+format(p.n))
		}
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " ")
}

func sortedList(s string) string {
	parts := strings.Split(s, ", ")
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}
