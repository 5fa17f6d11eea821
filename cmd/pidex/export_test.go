package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// piBranch is what the golden files say of pi's getBranch() for one
// session file: each entry's line and role (testdata/gen/golden.mjs).
type piBranch struct {
	File      string
	IsSession bool
	Path      []struct {
		Line int
		Role string
	}
}

// goldenSessions lists the golden files of the bundled corpus's sessions
// and the session files they describe.
func goldenSessions(t *testing.T) (files []string, branches []piBranch) {
	t.Helper()
	goldens, err := filepath.Glob("../../testdata/golden/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goldens {
		if strings.HasPrefix(filepath.Base(g), "_") {
			continue
		}
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		var br piBranch
		if err := json.Unmarshal(b, &br); err != nil {
			t.Fatalf("%s: %v", g, err)
		}
		if !br.IsSession || len(br.Path) == 0 {
			continue
		}
		rel, _ := filepath.Rel("../../testdata/golden", g)
		files = append(files, filepath.Join("../../testdata/sessions", strings.TrimSuffix(rel, ".json")+".jsonl"))
		branches = append(branches, br)
	}
	if len(files) < 20 {
		t.Fatalf("%d golden sessions: the corpus is not where the test expects it", len(files))
	}
	return files, branches
}

// messageTexts are a message line's texts as a reader sees them: its
// content when a string, else each text block's.
func messageTexts(t *testing.T, line []byte) []string {
	var e struct {
		Message struct{ Content json.RawMessage }
	}
	if err := json.Unmarshal(line, &e); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	var s string
	if json.Unmarshal(e.Message.Content, &s) == nil {
		return []string{s}
	}
	var blocks []struct{ Type, Text string }
	json.Unmarshal(e.Message.Content, &blocks)
	var out []string
	for _, b := range blocks {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return out
}

// Every fixture session exported as Markdown holds every user and
// assistant text of the branch pi's getBranch() returns, in its order.
func TestExportMarkdownHoldsPiBranch(t *testing.T) {
	files, branches := goldenSessions(t)
	root, err := filepath.Abs("../../testdata/sessions")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--db", filepath.Join(t.TempDir(), "c.sqlite"), "--sessions", root, "-q"}
	cli(t, 3, append(args, "index")...)
	texts := 0
	for i, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			md := cli(t, 0, append(slices.Clone(args), "--no-refresh", "export", f)...)
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(raw, []byte("\n"))
			at := 0
			for _, e := range branches[i].Path {
				if e.Role != "user" && e.Role != "assistant" {
					continue
				}
				for _, text := range messageTexts(t, lines[e.Line-1]) {
					text = strings.TrimSpace(strings.ReplaceAll(text, "\r\n", "\n"))
					if text == "" {
						continue
					}
					j := strings.Index(md[at:], text)
					if j < 0 {
						t.Fatalf("line %d's %s text is not in the Markdown after byte %d: %.200q", e.Line, e.Role, at, text)
					}
					at += j + len(text)
					texts++
				}
			}
		})
	}
	if texts < 100 {
		t.Errorf("only %d texts compared", texts)
	}
}

// export --format json is show --json, and with --context show --context
// --json, for every fixture session; the Markdown and JSON of a branch
// that is not the current one hold that branch.
func TestExportJSONIsShowJSON(t *testing.T) {
	files, _ := goldenSessions(t)
	root, _ := filepath.Abs("../../testdata/sessions")
	args := []string{"--db", filepath.Join(t.TempDir(), "c.sqlite"), "--sessions", root, "-q", "--no-refresh"}
	cli(t, 3, append(slices.Clone(args[:5]), "index")...)
	for _, f := range files {
		for _, extra := range [][]string{nil, {"--context"}} {
			show := cli(t, 0, slices.Concat(args, []string{"show", f, "--json"}, extra)...)
			exp := cli(t, 0, slices.Concat(args, []string{"export", f, "--format", "json"}, extra)...)
			if show != exp || !json.Valid([]byte(exp)) {
				t.Errorf("%s %v: export --format json differs from show --json", f, extra)
			}
		}
	}
	const branchy = "01a0a561"
	leaf := "aeb87ffe" // on an abandoned branch
	md := cli(t, 0, append(slices.Clone(args), "export", branchy, "--leaf", leaf)...)
	if !strings.Contains(md, "not the current leaf") || !strings.Contains(md, "entry `"+leaf+"`") {
		t.Errorf("the Markdown of another branch does not say so:\n%.1500s", md)
	}
	if show, exp := cli(t, 0, append(slices.Clone(args), "show", branchy, "--leaf", leaf, "--json")...),
		cli(t, 0, append(slices.Clone(args), "export", branchy, "--leaf", leaf, "--format", "json")...); show != exp {
		t.Errorf("export --leaf --format json differs from show --leaf --json")
	}
}

// export --redact leaves none of the planted secrets in any format, and
// without it they are there (the test would see them).
func TestExportRedact(t *testing.T) {
	root := t.TempDir()
	catalogtest.WriteFile(t, filepath.Join(root, "--w-app--", "a.jsonl"), strings.Join(catalogtest.SecretSession("sa", "/w/app"), "\n")+"\n")
	args := []string{"--db", filepath.Join(t.TempDir(), "c.sqlite"), "--sessions", root, "-q"}
	out := t.TempDir()
	for _, format := range pidex.ExportFormats {
		for _, extra := range [][]string{nil, {"--context"}, {"--thinking", "--max-output", "0"}} {
			if format == pidex.FormatHTML && slices.Contains(extra, "--context") {
				continue
			}
			file := filepath.Join(out, "a."+format)
			plain := cli(t, 0, slices.Concat(args, []string{"export", "sa", "--format", format}, extra)...)
			if format == pidex.FormatHTML { // stdout is no terminal here: the page is printed
				cli(t, 0, slices.Concat(args, []string{"export", "sa", "-o", file, "--redact"}, extra)...)
			} else {
				cli(t, 0, slices.Concat(args, []string{"export", "sa", "--format", format, "-o", file, "--redact"}, extra)...)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			redacted := strings.ToLower(string(b))
			leaked := 0
			for _, s := range catalogtest.Secrets {
				if strings.Contains(redacted, strings.ToLower(s)) {
					t.Errorf("%s %v --redact: %q is in the export", format, extra, s)
				}
				if strings.Contains(strings.ToLower(plain), strings.ToLower(s)) {
					leaked++
				}
			}
			if leaked == 0 || !strings.Contains(string(b), "[REDACTED]") {
				t.Errorf("%s %v: the export without --redact holds no secret, or with it no marker: the test sees nothing", format, extra)
			}
			if format == pidex.FormatJSON && !json.Valid(b) {
				t.Errorf("%s %v --redact: not valid JSON", format, extra)
			}
		}
	}
}

// Many sessions at once: each into its own file in the folder, listed on
// stdout, copies sharing a file name kept apart; never over a session
// file.
func TestExportMany(t *testing.T) {
	root, _ := filepath.Abs("../../testdata/sessions")
	args := []string{"--db", filepath.Join(t.TempDir(), "c.sqlite"), "--sessions", root, "-q"}
	dir := filepath.Join(t.TempDir(), "handoff")
	out := cli(t, 3, append(slices.Clone(args), "export", "--project", "proj-alpha", "-o", dir)...) // 3: the corpus holds damaged files
	written := strings.Fields(out)
	ents, _ := os.ReadDir(dir)
	if len(written) != 4 || len(ents) != 4 {
		t.Fatalf("wrote %v, the folder holds %d files; want the 4 proj-alpha sessions", written, len(ents))
	}
	for _, w := range written {
		b, err := os.ReadFile(w)
		if err != nil || !bytes.HasPrefix(b, []byte("# ")) || filepath.Ext(w) != ".md" {
			t.Errorf("%s: %v %.80q", w, err, b)
		}
	}
	session := filepath.Join(root, "--home-ann-proj-alpha--", "2026-09-14T09-12-03-117Z_01a09f30-132d-724f-a634-c14fac694f8c.jsonl")
	before, _ := os.ReadFile(session)
	for _, target := range []string{session, strings.TrimSuffix(session, ".jsonl") + ".JSONL"} {
		cli(t, 2, append(slices.Clone(args), "export", "01a09f30", "-o", target)...)
	}
	if after, _ := os.ReadFile(session); !bytes.Equal(before, after) {
		t.Fatal("export wrote over a session file")
	}
	cli(t, 2, append(slices.Clone(args), "export", "--project", "proj-alpha")...) // many sessions need a folder
	cli(t, 2, append(slices.Clone(args), "export", "01a09f30", "--format", "html", "--context")...)
	cli(t, 2, append(slices.Clone(args), "export", "01a09f30", "--format", "pdf")...)
}
