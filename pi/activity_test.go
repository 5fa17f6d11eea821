package pi

import "testing"

func TestCommandWord(t *testing.T) {
	for in, want := range map[string]string{
		"go test ./...":                   "go",
		"cd web && npm test":              "npm",
		"cd /tmp; ls -la":                 "ls",
		"cd /tmp":                         "cd",
		"/usr/bin/git status":             "git",
		"FOO=1 BAR=x go test":             "go",
		"grep -rn x . | head -5":          "grep",
		"\n  \n":                          "",
		"(cd sub && make) || echo failed": "make",
		"echo a=b":                        "echo",
		"pushd x && pytest -q && popd":    "pytest",
		"  ./scripts/build.sh --release":  "build.sh",
	} {
		if got := CommandWord(in); got != want {
			t.Errorf("CommandWord(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrorLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                            "",
		"\n\n  529   overloaded \n x": "529 overloaded",
		"Request was aborted.":        "Request was aborted.",
	} {
		if got := ErrorLine(in); got != want {
			t.Errorf("ErrorLine(%q) = %q, want %q", in, got, want)
		}
	}
}
