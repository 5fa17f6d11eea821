package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/text"
)

// Terminal tables under a real terminal: tmux draws pidex's output in a
// pane 80 and 160 columns wide, and the pane must hold every row on one
// line (tmux marks a line it wrapped; capture-pane -J joins them again),
// none wider than the pane, with the Chinese, Japanese and Korean text
// counted as two columns a character. A fake width (COLUMNS) would not
// catch a terminal that disagrees with pidex's count. .ci/run installs
// tmux; without it the test skips, saying so.
func TestTablesUnderTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux tests skipped: no tmux on PATH (apt-get install -y tmux)")
	}
	bin, err := exec.LookPath("pidex") // the test binary, set up by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	root := filepath.Join(dir, "sessions")
	for i, s := range cjkSessions {
		catalogtest.WriteFile(t, filepath.Join(root, fmt.Sprintf("--s%d--", i), "s.jsonl"), s)
	}
	db := filepath.Join(dir, "c.sqlite")
	base := []string{bin, "--db", db, "--sessions", root, "-q"}
	if out, err := exec.Command(base[0], append(base[1:], "index")...).CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	commands := []struct {
		name string
		args []string
		// full: text shown whole at 160 columns (cut at 80)
		full string
	}{
		{"list", []string{"list"}, "全文検索のテスト — インデックスを作り直して、検索が速くなるか確かめてください。"},
		{"cost", []string{"cost", "--by", "day,project", "--tz", "UTC"}, "/home/李/项目-检索"},
		{"sql", []string{"sql", "SELECT cwd, first_message, message_count, cost FROM sessions_v ORDER BY cwd"}, "검색 결과가 없습니다 — 왜 그런지 설명해 주세요"},
		{"search", []string{"search", "--sessions-only", "検索"}, "全文検索のテスト — インデックスを作り直して"},
		{"warnings", []string{"warnings"}, "FILE"},
	}
	for _, width := range []int{80, 160} {
		for _, c := range commands {
			t.Run(fmt.Sprintf("%s-%d", c.name, width), func(t *testing.T) {
				plain, joined := inTmux(t, tmux, width, append(append(base, "--no-refresh"), c.args...))
				if plain != joined {
					t.Errorf("tmux wrapped a row at %d columns:\n%s", width, plain)
				}
				for _, l := range strings.Split(plain, "\n") {
					if w := text.Width(l); w > width {
						t.Errorf("a row of %d columns on a %d-column terminal: %q", w, width, l)
					}
				}
				if width == 160 && !strings.Contains(plain, c.full) {
					t.Errorf("at 160 columns, %q is not shown whole:\n%s", c.full, plain)
				}
				if c.name == "cost" && width == 160 && (!strings.Contains(plain, "1,712,835") || strings.Contains(plain, "1712834.7")) {
					t.Errorf("token counts are not rounded for reading:\n%s", plain)
				}
				if c.name == "cost" {
					// The last column (cost) is right-aligned: every row ends in the same column.
					lines := strings.Split(strings.TrimRight(plain, "\n"), "\n")
					for _, l := range lines[1:] {
						if text.Width(l) != text.Width(lines[0]) {
							t.Errorf("cost column not right-aligned:\n%s", plain)
							break
						}
					}
				}
				t.Logf("%d columns:\n%s", width, plain)
			})
		}
	}
}

// inTmux runs argv in a detached tmux pane of width columns (a server of
// its own, on a socket in a temporary folder) and returns the pane's text
// as drawn, and with wrapped lines joined.
func inTmux(t *testing.T, tmux string, width int, argv []string) (plain, joined string) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound, not an assertion
	defer cancel()
	run := func(args ...string) string {
		t.Helper()
		out, err := exec.CommandContext(ctx, tmux, append([]string{"-S", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	// The pane lives on after the command (so that it can be read) and
	// says when the command is done.
	script := fmt.Sprintf("env -u COLUMNS -u LINES %s; %s -S %s wait-for -S done; sleep 600",
		strings.Join(quoted, " "), tmux, sock)
	run("new-session", "-d", "-x", fmt.Sprint(width), "-y", "100", "-s", "t", "sh", "-c", script)
	defer exec.Command(tmux, "-S", sock, "kill-server").Run()
	run("wait-for", "done")
	trim := func(s string) string { return strings.TrimRight(s, "\n") + "\n" }
	return trim(run("capture-pane", "-p", "-t", "t")), trim(run("capture-pane", "-p", "-J", "-t", "t"))
}

// cjkSessions are sessions whose names, first messages and projects are
// Chinese, Japanese and Korean, with usage for the cost report.
var cjkSessions = []string{
	cjkSession("01a0c000-0001-724f-a634-c14fac694f8c", "/home/李/项目-检索", "全文検索のテスト",
		"インデックスを作り直して、検索が速くなるか確かめてください。", "2026-09-14T09:12:03.117Z", 1.25),
	cjkSession("01a0c000-0002-724f-a634-c14fac694f8c", "/home/ann/한국어-프로젝트", "",
		"검색 결과가 없습니다 — 왜 그런지 설명해 주세요", "2026-09-15T10:00:00.000Z", 1153),
	cjkSession("01a0c000-0003-724f-a634-c14fac694f8c", "/home/ann/plain", "",
		"An English first message that is long enough to be cut on a terminal eighty columns wide, and then some more words after that", "2026-09-16T11:00:00.000Z", 0.0042),
}

func cjkSession(id, cwd, name, first, ts string, cost float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":%q,"cwd":%q}`+"\n", id, ts, cwd)
	fmt.Fprintf(&b, `{"type":"message","id":"u1","parentId":null,"timestamp":%q,"message":{"role":"user","content":%q}}`+"\n", ts, first)
	fmt.Fprintf(&b, `{"type":"message","id":"a1","parentId":"u1","timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":"了解しました。検索します。"}],"provider":"anthropic","model":"claude-x","usage":{"input":1712834.7000000002,"output":45321,"cacheRead":0,"cacheWrite":0,"totalTokens":1758155.7,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":%v}}}}`+"\n", ts, cost)
	if name != "" {
		fmt.Fprintf(&b, `{"type":"session_info","id":"n1","parentId":"a1","timestamp":%q,"name":%q}`+"\n", ts, name)
	}
	return b.String()
}
