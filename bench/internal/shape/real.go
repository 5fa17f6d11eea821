package shape

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RealSizes are the size figures of 146 real pi and OpenClaw session files
// from public repositories (55 MB, 18,909 entries), as measured for issue
// 38 (/work/shared/reference/pi-family.md, "What real session files look
// like"). Those files are not in the repository nor on the build machine,
// so these figures are kept as measured; the 8 real files that are
// (real.json) measure 452 entries/MB, p50 867 B, mean 2.2 KB, a smaller
// and less varied sample. gencorpus -shape real is tuned to these.
var RealSizes = Sizes{EntriesPerMB: 344, P10: 223, P50: 604, P90: 3500, P99: 35000, Mean: 2900}

// RealFixtures is the directory real.json is measured from (go test
// ./bench/internal/shape -update): unmodified copies of real session files
// (its README names each file's origin).
const RealFixtures = "/work/shared/fixtures/pi-real"

// RealFiles lists the session files of dir that real.json measures: every
// *.jsonl but the earlier snapshot of a session whose later copy is there
// too (a byte prefix of it; counting both would count that session's first
// 185 entries twice).
func RealFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list real files: %w", err)
	}
	var out []string
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".jsonl") && !strings.Contains(n, ".earlier-snapshot.") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out, nil
}

//go:embed real.json
var realJSON []byte

// Real returns the figures of the real files in RealFixtures: the kinds
// and blocks gencorpus -shape real follows.
func Real() *Figures {
	var f Figures
	if err := json.Unmarshal(realJSON, &f); err != nil {
		panic(fmt.Sprintf("shape: real.json: %v", err))
	}
	return &f
}
