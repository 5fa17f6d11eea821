package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
)

// PriceRow is a model of the price table as `pidex prices --json` writes
// it: USD per million tokens (a one-hour cache write of 0 is priced as a
// cache write).
type PriceRow struct {
	Model        string  `json:"model"`
	Source       string  `json:"source"`
	Input        float64 `json:"input"`
	Output       float64 `json:"output"`
	CacheRead    float64 `json:"cacheRead"`
	CacheWrite   float64 `json:"cacheWrite"`
	CacheWrite1h float64 `json:"cacheWrite1h"`
}

// PricesDoc is `pidex prices --json`.
type PricesDoc struct {
	Date    string              `json:"date"`
	Unit    string              `json:"unit"`
	Sources []pidex.PriceSource `json:"sources"`
	Models  []PriceRow          `json:"models"`
}

// MissingDoc is `pidex prices --missing --json`: the catalog's models the
// table does not price.
type MissingDoc struct {
	Date    string         `json:"date"`
	Missing []MissingModel `json:"missing"`
}

// MissingModel is one of them, with its figures over every call.
type MissingModel struct {
	Model          string  `json:"model"`
	Calls          int64   `json:"calls"`
	TotalTokens    float64 `json:"totalTokens"`
	Cost           float64 `json:"cost"`
	UnpricedCalls  int64   `json:"unpricedCalls"`
	UnpricedTokens float64 `json:"unpricedTokens"`
}

// perMillion is a price per token per million tokens, as the table file
// holds it (12 significant digits: 3e-06 is 3).
func perMillion(p float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(p*1e6, 'g', 12, 64), 64)
	return v
}

// Prices lays the table's models out (JSON: PricesDoc).
func Prices(t *pidex.PriceTable, models []pidex.PriceEntry) PricesDoc {
	d := PricesDoc{Date: t.Date, Unit: pidex.PriceTableUnit, Sources: t.Sources, Models: make([]PriceRow, len(models))}
	for i, m := range models {
		d.Models[i] = PriceRow{Model: m.Model, Source: t.SourceLabel(m.Source), Input: perMillion(m.Input), Output: perMillion(m.Output),
			CacheRead: perMillion(m.CacheRead), CacheWrite: perMillion(m.CacheWrite), CacheWrite1h: perMillion(m.CacheWrite1h)}
	}
	return d
}

// PricesHeading is the table's date and sources in a sentence, what a
// terminal shows above its models, wrapped to width cells (0: one line).
func PricesHeading(t *pidex.PriceTable, width int) string {
	var src []string
	for _, s := range t.Sources {
		from := s.Package
		if from == "" {
			from = s.Repository + " " + s.File
		}
		src = append(src, fmt.Sprintf("%s (%s, %s, %s licence, %s models)", t.SourceLabel(s.Name), from, s.Date, s.Licence,
			text.Count(int64(s.Models))))
	}
	return wrapWords(fmt.Sprintf("%s, in %s: %s.", t.Label(), pidex.PriceTableUnit, strings.Join(src, ", then ")), width)
}

// PricesTable writes the models as a table: on a terminal short (the
// source by name, its version and date being in the heading; prices per
// million tokens without their unit), the model's name cut last; piped
// tab-separated with the JSON's values.
func PricesTable(w io.Writer, d PricesDoc, tty bool, width int) error {
	if !tty {
		tb := NewTable(w, false, "model", "source", "input", "output", "cacheRead", "cacheWrite", "cacheWrite1h")
		for _, m := range d.Models {
			tb.Row(m.Model, m.Source, Num(m.Input), Num(m.Output), Num(m.CacheRead), Num(m.CacheWrite), Num(m.CacheWrite1h))
		}
		return tb.Flush()
	}
	tb := NewTable(w, true, "MODEL", "SOURCE", "IN", "OUT", "CACHE RD", "CACHE WR", "WR 1H")
	for _, m := range d.Models {
		name, _, _ := strings.Cut(m.Source, " ")
		tb.Row(m.Model, name, Num(m.Input), Num(m.Output), Num(m.CacheRead), Num(m.CacheWrite), Num(m.CacheWrite1h))
	}
	return tb.Fit(width, 0).Flush()
}

// Missing lays out the rows of a report by model that the table does not
// price (pidex.PriceTable.Missing).
func Missing(t *pidex.PriceTable, rows []pidex.CostRow) MissingDoc {
	d := MissingDoc{Date: t.Date, Missing: make([]MissingModel, len(rows))}
	for i, r := range rows {
		d.Missing[i] = MissingModel{Model: r.Keys[0], Calls: r.Calls, TotalTokens: r.TotalTokens, Cost: r.Cost,
			UnpricedCalls: r.UnpricedCalls, UnpricedTokens: r.UnpricedTokens}
	}
	return d
}

// MissingTable writes them as a table (tab-separated when piped).
func MissingTable(w io.Writer, d MissingDoc, tty bool, width int) error {
	var t *Table
	num, money := Num, func(f float64) string { return strconv.FormatFloat(f, 'f', 6, 64) }
	if tty {
		t = NewTable(w, true, "MODEL", "CALLS", "TOKENS", "COST", "UNPRICED CALLS", "UNPRICED TOKENS")
		num, money = text.Round, text.Money
	} else {
		t = NewTable(w, false, "model", "calls", "totalTokens", "cost", "unpricedCalls", "unpricedTokens")
	}
	for _, m := range d.Missing {
		t.Row(m.Model, num(float64(m.Calls)), num(m.TotalTokens), money(m.Cost), num(float64(m.UnpricedCalls)), num(m.UnpricedTokens))
	}
	return t.Fit(width, 0).Flush()
}
