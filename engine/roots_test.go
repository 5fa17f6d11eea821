package engine

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// Without --sessions the engine reads every agent's own folders, as a user
// who set them up has them: pi's sessionDir setting (a user who set it saw
// no sessions before), a project's own .pi/settings.json (found through
// the working directory of a session already read), oh-my-pi's profiles
// and OpenClaw's agents under ~/.openclaw.
func TestDefaultRootsOfEveryAgent(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR", "PI_CONFIG_DIR", "OMP_PROFILE",
		"PI_PROFILE", "XDG_DATA_HOME", "OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR", "OPENCLAW_HOME"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	proj := filepath.Join(home, "proj")
	hdr := func(id, cwd string) string {
		return `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-05-01T10:00:00.000Z","cwd":"` + cwd + `"}` + "\n" +
			`{"type":"message","id":"m1","parentId":null,"timestamp":"2026-05-01T10:00:01.000Z","message":{"role":"user","content":"hello","timestamp":1777629601000}}` + "\n"
	}
	// pi: the default root holds a session of proj; the global setting
	// names a flat folder; proj's own settings name another, relative.
	catalogtest.WriteFile(t, filepath.Join(home, ".pi/agent/sessions", "--proj--", "a.jsonl"), hdr("pi-default", proj))
	catalogtest.WriteFile(t, filepath.Join(home, ".pi/agent/settings.json"), `{"sessionDir":"~/pi-flat"}`)
	catalogtest.WriteFile(t, filepath.Join(home, "pi-flat", "b.jsonl"), hdr("pi-setting", "/w/other"))
	catalogtest.WriteFile(t, filepath.Join(proj, ".pi/settings.json"), `{"sessionDir":".pi/sessions"}`)
	catalogtest.WriteFile(t, filepath.Join(proj, ".pi/sessions", "c.jsonl"), hdr("pi-project", proj))
	// omp and OpenClaw: their corpora where the agents keep them.
	if err := os.CopyFS(filepath.Join(home, ".omp"), os.DirFS("../testdata/sessions-omp")); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(home, ".openclaw"), os.DirFS("../testdata/sessions-openclaw")); err != nil {
		t.Fatal(err)
	}

	e, err := Open(context.Background(), Options{DBPath: filepath.Join(t.TempDir(), "c.sqlite")})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	refresh(t, e)
	list, err := e.List(context.Background(), pidex.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bySource := map[string][]string{}
	for _, s := range list {
		bySource[s.Source] = append(bySource[s.Source], s.ID)
	}
	for _, ids := range bySource {
		sort.Strings(ids)
	}
	if got := strings.Join(bySource[pidex.SourcePi], " "); got != "pi-default pi-project pi-setting" {
		t.Errorf("pi's sessions: %s", got)
	}
	if n := len(bySource[pidex.SourceOmp]); n != 10 { // both profiles; the subagent transcript is not listed
		t.Errorf("%d omp sessions listed, want 10: %v", n, bySource[pidex.SourceOmp])
	}
	if n := len(bySource[pidex.SourceOpenClaw]); n != 4 { // a checkpoint copy is listed beside its transcript, as pi lists it
		t.Errorf("%d OpenClaw sessions listed, want 4: %v", n, bySource[pidex.SourceOpenClaw])
	}
	var whys []string
	for _, r := range e.RootInfo() {
		whys = append(whys, r.Source+" "+strings.TrimPrefix(r.Path, home)+" | "+r.Why)
	}
	for _, want := range []string{
		"pi /.pi/agent/sessions | pi's sessions root (~/.pi/agent/sessions)",
		"pi /pi-flat | sessionDir in " + home + "/.pi/agent/settings.json",
		"pi /proj/.pi/sessions | sessionDir in " + proj + `/.pi/settings.json (".pi/sessions", relative to the working directory ` + proj + ")",
		"omp /.omp/agent/sessions | oh-my-pi's default profile",
		"omp /.omp/profiles/work/agent/sessions | oh-my-pi's profile work",
		"openclaw /.openclaw/agents | OpenClaw's state folder (~/.openclaw): agents/*/sessions",
	} {
		found := false
		for _, w := range whys {
			found = found || w == want
		}
		if !found {
			t.Errorf("roots lack %q:\n%s", want, strings.Join(whys, "\n"))
		}
	}
	// Filtered by agent.
	oc, err := e.List(context.Background(), pidex.ListOptions{Where: pidex.Where{"agent": "openclaw,pi"}})
	if err != nil || len(oc) != 7 {
		t.Errorf("--agent openclaw,pi: %d sessions (%v)", len(oc), err)
	}
	if _, err := e.List(context.Background(), pidex.ListOptions{Where: pidex.Where{"agent": "codex"}}); err == nil {
		t.Error("--agent codex accepted")
	}
}
