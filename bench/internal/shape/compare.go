package shape

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Tolerances of Compare: sizes within SizeTolerance of the real figure.
// A kind's share of entries within ShareTolerance of the real one, or
// within two standard errors of the real count (Poisson: 2·√n of N
// entries; the real sample is 7 files, and a kind such as custom comes
// from two of them), or within ShareSlack (absolute), whichever is widest:
// kinds the real files hold a handful of (or none: labels, names, branch
// summaries) stay rare rather than absent. A block's rate per message of
// its role likewise, with RateSlack.
const (
	SizeTolerance  = 0.10
	ShareTolerance = 0.10
	ShareSlack     = 0.0025
	RateSlack      = 0.03
)

// Row is one compared figure.
type Row struct {
	Name      string
	Got, Want float64
	OK        bool
}

// Compare sets got beside the real sizes want and the real kinds and blocks
// of real (nil: sizes only), one row per figure.
func Compare(got *Figures, want Sizes, real *Figures) []Row {
	rows := []Row{
		sizeRow("entries/MB", got.EntriesPerMB, want.EntriesPerMB),
		sizeRow("line p10", float64(got.P10), float64(want.P10)),
		sizeRow("line p50", float64(got.P50), float64(want.P50)),
		sizeRow("line p90", float64(got.P90), float64(want.P90)),
		sizeRow("line p99", float64(got.P99), float64(want.P99)),
		sizeRow("line mean", got.Mean, want.Mean),
	}
	if real == nil {
		return rows
	}
	for _, k := range unionKeys(got.Kinds, real.Kinds) {
		g, w := got.share(k), real.share(k)
		slack := max(ShareSlack, twoSE(real.count(k), real.Entries))
		rows = append(rows, Row{"kind " + k, g, w, within(g, w, ShareTolerance, slack)})
	}
	gr, wr := got.BlockRates(), real.BlockRates()
	for _, b := range unionKeys(gr, wr) {
		role, _, _ := strings.Cut(b, "/")
		slack := max(RateSlack, twoSE(real.Blocks[b], real.count("message/"+role)))
		rows = append(rows, Row{"block " + b, gr[b], wr[b], within(gr[b], wr[b], ShareTolerance, slack)})
	}
	return rows
}

// BlockRates gives, for each "<role>/<block>", blocks per message entry
// of that role.
func (f *Figures) BlockRates() map[string]float64 {
	m := map[string]float64{}
	for b, n := range f.Blocks {
		role, _, _ := strings.Cut(b, "/")
		if k := f.Kinds["message/"+role]; k != nil && k.Count > 0 {
			m[b] = round(float64(n)/float64(k.Count), 4)
		}
	}
	return m
}

// twoSE is two standard errors of a count n out of total, as a share.
func twoSE(n, total int64) float64 {
	if total <= 0 {
		return 0
	}
	return 2 * math.Sqrt(float64(n)) / float64(total)
}

func (f *Figures) count(kind string) int64 {
	if k := f.Kinds[kind]; k != nil {
		return k.Count
	}
	return 0
}

func (f *Figures) share(kind string) float64 {
	if k := f.Kinds[kind]; k != nil {
		return k.Share
	}
	return 0
}

func sizeRow(name string, got, want float64) Row {
	return Row{name, got, want, want > 0 && math.Abs(got-want) <= SizeTolerance*want}
}

func within(got, want, rel, abs float64) bool {
	return math.Abs(got-want) <= max(rel*want, abs)+1e-12
}

func unionKeys[V any](a, b map[string]V) []string {
	var ks []string
	for k := range a {
		ks = append(ks, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	slices.Sort(ks)
	return ks
}

// WriteRows prints rows as a table: figure, real, this corpus, ratio.
func WriteRows(w io.Writer, rows []Row) {
	fmt.Fprintf(w, "%-34s %12s %12s %7s\n", "figure", "real", "this", "ratio")
	for _, r := range rows {
		mark := ""
		if !r.OK {
			mark = "  <- off"
		}
		ratio := "-"
		if r.Want > 0 {
			ratio = fmt.Sprintf("%.2f", r.Got/r.Want)
		}
		fmt.Fprintf(w, "%-34s %12s %12s %7s%s\n", r.Name, num(r.Name, r.Want), num(r.Name, r.Got), ratio, mark)
	}
}

func num(name string, v float64) string {
	switch {
	case strings.HasPrefix(name, "kind "):
		return fmt.Sprintf("%.2f%%", 100*v)
	case strings.HasPrefix(name, "block "):
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// Write prints f: totals, sizes, then kinds by count with their share of
// entries and bytes and the percentiles of their lines, then block rates.
func Write(w io.Writer, f *Figures) {
	fmt.Fprintf(w, "files %d, bytes %d (%.1f MB), entries %d, malformed lines %d\n", f.Files, f.Bytes, float64(f.Bytes)/1e6, f.Entries, f.Malformed)
	fmt.Fprintf(w, "entries/MB %.1f; line size p10 %d, p50 %d, p90 %d, p99 %d, mean %.0f\n", f.EntriesPerMB, f.P10, f.P50, f.P90, f.P99, f.Mean)
	ks := unionKeys(f.Kinds, map[string]*Kind(nil))
	slices.SortStableFunc(ks, func(a, b string) int { return int(f.Kinds[b].Count - f.Kinds[a].Count) })
	fmt.Fprintf(w, "%-32s %9s %8s %8s %9s %9s %9s\n", "kind", "count", "entries", "bytes", "p10 line", "p50", "p90")
	for _, k := range ks {
		kd := f.Kinds[k]
		fmt.Fprintf(w, "%-32s %9d %7.2f%% %7.2f%% %9d %9d %9d\n", k, kd.Count, 100*kd.Share, 100*float64(kd.Bytes)/float64(max(1, f.Bytes)), kd.P10, kd.P50, kd.P90)
	}
	rates := f.BlockRates()
	bs := unionKeys(rates, map[string]float64(nil))
	fmt.Fprintf(w, "%-32s %9s %12s\n", "block", "count", "per message")
	for _, b := range bs {
		fmt.Fprintf(w, "%-32s %9d %12.3f\n", b, f.Blocks[b], rates[b])
	}
}
