package pidex_test

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The README's package diagram is the import graph: each line of the
// block after "<!-- package diagram -->" names a package and, after its
// arrow, every package of the project it imports (test files aside). A
// package added, removed or rewired without the diagram fails here.
func TestREADMEPackageDiagram(t *testing.T) {
	want := readmeDiagram(t)
	got := importGraph(t)
	for pkg, deps := range got {
		d, ok := want[pkg]
		switch {
		case !ok:
			t.Errorf("README's diagram lacks %s (it imports %s)", pkg, strings.Join(deps, " "))
		case !slices.Equal(d, deps):
			t.Errorf("README: %s ─► %s; go list: %s ─► %s", pkg, strings.Join(d, " "), pkg, strings.Join(deps, " "))
		}
	}
	for pkg := range want {
		if _, ok := got[pkg]; !ok {
			t.Errorf("README's diagram names %s, which go list does not", pkg)
		}
	}
}

const module = "github.com/pidex-dev/pidex"

// readmeDiagram parses the diagram: "name  ─► dep dep …" (a name alone
// imports nothing of the project).
func readmeDiagram(t *testing.T) map[string][]string {
	f, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	state := 0 // 0: before the marker, 1: before the block, 2: in it
	for sc.Scan() {
		line := sc.Text()
		switch {
		case state == 0 && strings.TrimSpace(line) == "<!-- package diagram -->":
			state = 1
		case state == 1 && strings.HasPrefix(line, "```"):
			state = 2
		case state == 2 && strings.HasPrefix(line, "```"):
			return out
		case state == 2 && strings.TrimSpace(line) != "":
			name, deps, _ := strings.Cut(line, "─►")
			fields := strings.Fields(deps)
			slices.Sort(fields)
			out[strings.TrimSpace(name)] = fields
		}
	}
	t.Fatal("README.md has no package diagram (a fenced block after <!-- package diagram -->)")
	return nil
}

// importGraph is go list's answer: each package of the module (bench
// programs aside) and the project packages it imports.
func importGraph(t *testing.T) map[string][]string {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := short(fields[0])
		if strings.HasPrefix(pkg, "bench/") {
			continue
		}
		deps := []string{}
		for _, imp := range fields[1:] {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				deps = append(deps, short(imp))
			}
		}
		slices.Sort(deps)
		graph[pkg] = deps
	}
	return graph
}

func short(path string) string {
	if path == module {
		return "pidex"
	}
	return strings.TrimPrefix(path, module+"/")
}

// The README's first command (a demo on the bundled sessions) writes a
// throwaway catalog, never the user's: run with an empty HOME, as a fresh
// clone would, it exits 0 and leaves nothing under ~/.cache/pidex (nor
// $XDG_CACHE_HOME/pidex).
func TestREADMEFirstRunLeavesNoCatalog(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "go run ./cmd/pidex ") {
			first = line
			break
		}
	}
	if first == "" {
		t.Fatal("README.md shows no `go run ./cmd/pidex …` command")
	}
	bin := filepath.Join(t.TempDir(), "pidex")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/pidex").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	cmd := exec.Command("sh", "-c", bin+strings.TrimPrefix(first, "go run ./cmd/pidex"))
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", first, err, out)
	}
	if !strings.Contains(string(out), "proj-alpha") {
		t.Errorf("%s printed no session:\n%s", first, out)
	}
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("the first command left %s in HOME", p)
		}
		return err
	})
}
