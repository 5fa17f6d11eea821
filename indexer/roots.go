package indexer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
	"github.com/pidex-dev/pidex/internal/text"
)

// Where the agents keep their sessions (docs/session-roots.md): pi's
// precedence (--session-dir, $PI_CODING_AGENT_SESSION_DIR, the sessionDir
// setting of the project over the global one, else per-cwd folders under
// <agentDir>/sessions), oh-my-pi's profiles, environment and .env files,
// and OpenClaw's state folder. The rules are those of pi 1.6.0 and
// oh-my-pi 18.2.3, checked against tables computed with their own code
// (testdata/golden-roots).

// Env is the machine as root finding sees it: the environment, the home
// and working directories, and the files. SystemEnv is the real one;
// tests make up others.
type Env struct {
	Home, Cwd string
	// TempDir is os.tmpdir() as the agents see it (omp names folders of
	// cwds under it apart).
	TempDir   string
	GOOS      string
	LookupEnv func(key string) (string, bool)
	ReadFile  func(path string) ([]byte, error)
	// IsDir reports whether path is a folder (a link to one counts).
	IsDir func(path string) bool
	// ReadDir lists the names in a folder.
	ReadDir func(path string) ([]string, error)
}

// MaxSettingsFile bounds what is read of a settings or .env file: they
// hold a few lines, and a path another program controls may name a file
// that never ends (a link to /dev/zero).
const MaxSettingsFile = 1 << 20

// SystemEnv is the machine pidex runs on. Its files are read only when
// regular (a FIFO where a settings file should be never blocks) and up to
// MaxSettingsFile; its folders are opened only as folders.
func SystemEnv() Env {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	return Env{
		Home: home, Cwd: cwd, TempDir: os.TempDir(), GOOS: runtime.GOOS,
		LookupEnv: os.LookupEnv,
		ReadFile:  func(p string) ([]byte, error) { return files.ReadSmall(p, MaxSettingsFile) },
		IsDir:     func(p string) bool { fi, err := os.Stat(p); return err == nil && fi.IsDir() },
		ReadDir: func(p string) ([]string, error) {
			ents, err := files.ReadDir(p)
			names := make([]string, len(ents))
			for i, e := range ents {
				names[i] = e.Name()
			}
			return names, err
		},
	}
}

// getenv is a variable's value, "" when unset.
func (e Env) getenv(k string) string {
	if e.LookupEnv == nil {
		return ""
	}
	v, _ := e.LookupEnv(k)
	return v
}

// abs resolves p against dir the way Node's path.resolve does.
func abs(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// ---- pi 1.6.0 ----

// PiLocation is where pi, started in a working directory, keeps the
// sessions it writes.
type PiLocation struct {
	// AgentDir is $PI_CODING_AGENT_DIR (tilde expanded, a relative value
	// kept relative, i.e. relative to pi's working directory) or
	// ~/.pi/agent; SessionsRoot is <AgentDir>/sessions, the root of the
	// per-cwd folders.
	AgentDir, SessionsRoot string
	// SessionDir is the flat folder pi writes to instead of its per-cwd
	// folder ("" for the per-cwd default), as pi holds it (relative to the
	// working directory when relative); SessionDirWhy says what chose it.
	SessionDir, SessionDirWhy string
	// SettingsErrors lists the settings files pi could not read (it then
	// ignores that scope, as pidex does).
	SettingsErrors []string
	// Unread lists the settings files pidex did not read: not a regular
	// file, longer than MaxSettingsFile, or unreadable (see unread).
	Unread []string
}

// ErrPiRefuses: pi itself fails to start with these settings (a sessionDir
// that is not a string).
var ErrPiRefuses = errors.New("pi refuses these settings")

// PiDirs is pi 1.6.0's session directory for a process started in
// env.Cwd with arguments argv (main.js 577-596): --session-dir, else
// $PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting (the
// project's .pi/settings.json over <agentDir>/settings.json), else the
// per-cwd folder. Empty values count as unset.
func PiDirs(env Env, argv []string) (PiLocation, error) {
	var loc PiLocation
	if d := env.getenv("PI_CODING_AGENT_DIR"); d != "" {
		loc.AgentDir = piNormalize(env, d)
	} else {
		loc.AgentDir = filepath.Join(env.Home, ".pi", "agent")
	}
	loc.SessionsRoot = filepath.Join(loc.AgentDir, "sessions")
	flag := ""
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == "--session-dir" {
			flag = argv[i+1]
			i++
		}
	}
	global := filepath.Join(abs(env.Cwd, loc.AgentDir), "settings.json")
	project := filepath.Join(env.Cwd, ".pi", "settings.json")
	setting, from, errs, unread := piSessionDirSetting(env, global, project)
	loc.SettingsErrors, loc.Unread = errs, unread
	switch {
	case flag != "":
		loc.SessionDir, loc.SessionDirWhy = piNormalize(env, flag), "--session-dir"
	case env.getenv("PI_CODING_AGENT_SESSION_DIR") != "":
		loc.SessionDir, loc.SessionDirWhy = piNormalize(env, env.getenv("PI_CODING_AGENT_SESSION_DIR")), "$PI_CODING_AGENT_SESSION_DIR"
	default: // only now does pi read the setting (?? short-circuits)
		if s, isStr := setting.(string); isStr && s != "" {
			loc.SessionDir, loc.SessionDirWhy = piNormalize(env, s), "sessionDir in "+from
		} else if !isStr && piTruthy(setting) {
			return loc, fmt.Errorf("%w: sessionDir in %s is %s, not a string", ErrPiRefuses, from, jsonText(setting))
		}
	}
	return loc, nil
}

// piSessionDirSetting reads sessionDir from the merged settings: the
// project's file over the global one (a key it sets replaces the global
// value; a file that does not parse is left out and reported in errs, one
// that cannot be read in unread).
func piSessionDirSetting(env Env, global, project string) (val any, from string, errs, unread []string) {
	for _, f := range []struct{ scope, path string }{{"global", global}, {"project", project}} {
		b, err := env.ReadFile(f.path)
		if err != nil {
			unread = appendUnread(unread, f.scope+" settings", f.path, err)
			continue
		}
		if len(b) == 0 {
			continue // pi: a missing or empty file is {}
		}
		b = bytes.TrimPrefix(b, []byte("\uFEFF"))
		// JSON.parse, then migrateSettings, which uses `in`: an object or
		// an array passes, anything else throws.
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			errs = append(errs, fmt.Sprintf("%s settings %s: %v", f.scope, f.path, err))
			continue
		}
		m, isObj := v.(map[string]any)
		if _, isArr := v.([]any); !isObj && !isArr {
			errs = append(errs, fmt.Sprintf("%s settings %s: not an object", f.scope, f.path))
			continue
		}
		if v, ok := m["sessionDir"]; ok {
			val, from = v, f.path
		}
	}
	return val, from, errs, unread
}

// appendUnread notes a file that was not read, in the words of a root's
// note: what it is and why ("global settings /h/.pi/agent/settings.json
// not read: not a regular file: it is a named pipe (FIFO)"). A missing
// file is no news: it is left out.
func appendUnread(notes []string, what, path string, err error) []string {
	if errors.Is(err, fs.ErrNotExist) {
		return notes
	}
	for _, n := range notes {
		if strings.HasPrefix(n, what+" "+path+" ") {
			return notes // the same file by two names (the home as the working directory)
		}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return append(notes, fmt.Sprintf("%s %s not read: %v", what, path, err))
}

// piTruthy is JavaScript truthiness of a decoded JSON value.
func piTruthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return v != ""
	}
	return true
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// piNormalize is pi's normalizePath (utils/paths.js): "~" and "~/…" are
// the home directory, a file:// URL is its path, anything else is kept
// (a relative path stays relative).
func piNormalize(env Env, p string) string {
	switch {
	case p == "~":
		return env.Home
	case strings.HasPrefix(p, "~/"):
		return filepath.Join(env.Home, p[2:])
	case strings.HasPrefix(p, "file://"):
		if u, err := url.Parse(p); err == nil && u.Path != "" {
			return filepath.FromSlash(u.Path)
		}
	}
	return p
}

// piRoots are pi's roots for processes started in each of cwds: the
// per-cwd root, and the flat folder pi would write to, resolved against
// that cwd (a relative setting names a folder per project).
func piRoots(env Env, cwds []string) []pidex.Root {
	var out []pidex.Root
	for _, cwd := range cwds {
		e := env
		e.Cwd = cwd
		loc, err := PiDirs(e, nil)
		why := "pi's sessions root (~/.pi/agent/sessions)"
		if env.getenv("PI_CODING_AGENT_DIR") != "" {
			why = "pi's sessions root ($PI_CODING_AGENT_DIR/sessions)"
		}
		out = append(out, pidex.Root{Path: abs(cwd, loc.SessionsRoot), Source: pidex.SourcePi, Why: why, Read: true})
		for _, se := range loc.SettingsErrors {
			out[len(out)-1].Note = joinNote(out[len(out)-1].Note, "pi ignores "+se)
		}
		for _, u := range loc.Unread {
			out[len(out)-1].Note = joinNote(out[len(out)-1].Note, u)
		}
		if err != nil {
			out[len(out)-1].Note = joinNote(out[len(out)-1].Note, err.Error()+" (pi does not start; pidex reads the default)")
			continue
		}
		if loc.SessionDir != "" {
			why := loc.SessionDirWhy
			if !filepath.IsAbs(loc.SessionDir) {
				why += fmt.Sprintf(" (%q, relative to the working directory %s)", loc.SessionDir, cwd)
			}
			out = append(out, pidex.Root{Path: abs(cwd, loc.SessionDir), Source: pidex.SourcePi, Flat: true, Why: why, Read: true})
		}
	}
	return out
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// ---- oh-my-pi 18.2.3 ----

// OmpLocation is where oh-my-pi keeps its files for one profile.
type OmpLocation struct {
	Profile    string // "" for the default profile
	ConfigRoot string // ~/.omp, or ~/.omp/profiles/<name>
	AgentDir   string
	// SessionsDir and BlobsDir: <AgentDir>/sessions and /blobs, or under
	// $XDG_DATA_HOME/omp when that exists (Linux and macOS, default agent
	// dir only).
	SessionsDir, BlobsDir string
	// SessionDirArg is --session-dir or $PI_CODING_AGENT_SESSION_DIR: the
	// flat folder omp then writes to ("": none).
	SessionDirArg string
	// Unread lists the .env files pidex did not read (see appendUnread).
	Unread []string
}

// The profile name's patterns, compiled on first use (not at package
// init, which every command pays for at start).
var (
	ompProfileRE  = text.LazyRegexp(`^[a-z0-9][a-z0-9._-]{0,63}$`)
	ompReservedRE = text.LazyRegexp(`(?i)^(?:CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])(?:\..*)?$`)
)

// ompProfileName is omp's normalizeProfileName at module load: "", blanks
// and "default" are the default profile, and so is an invalid name.
func ompProfileName(p string) string {
	p = strings.TrimSpace(p)
	if p == "" || p == "default" || p == "." || p == ".." || strings.HasSuffix(p, ".") ||
		!ompProfileRE().MatchString(p) || ompReservedRE().MatchString(p) {
		return ""
	}
	return p
}

// OmpDirs is where omp started in env.Cwd with arguments argv keeps its
// files (pi-utils dirs.ts and env.ts): the active profile ($OMP_PROFILE,
// else $PI_PROFILE when OMP_PROFILE is unset), the config root
// (~/$PI_CONFIG_DIR or ~/.omp), $PI_CODING_AGENT_DIR for the default
// profile, XDG data folders, and the variables the .env files of the cwd,
// the agent dir, the config root and the home fill in.
func OmpDirs(env Env, argv []string) OmpLocation {
	vars := map[string]string{}
	get := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return env.getenv(k)
	}
	profile := ""
	if v, ok := env.LookupEnv("OMP_PROFILE"); ok {
		profile = ompProfileName(v)
	} else {
		profile = ompProfileName(env.getenv("PI_PROFILE"))
	}
	resolve := func() OmpLocation {
		return ompResolve(env, profile, get)
	}
	loc := resolve()
	// .env files fill what is unset or empty, the first file first.
	var unread []string
	for _, f := range []string{filepath.Join(env.Cwd, ".env"), filepath.Join(loc.AgentDir, ".env"),
		filepath.Join(loc.ConfigRoot, ".env"), filepath.Join(env.Home, ".env")} {
		b, err := env.ReadFile(f)
		if err != nil {
			unread = appendUnread(unread, "omp's environment file", f, err)
			continue
		}
		for k, v := range parseDotenv(b) {
			if get(k) == "" {
				vars[k] = v
			}
		}
	}
	loc = resolve()
	loc.Unread = unread
	loc.SessionDirArg = get("PI_CODING_AGENT_SESSION_DIR")
	for i := 0; i+1 < len(argv); i++ {
		if argv[i] == "--session-dir" {
			loc.SessionDirArg = argv[i+1]
			i++
		}
	}
	return loc
}

func ompResolve(env Env, profile string, get func(string) string) OmpLocation {
	dirName := get("PI_CONFIG_DIR")
	if dirName == "" {
		dirName = ".omp"
	}
	base := filepath.Join(env.Home, dirName)
	loc := OmpLocation{Profile: profile, ConfigRoot: base}
	if profile != "" {
		loc.ConfigRoot = filepath.Join(base, "profiles", profile)
	}
	def := filepath.Join(loc.ConfigRoot, "agent")
	loc.AgentDir = def
	if over := get("PI_CODING_AGENT_DIR"); profile == "" && over != "" {
		loc.AgentDir = abs(env.Cwd, over)
	}
	data := loc.AgentDir
	if (env.GOOS == "linux" || env.GOOS == "darwin") && loc.AgentDir == def {
		if x := get("XDG_DATA_HOME"); x != "" {
			app := filepath.Join(x, "omp")
			if profile != "" {
				app = filepath.Join(app, "profiles", profile)
			}
			if env.IsDir(app) {
				data = app
			}
		}
	}
	loc.SessionsDir, loc.BlobsDir = filepath.Join(data, "sessions"), filepath.Join(data, "blobs")
	return loc
}

// parseDotenv reads KEY=value lines (export prefix, quotes and comments as
// dotenv writes them); OMP_X is mirrored to PI_X, as omp's parseEnvFile does.
func parseDotenv(b []byte) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			continue
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		} else if i := strings.Index(v, " #"); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		out[k] = v
	}
	for k, v := range out {
		if rest, ok := strings.CutPrefix(k, "OMP_"); ok {
			out["PI_"+rest] = v
		}
	}
	return out
}

// ompRoots are the sessions folders of every omp profile that exists: the
// default one (with $PI_CODING_AGENT_DIR and XDG), and each folder of
// <config root>/profiles (and of $XDG_DATA_HOME/omp/profiles). A flat
// --session-dir folder is pi's variable too ($PI_CODING_AGENT_SESSION_DIR):
// pi's roots read it, and a file there with omp's title slot is read as omp's.
func ompRoots(env Env) []pidex.Root {
	var out []pidex.Root
	def := OmpDirs(env, nil)
	add := func(loc OmpLocation, why string) {
		out = append(out, pidex.Root{Path: loc.SessionsDir, Source: pidex.SourceOmp, Why: why, Read: true, Note: strings.Join(loc.Unread, "; ")})
		if arch := filepath.Join(loc.AgentDir, "archive", "sessions"); env.IsDir(arch) {
			out = append(out, pidex.Root{Path: arch, Source: pidex.SourceOmp, Why: "omp gc --archive",
				Note: "archived sessions are gzipped (.jsonl.gz): pidex does not read them", Read: false})
		}
	}
	add(withProfile(env, ""), "oh-my-pi's default profile")
	// Every profile that has a folder, not only the active one: the
	// sessions of all of them are the user's history.
	base := def
	if def.Profile != "" {
		base = withProfile(env, "")
	}
	profiles := map[string]bool{}
	for _, dir := range []string{filepath.Join(base.ConfigRoot, "profiles"), filepath.Join(env.getenv("XDG_DATA_HOME"), "omp", "profiles")} {
		names, _ := env.ReadDir(dir)
		for _, n := range names {
			if ompProfileName(n) == n && env.IsDir(filepath.Join(dir, n)) {
				profiles[n] = true
			}
		}
	}
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		add(withProfile(env, n), "oh-my-pi's profile "+n)
	}
	return out
}

// withProfile is OmpDirs for a profile other than the active one.
func withProfile(env Env, profile string) OmpLocation {
	e := env
	e.LookupEnv = func(k string) (string, bool) {
		if k == "OMP_PROFILE" {
			return profile, true
		}
		return env.LookupEnv(k)
	}
	return OmpDirs(e, nil)
}

// ---- OpenClaw ----

// openClawState is OpenClaw's state folder (src/config/paths.ts):
// $OPENCLAW_STATE_DIR or $CLAWDBOT_STATE_DIR, else ~/.openclaw if it
// exists, else the first legacy folder that does, else ~/.openclaw.
func openClawState(env Env) (dir, why string) {
	home := env.Home
	if h := env.getenv("OPENCLAW_HOME"); h != "" {
		home = h
	}
	for _, k := range []string{"OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"} {
		if v := env.getenv(k); v != "" {
			return abs(env.Cwd, piNormalize(Env{Home: home}, v)), "$" + k
		}
	}
	def := filepath.Join(home, ".openclaw")
	if env.IsDir(def) {
		return def, "OpenClaw's state folder (~/.openclaw)"
	}
	for _, legacy := range []string{".clawdbot", ".moldbot", ".moltbot"} {
		if d := filepath.Join(home, legacy); env.IsDir(d) {
			return d, "OpenClaw's state folder (~/" + legacy + ", an older name)"
		}
	}
	return def, "OpenClaw's state folder (~/.openclaw)"
}

// ---- all of them ----

// FindRoots lists the roots of every agent: pi's for the working
// directory and for each of cwds (the working directories of sessions
// already found: a project's .pi/settings.json can name its own folder),
// then oh-my-pi's profiles and OpenClaw's agents where they exist. pi's
// sessions root is listed even when it does not exist yet.
func FindRoots(env Env, cwds []string) []pidex.Root {
	all := append([]string{env.Cwd}, cwds...)
	out := piRoots(env, all)
	out = append(out, ompRoots(env)...)
	state, why := openClawState(env)
	out = append(out, pidex.Root{Path: filepath.Join(state, "agents"), Source: pidex.SourceOpenClaw, Why: why + ": agents/*/sessions", Read: true})
	// One root per folder: the first reason wins (pi and omp share the
	// variable names, so a folder may come twice).
	seen := map[string]int{} // path → index in kept
	kept := out[:0]
	for i, r := range out {
		r.Path = filepath.Clean(r.Path)
		r.Found = env.IsDir(r.Path)
		if k, ok := seen[r.Path]; ok {
			if r.Note != "" && !strings.Contains(kept[k].Note, r.Note) {
				kept[k].Note = joinNote(kept[k].Note, r.Note)
			}
			continue
		}
		// Only pi's own root is listed without existing: the others are
		// read where they exist.
		if !r.Found && !(i == 0 || r.Flat) {
			continue
		}
		seen[r.Path] = len(kept)
		kept = append(kept, r)
	}
	return kept
}

// RootSpec is a root as Indexer.Roots and --sessions take it: a path,
// optionally preceded by its source and a colon ("omp:~/.omp/agent/sessions").
func RootSpec(r pidex.Root) string { return r.Source + ":" + r.Path }

// ParseRoot splits a root spec into its path and source; a path without a
// source prefix gets the source its layout says (DetectSource).
func ParseRoot(spec string) (path, source string) {
	if src, rest, ok := strings.Cut(spec, ":"); ok && slices.Contains(pidex.Sources, src) && rest != "" {
		return rest, src
	}
	return spec, ""
}

// DetectSource is the source a folder's layout says: OpenClaw for an
// agent's sessions folder (sessions.json beside the transcripts) or the
// agents folder above them; oh-my-pi for a sessions folder beside a blob
// store (<agentDir>/blobs) or under a .omp folder; else pi. A file with
// omp's title slot is omp's wherever it lies.
func DetectSource(dir string) string {
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	if exists(filepath.Join(dir, "sessions.json")) {
		return pidex.SourceOpenClaw
	}
	if agentsFolder(dir) {
		return pidex.SourceOpenClaw
	}
	if fi, err := os.Stat(filepath.Join(filepath.Dir(dir), "blobs")); err == nil && fi.IsDir() {
		return pidex.SourceOmp
	}
	for _, part := range strings.Split(filepath.ToSlash(dir), "/") {
		if part == ".omp" {
			return pidex.SourceOmp
		}
	}
	return pidex.SourcePi
}

// agentsFolder reports whether dir/*/sessions/sessions.json exists, as
// filepath.Glob would find it, with a stat per subfolder: Glob read every
// subfolder's listing to match "sessions" (a project folder of a pi root
// holds thousands of files), for every command, --no-refresh included.
func agentsFolder(dir string) bool {
	ents, err := files.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if _, err := os.Lstat(filepath.Join(dir, e.Name(), "sessions", "sessions.json")); err == nil {
			return true
		}
	}
	return false
}
