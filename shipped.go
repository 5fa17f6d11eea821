package pidex

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The price table pidex ships (prices/shipped.json, made by prices/gen
// from pi's own model table, then LiteLLM's for the models pi's lacks):
// what tells a free model from one pi had no price for (Unpriced), and
// what `pidex cost --estimate` prices such calls with. It is read on
// first use only: most reports never need it.
//
//go:embed prices/shipped.json
var shippedJSON []byte

// PriceTable is a dated price table: its models' prices and where they
// come from. A report looks a few models up (Lookup) in the file's lines
// as they are, by binary search: reading every line first cost a report
// that meets an unpriced call 3 ms of its 15. Models reads them all.
type PriceTable struct {
	Date    string        `json:"date"` // the newest of its sources' dates (YYYY-MM-DD)
	Sources []PriceSource `json:"sources"`
	body    []byte        // the model lines
	starts  []int         // each line's offset in body, and len(body)+1 last
	all     struct {
		once   sync.Once
		models []PriceEntry
		err    error
	}
	cased struct { // the lines of names not in lower case, by their lower case
		once sync.Once
		m    map[string]int
	}
	found struct { // Lookup's answers: a report asks of one model again and again
		sync.Mutex
		m map[[2]string]foundPrice
	}
}

type foundPrice struct {
	Price
	ok bool
}

// A Pricer finds a model's price: a prices file (Prices) or a price
// table.
type Pricer interface {
	Lookup(provider, model string) (Price, bool)
}

// PriceSource is where a table's prices come from.
type PriceSource struct {
	Name       string `json:"name"`                 // short: pi-ai, litellm
	Package    string `json:"package,omitempty"`    // the npm package it was read from
	Version    string `json:"version,omitempty"`    // the package's version
	Repository string `json:"repository,omitempty"` // the repository whose file it is
	File       string `json:"file,omitempty"`       // the file read
	Date       string `json:"date"`                 // the date the source gives its data (YYYY-MM-DD)
	Licence    string `json:"licence"`
	Models     int    `json:"models"` // models taken from it
	About      string `json:"about"`
}

// PriceEntry is one model of a table: its name as LookupNames finds it,
// its source's name and its price (USD per token).
type PriceEntry struct {
	Model  string
	Source string
	Price
}

// Label names the table for a report's note: "pidex's price table of
// 2026-11-20".
func (t *PriceTable) Label() string { return "pidex's price table of " + t.Date }

// ShippedPrices is the price table built into pidex. A table that does
// not read is a build that must not pass its tests (TestShippedPrices
// reads every line), so it panics rather than report every call unpriced.
func ShippedPrices() *PriceTable {
	shipped.once.Do(func() {
		var err error
		if shipped.t, err = openPriceTable(shippedJSON); err != nil {
			panic(fmt.Sprintf("pidex: the shipped price table: %v", err))
		}
	})
	return shipped.t
}

var shipped struct {
	once sync.Once
	t    *PriceTable
}

// priceTableFile is prices/shipped.json: prices in USD per million tokens,
// one model a line, each [source index, input, output, cache read, cache
// write, one-hour cache write (0: as cache write)].
type priceTableFile struct {
	Date    string                `json:"date"`
	Unit    string                `json:"unit"`
	Columns []string              `json:"columns"`
	Sources []PriceSource         `json:"sources"`
	Models  map[string][6]float64 `json:"models"`
}

// PriceTableUnit and PriceTableColumns are the table file's shape, which
// its reader and its generator share.
const PriceTableUnit = "USD per million tokens"

var PriceTableColumns = []string{"source", "input", "output", "cacheRead", "cacheWrite", "cacheWrite1h"}

// ReadPriceTable reads a table file in prices/shipped.json's format (as
// prices/gen writes it), every line of it.
func ReadPriceTable(b []byte) (*PriceTable, error) {
	t, err := openPriceTable(b)
	if err != nil {
		return nil, err
	}
	if _, err := t.models(); err != nil {
		return nil, err
	}
	return t, nil
}

// openPriceTable reads a table's head (date, unit, sources) and finds its
// model lines, one a line, sorted by name (TestShippedPrices checks the
// file as JSON too).
func openPriceTable(b []byte) (*PriceTable, error) {
	const modelsLine = "\n  \"models\": {\n"
	head, body, ok := bytes.Cut(b, []byte(modelsLine))
	if !ok {
		return nil, errors.New("no models line")
	}
	var f priceTableFile
	if err := json.Unmarshal(append(slices.Clip(head), ` "models": {}}`...), &f); err != nil {
		return nil, err
	}
	if f.Unit != PriceTableUnit || !slices.Equal(f.Columns, PriceTableColumns) {
		return nil, fmt.Errorf("unit %q, columns %v: want %q, %v", f.Unit, f.Columns, PriceTableUnit, PriceTableColumns)
	}
	body, ok = bytes.CutSuffix(body, []byte("\n  }\n}\n"))
	if !ok {
		return nil, errors.New("the models do not end the file")
	}
	t := &PriceTable{Date: f.Date, Sources: f.Sources, body: body, starts: make([]int, 0, bytes.Count(body, []byte("\n"))+2)}
	for i := 0; ; {
		t.starts = append(t.starts, i)
		j := bytes.IndexByte(body[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
	}
	t.starts = append(t.starts, len(body)+1)
	return t, nil
}

// lines is the number of model lines.
func (t *PriceTable) lines() int { return len(t.starts) - 1 }

func (t *PriceTable) line(i int) []byte { return t.body[t.starts[i] : t.starts[i+1]-1] }

// name is line i's model name as the file writes it (the generator
// writes names that need no escape).
func (t *PriceTable) name(i int) []byte {
	l := t.line(i)
	if len(l) < 6 || l[4] != '"' {
		return nil
	}
	end := bytes.Index(l[5:], []byte(`": [`))
	if end < 0 {
		return nil
	}
	return l[5 : 5+end]
}

// entry reads line i.
func (t *PriceTable) entry(i int) (PriceEntry, error) {
	name, e, err := parsePriceLine(t.line(i), len(t.Sources))
	if err != nil {
		return PriceEntry{}, fmt.Errorf("model line %d: %w", i+1, err)
	}
	return PriceEntry{Model: name, Source: t.Sources[e.src].Name, Price: e.Price}, nil
}

// Lookup finds a model's price as Prices.Lookup does (LookupNames in
// order, exact case first, then any case), reading only the lines it
// finds, and remembers its answer: a report asks it of each of its parts.
// The any-case pass finds a lower-case name by binary search too, and the
// few names with capitals in an index made once (a scan of every name for
// each name looked up took 0.4 ms a part).
func (t *PriceTable) Lookup(provider, model string) (Price, bool) {
	if model == "" {
		return Price{}, false
	}
	key := [2]string{provider, model}
	t.found.Lock()
	f, done := t.found.m[key]
	t.found.Unlock()
	if !done {
		f.Price, f.ok = t.lookup(LookupNames(provider, model))
		t.found.Lock()
		if t.found.m == nil {
			t.found.m = map[[2]string]foundPrice{}
		}
		t.found.m[key] = f
		t.found.Unlock()
	}
	return f.Price, f.ok
}

func (t *PriceTable) lookup(names []string) (Price, bool) {
	for _, name := range names {
		if i, ok := t.find(name); ok {
			return t.price(i)
		}
	}
	t.cased.once.Do(func() {
		t.cased.m = map[string]int{}
		for i := range t.lines() {
			name := t.name(i)
			if slices.ContainsFunc(name, func(c byte) bool { return c >= 0x80 || 'A' <= c && c <= 'Z' }) {
				t.cased.m[strings.ToLower(string(name))] = i
			}
		}
	})
	for _, name := range names {
		lower := strings.ToLower(name)
		if i, ok := t.cased.m[lower]; ok {
			return t.price(i)
		}
		if i, ok := t.find(lower); ok {
			return t.price(i)
		}
	}
	return Price{}, false
}

// find is the line of a name, by binary search.
func (t *PriceTable) find(name string) (int, bool) {
	b, n := []byte(name), t.lines()
	i := sort.Search(n, func(i int) bool { return bytes.Compare(t.name(i), b) >= 0 })
	return i, i < n && bytes.Equal(t.name(i), b)
}

func (t *PriceTable) price(i int) (Price, bool) {
	e, err := t.entry(i)
	return e.Price, err == nil
}

// Models are the table's models, by name.
func (t *PriceTable) Models() []PriceEntry {
	m, err := t.models()
	if err != nil {
		panic(fmt.Sprintf("pidex: the price table: %v", err))
	}
	return m
}

func (t *PriceTable) models() ([]PriceEntry, error) {
	t.all.once.Do(func() {
		out := make([]PriceEntry, 0, t.lines())
		for i := range t.lines() {
			e, err := t.entry(i)
			if err != nil {
				t.all.err = err
				return
			}
			if string(t.name(i)) != e.Model {
				t.all.err = fmt.Errorf("model line %d: %q: want a name written as it is, without escapes (Lookup searches the lines)", i+1, e.Model)
				return
			}
			if len(out) > 0 && out[len(out)-1].Model >= e.Model {
				t.all.err = fmt.Errorf("model %q after %q: want the models sorted, each once", e.Model, out[len(out)-1].Model)
				return
			}
			out = append(out, e)
		}
		t.all.models = out
	})
	return t.all.models, t.all.err
}

type priceLine struct {
	PriceEntry
	src int
}

// parsePriceLine reads `    "NAME": [SOURCE, IN, OUT, CR, CW, CW1H],`.
func parsePriceLine(line []byte, sources int) (string, priceLine, error) {
	var e priceLine
	line = bytes.TrimSuffix(bytes.TrimPrefix(line, []byte("    ")), []byte(","))
	q, list, ok := bytes.Cut(line, []byte(": ["))
	if !ok || !bytes.HasSuffix(list, []byte("]")) {
		return "", e, fmt.Errorf("%q: want \"NAME\": [SOURCE, PRICES…]", line)
	}
	var name string
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' && bytes.IndexByte(q, '\\') < 0 {
		name = string(q[1 : len(q)-1]) // no escapes: the name as it is
	} else if err := json.Unmarshal(q, &name); err != nil {
		return "", e, fmt.Errorf("%q: %w", q, err)
	}
	var fields [6][]byte
	rest := list[:len(list)-1]
	for i := range fields {
		if i == len(fields)-1 {
			fields[i], rest = rest, nil
			break
		}
		var ok bool
		if fields[i], rest, ok = bytes.Cut(rest, []byte(", ")); !ok {
			return "", e, fmt.Errorf("model %q: %d columns, want %d", name, i+1, len(PriceTableColumns))
		}
	}
	if bytes.Contains(fields[5], []byte(",")) {
		return "", e, fmt.Errorf("model %q: %d columns, want %d", name, len(fields), len(PriceTableColumns))
	}
	var err error
	if e.src, err = strconv.Atoi(string(fields[0])); err != nil || e.src < 0 || e.src >= sources {
		return "", e, fmt.Errorf("model %q: source %s: want an index into sources", name, fields[0])
	}
	var v [5]float64
	for i, s := range fields[1:] {
		x, err := strconv.ParseFloat(string(s), 64)
		if err != nil || x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return "", e, fmt.Errorf("model %q: price %s: want a finite, non-negative number", name, s)
		}
		v[i] = x / 1e6 // per million tokens in the file, per token here (as LiteLLM's)
	}
	e.Price = Price{Input: v[0], Output: v[1], CacheRead: v[2], CacheWrite: v[3], CacheWrite1h: v[4]}
	return name, e, nil
}

// Unpriced is the rule of honest prices (issue 36): calls that pi
// recorded at $0 although they used tokens (ZeroCostSQL) mean "pi had no
// price", not "free", unless the shipped table prices their model as
// free (OpenRouter's :free models, a token plan's). Such calls are
// unpriced: a report names them, their count and their tokens, and never
// adds them as $0.
func Unpriced(provider, model string) bool {
	p, ok := ShippedPrices().Lookup(provider, model)
	return !ok || !p.Free()
}

// ZeroCostSQL is the index-time half of the rule, in SQL over a usage
// record's columns (u: the table's alias with its dot, or ""): the call
// used tokens and pi recorded its cost as exactly 0. The indexer keeps
// such calls apart in the rollups (column zero_cost), and a report reads
// them there; the statements that read single records use it too. It is
// true or false in SQLite and PostgreSQL alike.
func ZeroCostSQL(u string) string {
	return "(" + u + "cost_total = 0 AND (" + u + "input > 0 OR " + u + "output > 0 OR " + u + "cache_read > 0 OR " +
		u + "cache_write > 0 OR " + u + "total_tokens > 0))"
}

// Matching are the table's models whose name contains one of words,
// ignoring ASCII case (none: every model), by name.
func (t *PriceTable) Matching(words []string) []PriceEntry {
	if len(words) == 0 {
		return t.Models()
	}
	var out []PriceEntry
	for _, e := range t.Models() {
		name := strings.ToLower(e.Model)
		for _, w := range words {
			if strings.Contains(name, strings.ToLower(w)) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

// Missing are the rows of a report by model (CostReport.By ["model"])
// whose model the table does not price: calls --estimate cannot price,
// and whose cost pi recorded without the table's help.
func (t *PriceTable) Missing(r *CostReport) []CostRow {
	var out []CostRow
	for _, row := range r.Rows {
		provider, model, _ := strings.Cut(row.Keys[0], "/")
		if row.Keys[0] == "unknown" {
			provider, model = "", ""
		}
		if _, ok := t.Lookup(provider, model); !ok {
			out = append(out, row)
		}
	}
	return out
}

// SourceLabel names a source briefly, with its version or date:
// "pi-ai 1.6.0", "litellm 2026-07-24".
func (t *PriceTable) SourceLabel(name string) string {
	for _, s := range t.Sources {
		if s.Name == name {
			if s.Version != "" {
				return s.Name + " " + s.Version
			}
			return s.Name + " " + s.Date
		}
	}
	return name
}
