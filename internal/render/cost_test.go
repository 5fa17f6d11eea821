package render

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
)

// unpricedReport is a report by day with unpriced calls on its second
// day, estimated in part.
func unpricedReport(estimate bool) *pidex.CostReport {
	day1 := pidex.CostSums{Calls: 3, Input: 4000, Output: 700, TotalTokens: 4700, Cost: 0.5}
	day2 := pidex.CostSums{Calls: 3, Input: 1100, Output: 450, CacheRead: 300, CacheWrite: 25, TotalTokens: 1875,
		UnpricedCalls: 2, UnpricedTokens: 1475, UnpricedModels: []string{"my-proxy/claude-opus-4-5", "ollama/glm-4.6"}}
	r := &pidex.CostReport{By: []string{"day"}, Rows: []pidex.CostRow{{Keys: []string{"2026-05-01"}, CostSums: day1}, {Keys: []string{"2026-05-02"}, CostSums: day2}}}
	if estimate {
		r.EstimatedWith = "pidex's price table of 2026-11-20"
		r.Rows[1].Estimated, r.Rows[1].EstimatedCalls, r.Rows[1].NoEstimate = 0.0021, 1, []string{"ollama/glm-4.6"}
	}
	for _, row := range r.Rows {
		r.Totals.Add(row.CostSums)
	}
	return r
}

// Unpriced calls are said in every form: the JSON's fields, the CSV's
// columns, the table's asterisk and note; an estimate is a figure of its
// own, named, never added to the cost.
func TestCostUnpricedForms(t *testing.T) {
	for _, estimate := range []bool{false, true} {
		r := unpricedReport(estimate)
		var j bytes.Buffer
		if err := CostJSON(&j, r); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Rows          []map[string]any
			Totals        map[string]any
			EstimatedWith *string
		}
		if err := json.Unmarshal(j.Bytes(), &doc); err != nil {
			t.Fatalf("%v: %s", err, j.String())
		}
		tot := doc.Totals
		if tot["unpricedCalls"] != 2.0 || tot["unpricedTokens"] != 1475.0 || tot["cost"] != 0.5 ||
			strings.Join(toStrings(tot["unpricedModels"]), ",") != "my-proxy/claude-opus-4-5,ollama/glm-4.6" {
			t.Errorf("estimate %v: JSON totals %v", estimate, tot)
		}
		if doc.Rows[0]["unpricedCalls"] != 0.0 || len(toStrings(doc.Rows[0]["unpricedModels"])) != 0 || doc.Rows[0]["unpricedModels"] == nil {
			t.Errorf("estimate %v: JSON row without unpriced calls %v", estimate, doc.Rows[0])
		}
		_, has := tot["estimatedCost"]
		if has != estimate || (doc.EstimatedWith != nil) != estimate {
			t.Errorf("estimate %v: JSON has estimatedCost %v, estimatedWith %v", estimate, has, doc.EstimatedWith)
		}
		if estimate && (tot["estimatedCost"] != 0.0021 || tot["estimatedCalls"] != 1.0 || doc.Rows[0]["estimatedCost"] != 0.0 ||
			strings.Join(toStrings(tot["notEstimated"]), ",") != "ollama/glm-4.6") {
			t.Errorf("JSON estimate: totals %v, first row %v", tot, doc.Rows[0])
		}

		var c bytes.Buffer
		if err := CostCSV(&c, r, false); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&c).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		total := recs[len(recs)-1]
		if total[col["unpricedCalls"]] != "2" || total[col["unpricedTokens"]] != "1475" || total[col["cost"]] != "0.500000" ||
			total[col["unpricedModels"]] != "my-proxy/claude-opus-4-5 ollama/glm-4.6" {
			t.Errorf("estimate %v: CSV totals %v of %v", estimate, total, recs[0])
		}
		if i, ok := col["estimatedCost"]; ok != estimate || (estimate && (total[i] != "0.002100" || recs[1][i] != "0.000000" ||
			total[col["notEstimated"]] != "ollama/glm-4.6")) {
			t.Errorf("estimate %v: CSV estimate columns %v, totals %v", estimate, recs[0], total)
		}

		var tb bytes.Buffer
		if err := CostTable(&tb, r, true, 0); err != nil {
			t.Fatal(err)
		}
		if err := CostNote(&tb, r, "pidex cost --estimate prices them", 0); err != nil {
			t.Fatal(err)
		}
		out := tb.String()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if !strings.Contains(lines[1], "$0.50 ") && !strings.HasSuffix(lines[1], "$0.50") || strings.Contains(lines[1], "*") ||
			!strings.Contains(lines[2], "$0.00*") || !strings.Contains(lines[3], "$0.50*") {
			t.Errorf("estimate %v: the cost column's asterisks:\n%s", estimate, out)
		}
		note := lines[len(lines)-1]
		for _, w := range []string{"* unpriced: 2 calls, 1,475 tokens, of my-proxy/claude-opus-4-5, ollama/glm-4.6", "pi recorded them at $0"} {
			if !strings.Contains(note, w) {
				t.Errorf("estimate %v: note %q lacks %q", estimate, note, w)
			}
		}
		if got := strings.Contains(note, "estimated $0.0021 for 1 of them with pidex's price table of 2026-11-20") &&
			strings.Contains(note, "(no price for ollama/glm-4.6)") && strings.Contains(lines[0], "estimated"); got != estimate {
			t.Errorf("estimate %v: note and header say the estimate: %v\n%s", estimate, got, out)
		}
		if strings.Contains(note, "--estimate prices them") == estimate {
			t.Errorf("estimate %v: the hint: %q", estimate, note)
		}
	}
	// A report without unpriced calls has no note and no asterisk.
	r := unpricedReport(false)
	r.Rows, r.Totals = r.Rows[:1], r.Rows[0].CostSums
	var tb bytes.Buffer
	if err := CostTable(&tb, r, true, 0); err != nil || CostNote(&tb, r, "hint", 0) != nil {
		t.Fatal(err)
	}
	if strings.Contains(tb.String(), "*") || strings.Contains(tb.String(), "unpriced") {
		t.Errorf("a report without unpriced calls:\n%s", tb.String())
	}
}

// The note wraps at the terminal's width, between words.
func TestCostNoteWraps(t *testing.T) {
	var b bytes.Buffer
	if err := CostNote(&b, unpricedReport(true), "", 40); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) < 3 {
		t.Errorf("not wrapped:\n%s", b.String())
	}
	for _, l := range lines {
		if len(l) > 40 && strings.Contains(l, " ") {
			t.Errorf("line of %d cells: %q", len(l), l)
		}
	}
}

func toStrings(v any) []string {
	l, _ := v.([]any)
	out := []string{}
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
