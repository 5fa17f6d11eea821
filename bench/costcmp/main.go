// Command costcmp compares daily cost reports of pidex and ccusage:
//
//	costcmp -dedup pidex.json [-raw pidex-raw.json] -ccusage ccusage.json [-expect dedup|raw]
//
// pidex.json is `pidex cost --by day --json` (with --source assistant, the
// only source ccusage reads), pidex-raw.json the same with --no-dedup, and
// ccusage.json `ccusage pi daily --json`. It prints every day on which the
// reports differ, tokens to the unit and cost to the cent, then the totals
// and how many days ccusage agrees with each pidex report. With -expect it
// exits 1 unless ccusage equals that report on every day.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
)

// day is one day's sums, in either report.
type day struct {
	Input, Output, CacheRead, CacheWrite, Total float64
	Cost                                        float64
}

func (d day) add(o day) day {
	return day{d.Input + o.Input, d.Output + o.Output, d.CacheRead + o.CacheRead, d.CacheWrite + o.CacheWrite, d.Total + o.Total, d.Cost + o.Cost}
}

// equal: tokens to the unit, cost to the cent (rounding noise of summing
// floats in another order is far below a cent).
func (d day) equal(o day) bool {
	return d.Input == o.Input && d.Output == o.Output && d.CacheRead == o.CacheRead &&
		d.CacheWrite == o.CacheWrite && d.Total == o.Total && math.Abs(d.Cost-o.Cost) < 0.005
}

func (d day) String() string {
	return fmt.Sprintf("in %.0f out %.0f cr %.0f cw %.0f total %.0f $%.2f", d.Input, d.Output, d.CacheRead, d.CacheWrite, d.Total, d.Cost)
}

func main() {
	dedupPath := flag.String("dedup", "", "pidex cost --by day --json (required)")
	rawPath := flag.String("raw", "", "pidex cost --by day --json --no-dedup (optional)")
	ccPath := flag.String("ccusage", "", "ccusage pi daily --json (required)")
	expect := flag.String("expect", "", "exit 1 unless ccusage equals this report on every day: dedup or raw")
	flag.Parse()
	if *dedupPath == "" || *ccPath == "" || (*expect != "" && *expect != "dedup" && *expect != "raw") || (*expect == "raw" && *rawPath == "") {
		flag.Usage()
		os.Exit(2)
	}
	ok, err := run(os.Stdout, *dedupPath, *rawPath, *ccPath, *expect)
	if err != nil {
		fmt.Fprintln(os.Stderr, "costcmp:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(w io.Writer, dedupPath, rawPath, ccPath, expect string) (bool, error) {
	dedup, err := readPidex(dedupPath)
	if err != nil {
		return false, err
	}
	raw := map[string]day{}
	if rawPath != "" {
		if raw, err = readPidex(rawPath); err != nil {
			return false, err
		}
	}
	cc, err := readCcusage(ccPath)
	if err != nil {
		return false, err
	}
	days := map[string]bool{}
	for _, m := range []map[string]day{dedup, raw, cc} {
		for k := range m {
			days[k] = true
		}
	}
	keys := slices.Sorted(maps.Keys(days))
	var tDedup, tRaw, tCC day
	var sameDedup, sameRaw int
	for _, k := range keys {
		d, r, c := dedup[k], raw[k], cc[k]
		tDedup, tRaw, tCC = tDedup.add(d), tRaw.add(r), tCC.add(c)
		eqD, eqR := c.equal(d), rawPath != "" && c.equal(r)
		if eqD {
			sameDedup++
		}
		if eqR {
			sameRaw++
		}
		if eqD && (rawPath == "" || eqR) {
			continue
		}
		fmt.Fprintf(w, "%s  ccusage %s\n", k, c)
		fmt.Fprintf(w, "%s  dedup   %s  (ccusage - dedup: %s)\n", pad(k), d, diff(c, d))
		if rawPath != "" {
			fmt.Fprintf(w, "%s  raw     %s  (ccusage - raw: %s)\n", pad(k), r, diff(c, r))
		}
	}
	fmt.Fprintf(w, "days: %d; ccusage equals pidex dedup on %d", len(keys), sameDedup)
	if rawPath != "" {
		fmt.Fprintf(w, ", pidex raw (--no-dedup) on %d", sameRaw)
	}
	fmt.Fprintf(w, "\ntotal ccusage     %s\ntotal pidex dedup %s\n", tCC, tDedup)
	if rawPath != "" {
		fmt.Fprintf(w, "total pidex raw   %s\n", tRaw)
	}
	switch expect {
	case "dedup":
		return sameDedup == len(keys), nil
	case "raw":
		return sameRaw == len(keys), nil
	}
	return true, nil
}

func pad(s string) string { return fmt.Sprintf("%*s", len(s), "") }

func diff(a, b day) string {
	return fmt.Sprintf("in %+.0f out %+.0f cr %+.0f cw %+.0f total %+.0f $%+.4f",
		a.Input-b.Input, a.Output-b.Output, a.CacheRead-b.CacheRead, a.CacheWrite-b.CacheWrite, a.Total-b.Total, a.Cost-b.Cost)
}

func readPidex(path string) (map[string]day, error) {
	var doc struct {
		Rows []struct {
			Day                                  *string
			Input, Output, CacheRead, CacheWrite float64
			TotalTokens, Cost                    float64
		} `json:"rows"`
	}
	if err := readJSON(path, &doc); err != nil {
		return nil, err
	}
	out := map[string]day{}
	for _, r := range doc.Rows {
		if r.Day == nil {
			return nil, fmt.Errorf("read %s: a row without \"day\" (run pidex cost --by day)", path)
		}
		out[*r.Day] = out[*r.Day].add(day{r.Input, r.Output, r.CacheRead, r.CacheWrite, r.TotalTokens, r.Cost})
	}
	return out, nil
}

func readCcusage(path string) (map[string]day, error) {
	var doc struct {
		Daily []struct {
			Date                                 string
			InputTokens, OutputTokens            float64
			CacheReadTokens, CacheCreationTokens float64
			TotalTokens, TotalCost               float64
		} `json:"daily"`
	}
	if err := readJSON(path, &doc); err != nil {
		return nil, err
	}
	out := map[string]day{}
	for _, r := range doc.Daily {
		out[r.Date] = out[r.Date].add(day{r.InputTokens, r.OutputTokens, r.CacheReadTokens, r.CacheCreationTokens, r.TotalTokens, r.TotalCost})
	}
	return out, nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read report: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}
