package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/render"
)

// buildInfo is what `pidex version` says of this binary: the module's
// version (a tag when installed with go install …@v1.2.3, "(devel)" for a
// build from a checkout), the commit it was built from (Go stamps it into
// binaries built in a Git work tree), and the catalog derivation, which
// says whether two pidex binaries can share a catalog without rebuilding
// it.
type buildInfo struct {
	Version    string  `json:"version"`
	Revision   *string `json:"revision"`
	Time       *string `json:"time"`
	Modified   bool    `json:"modified"`
	Derivation int     `json:"derivation"`
	Go         string  `json:"go"`
	Platform   string  `json:"platform"`
}

func readBuildInfo() buildInfo {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(bi)
}

// version is the module's version as `pidex version` says it, "dev" for
// a build from a work tree (what the MCP handshake and a push record).
func version() string {
	if v := readBuildInfo().Version; v != "(devel)" && v != "(unknown)" {
		return v
	}
	return "dev"
}

// buildName names this binary for a team catalog's records (who migrated
// it): its version, and the commit it was built from when Go stamped one,
// so that a pidex that cannot read the catalog can say which to use.
func buildName() string {
	bi := readBuildInfo()
	name := "pidex " + version()
	if bi.Revision != nil {
		rev := *bi.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		name += " (commit " + rev
		if bi.Modified {
			name += ", modified"
		}
		name += ")"
	}
	return name
}

// fromBuildInfo reads what Go stamped into the binary (nil: nothing).
func fromBuildInfo(bi *debug.BuildInfo) buildInfo {
	b := buildInfo{Version: "(unknown)", Derivation: engine.Derivation, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return b
	}
	if bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = &s.Value
		case "vcs.time":
			b.Time = &s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the text of `pidex version` and `pidex --version`.
func (b buildInfo) String() string {
	var s strings.Builder
	fmt.Fprintf(&s, "pidex %s\n", b.Version)
	if b.Revision != nil {
		fmt.Fprintf(&s, "commit %s", *b.Revision)
		if b.Time != nil {
			fmt.Fprintf(&s, " (%s)", *b.Time)
		}
		if b.Modified {
			s.WriteString(", with uncommitted changes")
		}
		s.WriteString("\n")
	}
	fmt.Fprintf(&s, "catalog derivation %d\n", b.Derivation)
	fmt.Fprintf(&s, "built with %s for %s\n", b.Go, b.Platform)
	return s.String()
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print pidex's version, commit and catalog derivation",
		Long: `Print the version of this pidex (the module version, "(devel)" for a build
from a checkout), the commit it was built from and whether it had
uncommitted changes, the catalog derivation (the version of the ingest
logic: a catalog stamped with another derivation is rebuilt from the
session files when this pidex opens it), and the Go toolchain. --json
prints {version, revision, time, modified, derivation, go, platform}.
pidex --version prints the same text.`,
		Example: `  pidex version
  pidex --version
  pidex version --json | jq .derivation`,
		Args: a.noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := readBuildInfo()
			if a.json {
				return render.WriteJSON(a.stdout, b)
			}
			_, err := fmt.Fprint(a.stdout, b.String())
			return err
		},
	}
}
