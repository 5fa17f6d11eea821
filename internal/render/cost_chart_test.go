package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
)

// The terminal chart: one bar per period of a continuous axis (an empty
// week is a line of its own with $0.00), amounts in one format, every
// line within the width, labels whole.
func TestCostChartFits(t *testing.T) {
	r := &pidex.CostReport{By: []string{"week", "model"}, Rows: []pidex.CostRow{
		{Keys: []string{"2026-W01", "anthropic/claude-opus-4-5"}, CostSums: pidex.CostSums{Cost: 1153}},
		{Keys: []string{"2026-W01", "检索模型/大"}, CostSums: pidex.CostSums{Cost: 0.5}},
		{Keys: []string{"2026-W03", "anthropic/claude-opus-4-5"}, CostSums: pidex.CostSums{Cost: 12.25}},
	}}
	for _, width := range []int{40, 80, 160} {
		var b bytes.Buffer
		if err := CostChart(&b, r, width); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if w := text.Width(l); w > width {
				t.Errorf("width %d: a line of %d cells: %q", width, w, l)
			}
		}
		for _, want := range []string{"2026-W01 ", "2026-W02 ", "2026-W03 ", "$1,153.50\n", "$0.00\n", "$12.25\n", "检索模型/大 $0.50"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: the chart lacks %q:\n%s", width, want, out)
			}
		}
	}
}
