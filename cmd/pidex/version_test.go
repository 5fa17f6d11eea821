package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/render"
)

// The version text says the module version, the commit (with its time and
// whether the tree had changes) when Go stamped one, the catalog
// derivation and the toolchain.
func TestVersionText(t *testing.T) {
	tail := fmt.Sprintf("catalog derivation %d\nbuilt with %s for %s/%s\n", engine.Derivation, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"release", &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "2228f81c0ffee"}, {Key: "vcs.time", Value: "2026-11-27T10:13:30Z"}, {Key: "vcs.modified", Value: "false"}}},
			"pidex v1.4.0\ncommit 2228f81c0ffee (2026-11-27T10:13:30Z)\n" + tail},
		{"checkout with changes", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			"pidex (devel)\ncommit abc, with uncommitted changes\n" + tail},
		{"no build info", nil, "pidex (unknown)\n" + tail},
	}
	for _, tt := range tests {
		if got := fromBuildInfo(tt.bi).String(); got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

// pidex version and pidex --version print the same; --json has the fields.
func TestVersionCommand(t *testing.T) {
	run := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := newAppIO(&render.IOStreams{Out: &out, ErrOut: &out}).execute(context.Background(), args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return out.String()
	}
	v, flag := run("version"), run("--version")
	if v != flag || !strings.HasPrefix(v, "pidex ") || !strings.Contains(v, fmt.Sprintf("catalog derivation %d\n", engine.Derivation)) {
		t.Errorf("pidex version:\n%s\npidex --version:\n%s", v, flag)
	}
	var j map[string]any
	if err := json.Unmarshal([]byte(run("version", "--json")), &j); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"version", "revision", "time", "modified", "derivation", "go", "platform"} {
		if _, ok := j[k]; !ok {
			t.Errorf("version --json lacks %q: %v", k, j)
		}
	}
	if j["derivation"] != float64(engine.Derivation) {
		t.Errorf("derivation %v, want %d", j["derivation"], engine.Derivation)
	}
}
