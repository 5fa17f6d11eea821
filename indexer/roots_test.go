package indexer

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
)

// rootCase is one situation of testdata/golden-roots: what was given to
// the agent's own code, and what it resolved.
type rootCase struct {
	Name  string `json:"name"`
	Given struct {
		Home         string                     `json:"home"`
		Cwd          string                     `json:"cwd"`
		Env          map[string]string          `json:"env"`
		Argv         []string                   `json:"argv"`
		Files        map[string]json.RawMessage `json:"files"`
		ExistingDirs []string                   `json:"existingDirs"`
	} `json:"given"`
	Pi  map[string]json.RawMessage `json:"pi"`
	Omp map[string]json.RawMessage `json:"omp"`
}

func loadRootCases(t *testing.T, name string) []rootCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "golden-roots", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Cases []rootCase }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Cases) < 20 {
		t.Fatalf("%s: %d cases", name, len(doc.Cases))
	}
	return doc.Cases
}

// fakeEnv is the case's machine: its variables, and its files as the
// generator wrote them (an object as JSON, a string as it is, {"bom":
// true, "json": …} with a byte-order mark).
func fakeEnv(c rootCase) Env {
	files := map[string][]byte{}
	dirs := map[string]bool{}
	for _, d := range c.Given.ExistingDirs {
		for ; d != "/" && d != "."; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	for p, raw := range c.Given.Files {
		var s string
		var bom struct {
			BOM  bool            `json:"bom"`
			JSON json.RawMessage `json:"json"`
		}
		switch {
		case json.Unmarshal(raw, &s) == nil:
			files[p] = []byte(s)
		case json.Unmarshal(raw, &bom) == nil && bom.BOM:
			files[p] = append([]byte("\uFEFF"), bom.JSON...)
		default:
			files[p] = raw
		}
		for d := filepath.Dir(p); d != "/"; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	return Env{
		Home: c.Given.Home, Cwd: c.Given.Cwd, TempDir: "/tmp", GOOS: "linux",
		LookupEnv: func(k string) (string, bool) { v, ok := c.Given.Env[k]; return v, ok },
		ReadFile: func(p string) ([]byte, error) {
			if b, ok := files[p]; ok {
				return b, nil
			}
			return nil, fs.ErrNotExist
		},
		IsDir: func(p string) bool { return dirs[p] },
		ReadDir: func(p string) ([]string, error) {
			var out []string
			for d := range dirs {
				if filepath.Dir(d) == p {
					out = append(out, filepath.Base(d))
				}
			}
			sort.Strings(out)
			return out, nil
		},
	}
}

func str(raw json.RawMessage) string {
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}

// pi's session directory, for every situation of the table computed with
// pi 1.6.0's own code: the folder it writes to (absoluteDir), flat or
// per-cwd, and the settings that make it fail.
func TestPiSessionDirPrecedence(t *testing.T) {
	for _, c := range loadRootCases(t, "pi-session-dirs.json") {
		t.Run(c.Name, func(t *testing.T) {
			env := fakeEnv(c)
			loc, err := PiDirs(env, c.Given.Argv)
			if th := str(c.Pi["throws"]); th != "" {
				if !errors.Is(err, ErrPiRefuses) {
					t.Fatalf("pi throws %s; pidex: %+v, %v", th, loc, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := loc.AgentDir, str(c.Pi["agentDir"]); got != want {
				t.Errorf("agent dir %q, pi %q", got, want)
			}
			if got, want := loc.SessionsRoot, str(c.Pi["sessionsRoot"]); got != want {
				t.Errorf("sessions root %q, pi %q", got, want)
			}
			var got string
			flat := str(c.Pi["layout"]) == "flat"
			if flat {
				got = abs(env.Cwd, loc.SessionDir)
			} else {
				if loc.SessionDir != "" {
					t.Errorf("pidex has a flat folder %q (%s), pi writes per-cwd folders", loc.SessionDir, loc.SessionDirWhy)
				}
				got = filepath.Join(abs(env.Cwd, loc.SessionsRoot), piCwdFolder(env.Cwd))
			}
			if want := str(c.Pi["absoluteDir"]); got != want {
				t.Errorf("sessions go to %q (%s), pi %q", got, loc.SessionDirWhy, want)
			}
			var errs []struct{ Scope string }
			_ = json.Unmarshal(c.Pi["settingsErrors"], &errs)
			if len(errs) != len(loc.SettingsErrors) {
				t.Errorf("settings errors %q, pi %+v", loc.SettingsErrors, errs)
			}
			for i := range min(len(errs), len(loc.SettingsErrors)) {
				if !strings.HasPrefix(loc.SettingsErrors[i], errs[i].Scope+" ") {
					t.Errorf("settings error %q, pi's is in the %s settings", loc.SettingsErrors[i], errs[i].Scope)
				}
			}
			// And the roots pidex reads hold that folder (pidex cannot know
			// the arguments pi was started with).
			if len(c.Given.Argv) > 0 {
				return
			}
			found := false
			for _, r := range piRoots(env, []string{env.Cwd}) {
				found = found || r.Path == got || (!flat && r.Path == filepath.Dir(got))
			}
			if !found {
				t.Errorf("no root of pidex holds %s", got)
			}
		})
	}
}

// oh-my-pi's folders, for every situation of the table computed with omp
// 18.2.3's own code: profile, config root, agent dir, sessions and blobs
// folders, and the flat session folder.
func TestOmpDirs(t *testing.T) {
	for _, c := range loadRootCases(t, "omp-dirs.json") {
		t.Run(c.Name, func(t *testing.T) {
			if th := str(c.Omp["throws"]); th != "" {
				t.Skipf("omp throws %s", th)
			}
			loc := OmpDirs(fakeEnv(c), c.Given.Argv)
			for _, f := range []struct{ name, got string }{
				{"activeProfile", loc.Profile}, {"configRoot", loc.ConfigRoot}, {"agentDir", loc.AgentDir},
				{"sessionsDir", loc.SessionsDir}, {"blobsDir", loc.BlobsDir}, {"sessionDirArg", loc.SessionDirArg},
			} {
				if want := str(c.Omp[f.name]); f.got != want {
					t.Errorf("%s = %q, omp %q", f.name, f.got, want)
				}
			}
		})
	}
}

// FindRoots reads every profile of omp that has a folder, OpenClaw's
// agents where they exist, and says why for each.
func TestFindRoots(t *testing.T) {
	var c rootCase
	c.Given.Home, c.Given.Cwd = "/home/ann", "/home/ann/proj"
	c.Given.Env = map[string]string{"OMP_PROFILE": "work"}
	c.Given.ExistingDirs = []string{"/home/ann/.omp/agent/sessions", "/home/ann/.omp/profiles/work/agent/sessions",
		"/home/ann/.omp/profiles/home/agent/sessions", "/home/ann/.omp/agent/archive/sessions",
		"/home/ann/.openclaw/agents/main/sessions", "/home/ann/data/flat"}
	c.Given.Files = map[string]json.RawMessage{
		"/home/ann/.pi/agent/settings.json":  json.RawMessage(`{"sessionDir":"~/data/flat"}`),
		"/home/ann/other/.pi/settings.json":  json.RawMessage(`{"sessionDir":".pi/sessions"}`),
		"/home/ann/broken/.pi/settings.json": json.RawMessage(`"{oops"`),
	}
	roots := FindRoots(fakeEnv(c), []string{"/home/ann/other", "/home/ann/broken"})
	var got []string
	for _, r := range roots {
		got = append(got, r.Source+" "+r.Path+" flat="+boolStr(r.Flat)+" read="+boolStr(r.Read)+" | "+r.Why)
	}
	want := []string{
		"pi /home/ann/.pi/agent/sessions flat=false read=true | pi's sessions root (~/.pi/agent/sessions)",
		"pi /home/ann/data/flat flat=true read=true | sessionDir in /home/ann/.pi/agent/settings.json",
		`pi /home/ann/other/.pi/sessions flat=true read=true | sessionDir in /home/ann/other/.pi/settings.json (".pi/sessions", relative to the working directory /home/ann/other)`,
		"omp /home/ann/.omp/agent/sessions flat=false read=true | oh-my-pi's default profile",
		"omp /home/ann/.omp/agent/archive/sessions flat=false read=false | omp gc --archive",
		"omp /home/ann/.omp/profiles/home/agent/sessions flat=false read=true | oh-my-pi's profile home",
		"omp /home/ann/.omp/profiles/work/agent/sessions flat=false read=true | oh-my-pi's profile work",
		"openclaw /home/ann/.openclaw/agents flat=false read=true | OpenClaw's state folder (~/.openclaw): agents/*/sessions",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("roots:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, r := range roots {
		if r.Source == pidex.SourcePi && r.Path == "/home/ann/.pi/agent/sessions" && !strings.Contains(r.Note, "broken") {
			t.Errorf("the unreadable project settings are not noted: %q", r.Note)
		}
	}
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// piCwdFolder is the name of pi's per-cwd session folder (session-manager
// getDefaultSessionDirPath): the resolved cwd without its leading
// separator, every /, \ and : a -, between "--".
func piCwdFolder(cwd string) string {
	cwd = strings.TrimPrefix(strings.TrimPrefix(cwd, "/"), `\`)
	return "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(cwd) + "--"
}
