// Package shape measures the shape of a set of pi session files: entries
// per MB, the distribution of entry line sizes, and the share of each kind
// of entry and content block. bench/shape prints it for any folder, and
// gencorpus's tests compare a generated corpus with the real files' figures
// (real.json, measured by the same code; target.go for the sizes).
package shape

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Figures is what Measure finds. Sizes are bytes of an entry's line
// including its "\n"; header lines (type "session") count in Bytes but are
// not entries; lines that are not valid JSON are counted in Malformed and
// left out of everything else.
type Figures struct {
	Files     int   `json:"files"`
	Bytes     int64 `json:"bytes"`
	Entries   int64 `json:"entries"`
	Malformed int64 `json:"malformed"`

	Sizes

	// Kinds: entry type, or "message/<role>" for message entries.
	Kinds map[string]*Kind `json:"kinds"`
	// Blocks: content blocks by "<role>/<block type>" (assistant/thinking,
	// assistant/toolCall, user/image, toolResult/image, ...), counted once
	// per block.
	Blocks map[string]int64 `json:"blocks"`
}

// Sizes are the figures the corpus is tuned to.
type Sizes struct {
	EntriesPerMB float64 `json:"entriesPerMB"` // entries / (Bytes / 1e6)
	P10          int     `json:"p10"`
	P50          int     `json:"p50"`
	P90          int     `json:"p90"`
	P99          int     `json:"p99"`
	Mean         float64 `json:"mean"`
}

// Kind is one kind of entry.
type Kind struct {
	Count int64   `json:"count"`
	Share float64 `json:"share"` // of entries
	Bytes int64   `json:"bytes"`
	P10   int     `json:"p10"` // of its lines
	P50   int     `json:"p50"`
	P90   int     `json:"p90"`
	sizes []int32
}

// Measure reads every *.jsonl file under the given files and folders
// (recursively; a file named directly is read whatever its name).
func Measure(paths ...string) (*Figures, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("measure %s: %w", p, err)
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && strings.HasSuffix(d.Name(), ".jsonl") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("measure %s: %w", p, err)
		}
	}
	if len(files) == 0 {
		return nil, errors.New("measure: no .jsonl files")
	}
	sort.Strings(files)
	// Files are read in parallel; each gives its own tally, merged in file
	// order so that the result does not depend on scheduling.
	tallies := make([]*tally, len(files))
	errs := make([]error, len(files))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				tallies[i], errs[i] = measureFile(files[i])
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	f := &Figures{Files: len(files), Kinds: map[string]*Kind{}, Blocks: map[string]int64{}}
	var all []int32
	for _, t := range tallies {
		f.Bytes += t.bytes
		f.Malformed += t.malformed
		all = append(all, t.sizes...)
		for i, k := range t.kinds {
			kd := f.Kinds[k]
			if kd == nil {
				kd = &Kind{}
				f.Kinds[k] = kd
			}
			kd.sizes = append(kd.sizes, t.sizes[i])
		}
		for b, n := range t.blocks {
			f.Blocks[b] += n
		}
	}
	f.Entries = int64(len(all))
	f.Sizes = sizesOf(all, f.Bytes)
	for _, kd := range f.Kinds {
		kd.Count = int64(len(kd.sizes))
		kd.Share = round(float64(kd.Count)/float64(f.Entries), 5)
		for _, s := range kd.sizes {
			kd.Bytes += int64(s)
		}
		slices.Sort(kd.sizes)
		kd.P10, kd.P50, kd.P90 = percentile(kd.sizes, 0.1), percentile(kd.sizes, 0.5), percentile(kd.sizes, 0.9)
	}
	return f, nil
}

func sizesOf(sizes []int32, bytes int64) Sizes {
	if len(sizes) == 0 {
		return Sizes{}
	}
	var sum int64
	for _, s := range sizes {
		sum += int64(s)
	}
	s := slices.Clone(sizes)
	slices.Sort(s)
	return Sizes{
		EntriesPerMB: round(float64(len(s))/(float64(bytes)/1e6), 1),
		P10:          percentile(s, 0.10),
		P50:          percentile(s, 0.50),
		P90:          percentile(s, 0.90),
		P99:          percentile(s, 0.99),
		Mean:         round(float64(sum)/float64(len(s)), 1),
	}
}

// percentile is the nearest-rank percentile of sorted s.
func percentile(s []int32, p float64) int {
	if len(s) == 0 {
		return 0
	}
	i := int(float64(len(s))*p+0.999999999) - 1
	return int(s[max(0, min(i, len(s)-1))])
}

func round(x float64, digits int) float64 {
	m := 1.0
	for range digits {
		m *= 10
	}
	if x < 0 {
		return -float64(int64(-x*m+0.5)) / m
	}
	return float64(int64(x*m+0.5)) / m
}

type tally struct {
	bytes, malformed int64
	sizes            []int32
	kinds            []string // kind of each entry, beside sizes
	blocks           map[string]int64
}

// line is what a line's kind and blocks are read from.
type line struct {
	Type    string `json:"type"`
	Message *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func measureFile(path string) (*tally, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("measure: %w", err)
	}
	defer fh.Close()
	t := &tally{blocks: map[string]int64{}}
	r := bufio.NewReaderSize(fh, 1<<20)
	kinds := map[string]string{} // interned kind names
	for ln := 1; ; ln++ {
		b, err := r.ReadBytes('\n')
		t.bytes += int64(len(b))
		if len(b) > 0 {
			t.addLine(b, kinds)
		}
		if err == io.EOF {
			return t, nil
		}
		if err != nil {
			return nil, fmt.Errorf("measure %s:%d: %w", path, ln, err)
		}
	}
}

func (t *tally) addLine(b []byte, kinds map[string]string) {
	body := bytes.TrimRight(b, "\r\n")
	if len(bytes.TrimSpace(body)) == 0 {
		return
	}
	var e line
	if json.Unmarshal(body, &e) != nil {
		t.malformed++
		return
	}
	if e.Type == "session" {
		return
	}
	kind := e.Type
	if e.Message != nil && e.Type == "message" {
		kind += "/" + e.Message.Role
		t.addBlocks(e.Message.Role, e.Message.Content)
	}
	if k, ok := kinds[kind]; ok {
		kind = k
	} else {
		kinds[kind] = kind
	}
	t.sizes = append(t.sizes, int32(min(len(b), 1<<31-1)))
	t.kinds = append(t.kinds, kind)
}

func (t *tally) addBlocks(role string, content json.RawMessage) {
	c := bytes.TrimSpace(content)
	if len(c) == 0 || c[0] != '[' {
		return
	}
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(c, &blocks) != nil {
		return
	}
	for _, bl := range blocks {
		t.blocks[role+"/"+bl.Type]++
	}
}
