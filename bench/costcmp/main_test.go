package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A day where ccusage counts a fork's copy: equal to the raw report, not to
// the deduplicated one; cost is compared to the cent.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	dedup := write(t, dir, "d.json", `{"rows":[{"day":"2026-01-02","input":100,"output":10,"cacheRead":0,"cacheWrite":0,"totalTokens":110,"cost":0.5,"calls":1}],"totals":{}}`)
	raw := write(t, dir, "r.json", `{"rows":[{"day":"2026-01-02","input":200,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":220,"cost":1.0,"calls":2}],"totals":{}}`)
	cc := write(t, dir, "c.json", `{"daily":[{"date":"2026-01-02","inputTokens":200,"outputTokens":20,"cacheReadTokens":0,"cacheCreationTokens":0,"totalTokens":220,"totalCost":1.004}]}`)
	var out strings.Builder
	ok, err := run(&out, dedup, raw, cc, "raw")
	if err != nil || !ok {
		t.Fatalf("expect raw: ok=%v err=%v\n%s", ok, err, out.String())
	}
	if !strings.Contains(out.String(), "ccusage equals pidex dedup on 0, pidex raw (--no-dedup) on 1") ||
		!strings.Contains(out.String(), "ccusage - dedup: in +100 out +10") {
		t.Errorf("output:\n%s", out.String())
	}
	if ok, _ := run(&out, dedup, raw, cc, "dedup"); ok {
		t.Error("expect dedup passed on a day that differs")
	}
	cc2 := write(t, dir, "c2.json", `{"daily":[{"date":"2026-01-02","inputTokens":200,"outputTokens":20,"cacheReadTokens":0,"cacheCreationTokens":0,"totalTokens":220,"totalCost":1.006}]}`)
	if ok, _ := run(&out, dedup, raw, cc2, "raw"); ok {
		t.Error("a cost 0.6 cents off was taken as equal")
	}
}
