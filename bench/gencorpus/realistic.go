package main

// -text realistic: text pools built from real text found in GOROOT.
//
// Everything is deterministic: file lists are walked in lexical order, the
// sample of files to read is a seeded shuffle of those lists, capped by the
// read budgets below, and every later choice uses the same seeded generator.
// The pools are therefore a pure function of the seed and the Go installation
// (its version).

import (
	"errors"
	"fmt"
	"html"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Read budgets (bytes of GOROOT files read) and the largest file considered.
const (
	realGoBudget       = 30 << 20 // src/**/*.go (code, doc comments, identifiers, tests, error strings)
	realAsmBudget      = 1 << 20  // src/**/*.s (code)
	realTestdataBudget = 5 << 20  // src/**/testdata/*.txt|*.golden|*.out|*.input|*.json|*.expect (tool output)
	realMaxFile        = 256 << 10
)

// realInfo holds what -text realistic needs besides the prose/code/logs pools.
type realInfo struct {
	goroot, version string
	filesRead       int
	bytesRead       int64
	build           time.Duration

	listing *pool    // "src/..." paths, one per line (find/ls results)
	grep    *pool    // "src/x.go:123:\tline" (grep results)
	cjk     [3]*pool // ja, zh, ko chat sentences

	paths    []string // "src/..." paths of Go files (tool call paths)
	idents   []string // function and type names (grep patterns)
	commands []string // bash commands
}

// resolveGOROOT: -goroot, else `go env GOROOT`.
func resolveGOROOT(flagVal string) (string, error) {
	if flagVal != "" {
		return flagVal, nil
	}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if s := strings.TrimSpace(string(out)); s != "" {
			return s, nil
		}
	}
	return "", errors.New("cannot locate GOROOT: no `go` on PATH (use -goroot)")
}

var realPoolCache struct {
	sync.Mutex
	m map[string]*pools
}

// realPools returns the realistic pools for (seed, goroot), building them once per process.
func realPools(seed uint64, gorootFlag string) (*pools, error) {
	goroot, err := resolveGOROOT(gorootFlag)
	if err != nil {
		return nil, err
	}
	key := strconv.FormatUint(seed, 10) + "\x00" + goroot
	realPoolCache.Lock()
	defer realPoolCache.Unlock()
	if p := realPoolCache.m[key]; p != nil {
		return p, nil
	}
	p, err := buildRealPools(seed, goroot)
	if err != nil {
		return nil, err
	}
	if realPoolCache.m == nil {
		realPoolCache.m = map[string]*pools{}
	}
	realPoolCache.m[key] = p
	return p, nil
}

type testRef struct{ pkg, file, name string }

type harvester struct {
	r *rand.Rand

	prose [][]string // chunks of prose units (a doc comment, a doc section, ...)
	code  [][]string // chunks of code lines (a file)
	logs  [][]string // chunks of output lines
	grep  [][]string // chunks of grep lines (per file)

	subjects []string // short sentences (git log subjects)
	idents   map[string]bool
	errs     []string
	tests    []testRef
	pkgs     map[string]bool

	filesRead int
	bytesRead int64
}

func buildRealPools(seed uint64, goroot string) (*pools, error) {
	begin := time.Now()
	src := filepath.Join(goroot, "src")
	if st, err := os.Stat(src); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("-text realistic: %s is not a directory (GOROOT %q)", src, goroot)
	}
	var goFiles, asmFiles, tdFiles, mdFiles, allPaths []string
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(goroot, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		allPaths = append(allPaths, rel)
		name := d.Name()
		inTD := strings.Contains(rel, "/testdata/")
		var list *[]string
		switch ext := path.Ext(name); {
		case inTD && (ext == ".txt" || ext == ".golden" || ext == ".out" || ext == ".input" || ext == ".json" || ext == ".expect"):
			list = &tdFiles
		case inTD:
		case ext == ".go":
			list = &goFiles
		case ext == ".s":
			list = &asmFiles
		case ext == ".md":
			mdFiles = append(mdFiles, rel)
		}
		if list != nil {
			if info, err := d.Info(); err == nil && info.Size() > 0 && info.Size() <= realMaxFile {
				*list = append(*list, rel)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(seed, 0x7e47a11))
	h := &harvester{r: r, idents: map[string]bool{}, pkgs: map[string]bool{}}
	goPaths := append([]string(nil), goFiles...) // all Go files, sorted: tool call paths
	for _, l := range [][]string{goFiles, asmFiles, tdFiles} {
		r.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
	}

	read := func(rel string) (string, bool) {
		data, err := os.ReadFile(filepath.Join(goroot, filepath.FromSlash(rel)))
		if err != nil || !utf8.Valid(data) || strings.IndexByte(string(data), 0) >= 0 {
			return "", false
		}
		h.filesRead++
		h.bytesRead += int64(len(data))
		return string(data), true
	}
	var n int64
	for _, rel := range goFiles {
		if n >= realGoBudget {
			break
		}
		s, ok := read(rel)
		n += int64(len(s))
		if ok && !isGenerated(s) {
			h.goFile(rel, s)
		}
	}
	n = 0
	for _, rel := range asmFiles {
		if n >= realAsmBudget {
			break
		}
		s, ok := read(rel)
		n += int64(len(s))
		if ok && !isGenerated(s) {
			h.code = append(h.code, splitLines(s))
		}
	}
	n = 0
	for _, rel := range tdFiles {
		if n >= realTestdataBudget {
			break
		}
		if s, ok := read(rel); ok {
			n += int64(len(s))
			lines := splitLines(s)
			for len(lines) > 0 {
				k := min(len(lines), 300)
				h.logs = append(h.logs, lines[:k])
				lines = lines[k:]
			}
		}
	}
	tdBytes := n
	var docs []string
	if ents, err := os.ReadDir(filepath.Join(goroot, "doc")); err == nil {
		for _, e := range ents {
			if ext := path.Ext(e.Name()); e.Type().IsRegular() && (ext == ".md" || ext == ".html") {
				docs = append(docs, "doc/"+e.Name())
			}
		}
	}
	docs = append(docs, mdFiles...)
	for _, rel := range docs {
		if s, ok := read(rel); ok {
			h.docText(rel, s)
		}
	}
	if len(h.prose) < 100 || len(h.code) < 50 || len(h.tests) == 0 {
		return nil, fmt.Errorf("-text realistic: too little text under %s (%d prose chunks, %d code files, %d tests)", src, len(h.prose), len(h.code), len(h.tests))
	}
	idents := sortedKeys(h.idents)
	pkgs := sortedKeys(h.pkgs)
	sort.Slice(h.tests, func(i, j int) bool {
		a, b := h.tests[i], h.tests[j]
		if a.pkg != b.pkg {
			return a.pkg < b.pkg
		}
		if a.file != b.file {
			return a.file < b.file
		}
		return a.name < b.name
	})

	// Tool output built from real names: go test / vet / build output, git
	// log, ls -l, panics, grep. As many bytes as the test data lines.
	var gen int64
	for gen < tdBytes || gen < 2<<20 {
		c := h.outputChunk(pkgs, idents, goPaths)
		for _, l := range c {
			gen += int64(len(l))
		}
		h.logs = append(h.logs, c)
	}
	// Agent-style prose that names real identifiers, paths and errors, and
	// fenced code runs, mixed into the doc prose.
	for i, k := 0, len(h.prose)/12; i < k; i++ {
		h.prose = append(h.prose, h.agentChunk(idents, goPaths))
	}
	for i, k := 0, len(h.prose)/25; i < k; i++ {
		h.prose = append(h.prose, h.fenceChunk())
	}

	info := &realInfo{goroot: goroot, version: goVersion(goroot)}
	info.paths = goPaths
	info.idents = idents
	info.commands = h.commands(pkgs, idents, goPaths, 4000)
	listing := make([]string, len(allPaths))
	for i, p := range allPaths {
		listing[i] = p + "\n"
	}
	info.listing = newPool(listing)
	info.grep = newPool(h.flatten(h.grep))
	info.cjk = [3]*pool{
		cjkPool(r, jaSentences, "", 30),
		cjkPool(r, zhSentences, "", 30),
		cjkPool(r, koSentences, " ", 40),
	}
	p := &pools{
		prose: newPool(h.flatten(h.prose)),
		code:  newPool(h.flatten(h.code)),
		logs:  newPool(h.flatten(h.logs)),
		b64:   newB64Pool(r, 8<<20),
		real:  info,
	}
	info.filesRead, info.bytesRead = h.filesRead, h.bytesRead
	info.build = time.Since(begin)
	return p, nil
}

func goVersion(goroot string) string {
	if b, err := os.ReadFile(filepath.Join(goroot, "VERSION")); err == nil {
		if v, _, _ := strings.Cut(string(b), "\n"); strings.HasPrefix(v, "go") {
			return v
		}
	}
	return "unknown"
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// flatten shuffles chunks (seeded) and concatenates their units.
func (h *harvester) flatten(chunks [][]string) []string {
	h.r.Shuffle(len(chunks), func(i, j int) { chunks[i], chunks[j] = chunks[j], chunks[i] })
	n := 0
	for _, c := range chunks {
		n += len(c)
	}
	out := make([]string, 0, n)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out
}

func isGenerated(s string) bool {
	head := s[:min(len(s), 4096)]
	return strings.Contains(head, "Code generated") && strings.Contains(head, "DO NOT EDIT")
}

// splitLines splits s into lines that keep their "\n" (one is added to the last line if missing).
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		lines[n-1] += "\n"
	}
	return lines
}

// ---------------------------------------------------------------------------
// Go sources.

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// quoted returns the string literal starting right after prefix in line, if it is simple.
func quoted(line, prefix string) (string, bool) {
	i := strings.Index(line, prefix)
	if i < 0 {
		return "", false
	}
	rest := line[i+len(prefix):]
	j := strings.IndexByte(rest, '"')
	if j < 8 || j > 100 || strings.ContainsAny(rest[:j], `\%`) {
		return "", false
	}
	return rest[:j], true
}

func (h *harvester) goFile(rel, s string) {
	lines := splitLines(s)
	h.code = append(h.code, lines)
	pkg := path.Dir(strings.TrimPrefix(rel, "src/"))
	h.pkgs[pkg] = true
	base := path.Base(rel)
	isTest := strings.HasSuffix(base, "_test.go")
	var block []string // comment text of the current // or /* */ block
	var grep []string
	inBlockComment := false
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if inBlockComment {
			if k := strings.Index(t, "*/"); k >= 0 {
				block = append(block, " "+strings.TrimSpace(t[:k]))
				inBlockComment = false
				continue
			}
			block = append(block, " "+t)
			continue
		}
		if strings.HasPrefix(t, "//") {
			c := t[2:]
			if c != "" && c[0] != ' ' && c[0] != '\t' {
				continue // directive (//go:, //line, //export, ...) or commented-out code
			}
			block = append(block, c)
			continue
		}
		if strings.HasPrefix(t, "/*") && !strings.Contains(t, "*/") {
			inBlockComment = true
			if rest := strings.TrimSpace(t[2:]); rest != "" {
				block = append(block, " "+rest)
			}
			continue
		}
		if len(block) > 0 {
			h.docBlock(block, t)
			block = block[:0]
		}
		if strings.HasPrefix(line, "func ") {
			name := funcName(line[5:])
			if isIdent(name) {
				h.idents[name] = true
				if isTest && strings.Contains(line, "*testing.") {
					for _, p := range []string{"Test", "Benchmark", "Fuzz"} {
						if strings.HasPrefix(name, p) {
							h.tests = append(h.tests, testRef{pkg, base, name})
						}
					}
				}
			}
		} else if strings.HasPrefix(line, "type ") {
			if name, _, ok := strings.Cut(line[5:], " "); ok && isIdent(name) && len(name) > 2 {
				h.idents[name] = true
			}
		}
		if e, ok := quoted(line, `errors.New("`); ok {
			h.errs = append(h.errs, e)
		} else if e, ok := quoted(line, `fmt.Errorf("`); ok {
			h.errs = append(h.errs, e)
		}
		if t != "" && (strings.HasPrefix(line, "func ") || h.r.IntN(40) == 0) {
			grep = append(grep, rel+":"+strconv.Itoa(i+1)+":"+line)
		}
	}
	if len(grep) > 0 {
		h.grep = append(h.grep, grep)
	}
}

// funcName extracts the name from what follows "func ": "(r *T) Name(" or "Name[T any](".
func funcName(s string) string {
	if strings.HasPrefix(s, "(") {
		k := strings.Index(s, ") ")
		if k < 0 {
			return ""
		}
		s = s[k+2:]
	}
	if k := strings.IndexAny(s, "([ "); k > 0 {
		return s[:k]
	}
	return ""
}

var declPrefixes = []string{"func ", "type ", "var ", "const ", "package "}

// docBlock turns a comment block (text after the // markers) into prose
// units when it is a doc comment (followed by a declaration) or at least two
// lines long.
func (h *harvester) docBlock(block []string, next string) {
	isDoc := false
	for _, p := range declPrefixes {
		if strings.HasPrefix(next, p) {
			isDoc = true
		}
	}
	if (!isDoc && len(block) < 2) || next == `import "C"` {
		return
	}
	if u := h.commentUnits(block); len(u) > 0 {
		h.prose = append(h.prose, u)
	}
}

func skipCommentLine(l string) bool {
	return strings.Contains(l, "Copyright ") && (strings.Contains(l, "Authors") || strings.Contains(l, "rights reserved")) ||
		strings.HasPrefix(l, "Use of this source code is governed") ||
		strings.Contains(l, "license that can be found in the LICENSE") ||
		strings.Contains(l, "Code generated") || strings.Contains(l, "DO NOT EDIT") ||
		strings.HasPrefix(l, "+build") || strings.HasPrefix(l, "go:build")
}

// commentUnits: paragraphs become sentence units ending in a paragraph break,
// preformatted lines become fenced code, "# Heading" a markdown heading and
// "- item" a list item.
func (h *harvester) commentUnits(block []string) []string {
	var units, para, pre []string
	flushPara := func() {
		if len(para) == 0 {
			return
		}
		units = h.appendParagraph(units, strings.Join(para, " "))
		para = para[:0]
	}
	flushPre := func() {
		for len(pre) > 0 && strings.TrimSpace(pre[len(pre)-1]) == "" {
			pre = pre[:len(pre)-1]
		}
		if len(pre) > 0 {
			units = append(units, "```\n"+strings.Join(pre, "\n")+"\n```\n\n")
		}
		pre = pre[:0]
	}
	for _, l := range block {
		l = strings.TrimRight(strings.TrimPrefix(l, " "), " \t\r")
		switch {
		case skipCommentLine(l):
			flushPara()
		case l == "":
			flushPara()
			if len(pre) > 0 {
				pre = append(pre, "")
			}
		case l[0] == '\t' || strings.HasPrefix(l, "  "):
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
				flushPara()
				flushPre()
				units = append(units, "- "+t[2:]+"\n")
				continue
			}
			flushPara()
			pre = append(pre, strings.TrimPrefix(l, "\t"))
		case strings.HasPrefix(l, "# "):
			flushPara()
			flushPre()
			units = append(units, "### "+l[2:]+"\n\n")
		default:
			flushPre()
			para = append(para, strings.TrimSpace(l))
		}
	}
	flushPara()
	flushPre()
	if n := len(units); n > 0 && !strings.HasSuffix(units[n-1], "\n\n") {
		units = append(units, "\n")
	}
	return units
}

// appendParagraph splits text into sentences, each a unit followed by a
// space, except the last, which is followed by a paragraph break (so that
// messages, which start at a unit, start at a sentence).
func (h *harvester) appendParagraph(units []string, text string) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return units
	}
	start := 0
	first := true
	emit := func(s string) {
		if first && len(s) >= 20 && len(s) <= 72 && !strings.ContainsAny(s, "\t`") {
			h.subjects = append(h.subjects, strings.TrimSuffix(s, "."))
		}
		first = false
		units = append(units, s+" ")
	}
	for i := 1; i+2 < len(text); i++ {
		c := text[i]
		if (c == '.' || c == '?' || c == '!') && text[i+1] == ' ' && text[i-1] != '.' {
			n := text[i+2]
			if n >= 'A' && n <= 'Z' || n == '[' || n == '`' || n == '"' {
				if i >= 2 && text[i-2] == '.' { // e.g. / i.e.
					continue
				}
				emit(text[start : i+1])
				start = i + 2
			}
		}
	}
	emit(text[start:])
	units[len(units)-1] = strings.TrimSuffix(units[len(units)-1], " ") + "\n\n"
	return units
}

// ---------------------------------------------------------------------------
// Docs: GOROOT/doc/*.md|*.html and src/**/*.md.

var (
	reHTMLComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	rePre         = regexp.MustCompile(`(?is)<pre[^>]*>(.*?)</pre>`)
	reHeading     = regexp.MustCompile(`(?i)<h[1-6][^>]*>`)
	reLi          = regexp.MustCompile(`(?i)<li[^>]*>`)
	reBlockTag    = regexp.MustCompile(`(?i)</?(p|h[1-6]|ul|ol|li|table|tr|div|blockquote|dl|dt|dd|br)\b[^>]*>`)
	reTag         = regexp.MustCompile(`(?s)<[^>]*>`)
)

// htmlToText strips HTML crudely into markdown-ish text.
func htmlToText(s string) string {
	s = reHTMLComment.ReplaceAllString(s, "")
	s = rePre.ReplaceAllStringFunc(s, func(m string) string {
		inner := rePre.FindStringSubmatch(m)[1]
		inner = reTag.ReplaceAllString(inner, "")
		return "\n\n```\n" + strings.Trim(inner, "\n") + "\n```\n\n"
	})
	s = reHeading.ReplaceAllString(s, "\n\n## ")
	s = reLi.ReplaceAllString(s, "\n\n- ")
	s = reBlockTag.ReplaceAllString(s, "\n\n")
	s = reTag.ReplaceAllString(s, "")
	return html.UnescapeString(s)
}

func (h *harvester) docText(name, s string) {
	isHTML := strings.HasSuffix(name, ".html")
	if isHTML {
		s = htmlToText(s)
	}
	var units, para, fence []string
	inFence := false
	flushPara := func() {
		if len(para) > 0 {
			units = h.appendParagraph(units, strings.Join(para, " "))
			para = para[:0]
		}
	}
	flushChunk := func() {
		flushPara()
		if len(units) > 0 {
			h.prose = append(h.prose, units)
			units = nil
		}
	}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " \t\r")
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") {
			if inFence {
				units = append(units, "```\n"+strings.Join(fence, "\n")+"\n```\n\n")
				fence, inFence = nil, false
			} else {
				flushPara()
				inFence = true
			}
			continue
		}
		switch {
		case inFence:
			fence = append(fence, l)
		case t == "":
			flushPara()
		case t[0] == '<' && !isHTML:
			// inline HTML in markdown: keep the text
			if t = strings.TrimSpace(html.UnescapeString(reTag.ReplaceAllString(t, " "))); t != "" {
				para = append(para, strings.Join(strings.Fields(t), " "))
			}
		case strings.HasPrefix(t, "#"):
			flushChunk()
			if strings.TrimLeft(t, "# ") != "" {
				units = append(units, t+"\n\n")
			}
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			flushPara()
			units = append(units, "- "+strings.TrimSpace(t[2:])+"\n")
		default:
			para = append(para, t)
		}
	}
	flushChunk()
}

// ---------------------------------------------------------------------------
// Generated text built from harvested names.

func hex7(r *rand.Rand) string {
	const hx = "0123456789abcdef"
	b := make([]byte, 7)
	for i := range b {
		b[i] = hx[r.IntN(16)]
	}
	return string(b)
}

func dur(r *rand.Rand, max float64) string {
	return strconv.FormatFloat(r.Float64()*max, 'f', 3, 64) + "s"
}

// outputChunk returns one block of tool-output-like lines.
func (h *harvester) outputChunk(pkgs, idents, paths []string) []string {
	r := h.r
	var out []string
	add := func(s string) { out = append(out, s+"\n") }
	t := pick(r, h.tests)
	switch x := r.IntN(10); x {
	case 0, 1: // go test -v, passing
		i := sort.Search(len(h.tests), func(i int) bool { return h.tests[i].pkg >= t.pkg })
		for k := 0; k < 1+r.IntN(12) && i+k < len(h.tests) && h.tests[i+k].pkg == t.pkg; k++ {
			name := h.tests[i+k].name
			add("=== RUN   " + name)
			if r.IntN(6) == 0 {
				add("    " + h.tests[i+k].file + ":" + strconv.Itoa(10+r.IntN(800)) + ": " + pick(r, h.subjects))
			}
			add("--- PASS: " + name + " (" + strconv.FormatFloat(r.Float64()*r.Float64()*2, 'f', 2, 64) + "s)")
		}
		add("PASS")
		add("ok  \t" + t.pkg + "\t" + dur(r, 4))
	case 2: // go test ./... summary
		i := r.IntN(len(pkgs))
		for k := 0; k < 3+r.IntN(25) && i+k < len(pkgs); k++ {
			switch y := r.IntN(10); {
			case y < 6:
				add("ok  \t" + pkgs[i+k] + "\t" + dur(r, 3))
			case y < 8:
				add("ok  \t" + pkgs[i+k] + "\t(cached)")
			default:
				add("?   \t" + pkgs[i+k] + "\t[no test files]")
			}
		}
	case 3: // failing test
		add("=== RUN   " + t.name)
		add("    " + t.file + ":" + strconv.Itoa(10+r.IntN(900)) + ": " + pick(r, h.errs))
		if r.IntN(2) == 0 {
			add("    " + t.file + ":" + strconv.Itoa(10+r.IntN(900)) + ": got " + strconv.Itoa(r.IntN(100)) + ", want " + strconv.Itoa(r.IntN(100)))
		}
		add("--- FAIL: " + t.name + " (" + strconv.FormatFloat(r.Float64(), 'f', 2, 64) + "s)")
		add("FAIL")
		add("exit status 1")
		add("FAIL\t" + t.pkg + "\t" + dur(r, 5))
	case 4: // build / vet errors
		p := pick(r, paths)
		pkg := path.Dir(strings.TrimPrefix(p, "src/"))
		add("# " + pkg)
		for k := 0; k < 1+r.IntN(4); k++ {
			loc := "./" + path.Base(p) + ":" + strconv.Itoa(1+r.IntN(900)) + ":" + strconv.Itoa(1+r.IntN(40)) + ": "
			switch r.IntN(4) {
			case 0:
				add(loc + "undefined: " + pick(r, idents))
			case 1:
				add(loc + "declared and not used: " + pick(r, []string{"err", "n", "buf", "ok", "i", "v", "off", "size"}))
			case 2:
				add(loc + "cannot use \"" + pick(r, h.errs) + "\" (untyped string constant) as int value in assignment")
			default:
				add(loc + "missing return")
			}
		}
	case 5: // git log --oneline
		for k := 0; k < 3+r.IntN(20); k++ {
			add(hex7(r) + " " + pick(r, pkgs) + ": " + lowerFirst(pick(r, h.subjects)))
		}
	case 6: // ls -l of a real directory
		p := pick(r, paths)
		dir := path.Dir(p)
		i := sort.SearchStrings(paths, dir+"/")
		add("total " + strconv.Itoa(8+r.IntN(400)))
		for k := i; k < len(paths) && k < i+40 && strings.HasPrefix(paths[k], dir+"/"); k++ {
			add("-rw-r--r-- 1 user user " + strconv.Itoa(200+r.IntN(60000)) + " Aug 28 16:20 " + path.Base(paths[k]))
		}
	case 7: // panic
		add("panic: " + pick(r, h.errs))
		add("")
		add("goroutine " + strconv.Itoa(1+r.IntN(40)) + " [running]:")
		for k := 0; k < 2+r.IntN(6); k++ {
			tt := pick(r, h.tests)
			add(tt.pkg + "." + tt.name + "(0xc000" + hex7(r)[:6] + ")")
			add("\t/usr/local/go/src/" + tt.pkg + "/" + tt.file + ":" + strconv.Itoa(10+r.IntN(900)) + " +0x" + hex7(r)[:3])
		}
		add("exit status 2")
		add("FAIL\t" + t.pkg + "\t" + dur(r, 2))
	default: // grep results
		if len(h.grep) > 0 {
			g := pick(r, h.grep)
			i := r.IntN(len(g))
			out = append(out, g[i:min(len(g), i+1+r.IntN(15))]...)
		} else {
			add("ok  \t" + t.pkg + "\t" + dur(r, 3))
		}
	}
	return out
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z' {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

var agentTemplates = []string{
	"Let me look at `%[1]s` in `%[2]s`.",
	"I'll check how `%[1]s` is called from `%[2]s` before changing it.",
	"The test `%[3]s` fails with \"%[4]s\".",
	"Running `go test -run %[3]s ./%[5]s/` to confirm the fix.",
	"Found it: `%[1]s` returns \"%[4]s\" when the input is empty.",
	"Updated `%[1]s`; the call site in `%[2]s` still needs the new signature.",
	"`%[3]s` passes now, and `go vet ./%[5]s/...` is clean.",
	"Can you check why `%[1]s` in %[2]s is so slow on large inputs?",
	"The error \"%[4]s\" comes from `%[2]s`.",
	"I read `%[2]s`; `%[1]s` already handles that case, so the bug must be in the caller.",
	"Next step: add a regression test next to `%[3]s` in package `%[5]s`.",
	"Please rename `%[1]s` and update the references in `%[2]s`.",
}

// agentChunk: 1-4 sentences an agent or user might write about real code.
func (h *harvester) agentChunk(idents, paths []string) []string {
	r := h.r
	var units []string
	bullets := r.IntN(4) == 0
	for k := 0; k < 1+r.IntN(4); k++ {
		t := pick(r, h.tests)
		s := fmt.Sprintf(pick(r, agentTemplates), pick(r, idents), pick(r, paths), t.name, pick(r, h.errs), t.pkg)
		if bullets {
			units = append(units, "- "+s+"\n")
		} else {
			units = append(units, s+" ")
		}
	}
	units[len(units)-1] = strings.TrimRight(units[len(units)-1], " \n") + "\n\n"
	return units
}

// fenceChunk: a fenced run of real code lines.
func (h *harvester) fenceChunk() []string {
	r := h.r
	c := pick(r, h.code)
	i := r.IntN(len(c))
	run := c[i:min(len(c), i+3+r.IntN(12))]
	return []string{"```go\n" + strings.Join(run, "") + "```\n\n"}
}

// commands: bash commands an agent runs on this tree.
func (h *harvester) commands(pkgs, idents, paths []string, n int) []string {
	r := h.r
	out := make([]string, 0, n)
	for len(out) < n {
		t := pick(r, h.tests)
		p := pick(r, paths)
		var c string
		switch r.IntN(12) {
		case 0:
			c = "go test ./" + t.pkg + "/"
		case 1:
			c = "go test -run '^" + t.name + "$' -v ./" + t.pkg + "/"
		case 2:
			c = "go vet ./" + pick(r, pkgs) + "/..."
		case 3:
			c = "go build ./... && go test ./" + t.pkg + "/..."
		case 4:
			c = "rg -n '" + pick(r, idents) + "' src/" + path.Dir(strings.TrimPrefix(p, "src/"))
		case 5:
			c = "git log --oneline -10 -- " + p
		case 6:
			a := 1 + r.IntN(600)
			c = "sed -n '" + strconv.Itoa(a) + "," + strconv.Itoa(a+20+r.IntN(120)) + "p' " + p
		case 7:
			c = "grep -rn \"" + pick(r, h.errs) + "\" src/" + path.Dir(strings.TrimPrefix(p, "src/"))
		case 8:
			c = "git diff --stat -- " + path.Dir(p)
		case 9:
			c = "go test -count=1 -race ./" + t.pkg + "/ 2>&1 | tail -40"
		case 10:
			c = "ls -la " + path.Dir(p)
		default:
			c = pick(r, bashCommands)
		}
		out = append(out, c)
	}
	return out
}

// cjkPool: reps shuffled passes over the sentences with occasional paragraph breaks.
func cjkPool(r *rand.Rand, sents []string, sep string, reps int) *pool {
	var units []string
	for k := 0; k < reps; k++ {
		for _, j := range r.Perm(len(sents)) {
			u := sents[j] + sep
			if r.IntN(6) == 0 {
				u = sents[j] + "\n\n"
			}
			units = append(units, u)
		}
	}
	return newPool(units)
}
