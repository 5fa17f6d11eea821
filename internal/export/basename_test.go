package export_test

import (
	"testing"

	"github.com/pidex-dev/pidex/internal/export"
)

func TestBaseName(t *testing.T) {
	for path, want := range map[string]string{
		"/home/ann/.pi/agent/sessions/--w--/2026-09-15T14-03-27-802Z_01a0a561.jsonl": "2026-09-15T14-03-27-802Z_01a0a561",
		`C:\Users\ann\.pi\agent\sessions\--w--\s.jsonl`:                              "s",
		"relative/copy.backup.jsonl":                                                 "copy.backup",
		"/notes/not-a-session.txt":                                                   "not-a-session.txt",
	} {
		if got := export.BaseName(path); got != want {
			t.Errorf("BaseName(%q) = %q, want %q", path, got, want)
		}
	}
}
