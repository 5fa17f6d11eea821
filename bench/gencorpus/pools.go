package main

import (
	"encoding/base64"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pool is a large buffer of text that is already escaped as the inside of a
// JSON string literal (exactly as JSON.stringify would escape it), split into
// units. Slices are cut only at unit boundaries so they stay valid JSON string
// content, which lets the generator copy payloads with a memcpy.
type pool struct {
	buf  []byte
	offs []int // unit start offsets; offs[len-1] == len(buf)
}

func newPool(units []string) *pool {
	p := &pool{}
	for _, u := range units {
		p.offs = append(p.offs, len(p.buf))
		p.buf = appendEscaped(p.buf, u)
	}
	p.offs = append(p.offs, len(p.buf))
	return p
}

// appendSlice appends roughly n bytes (at least one unit, stopping at the
// first unit boundary at or after n bytes) of escaped text.
func (p *pool) appendSlice(b []byte, r *rand.Rand, n int) []byte {
	if n <= 0 {
		n = 1
	}
	nu := len(p.offs) - 1
	for n > 0 {
		i := r.IntN(nu)
		start := p.offs[i]
		want := start + n
		j := sort.SearchInts(p.offs, want) // first unit boundary >= want
		if j > nu {
			j = nu
		}
		if j <= i {
			j = i + 1
		}
		b = append(b, p.buf[start:p.offs[j]]...)
		n -= p.offs[j] - start
	}
	return b
}

// b64pool is random standard base64 text; any 4-aligned slice is valid base64.
type b64pool struct{ s []byte }

func newB64Pool(r *rand.Rand, n int) *b64pool {
	raw := make([]byte, n*3/4)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	return &b64pool{s: []byte(base64.StdEncoding.EncodeToString(raw))}
}

func (p *b64pool) appendSlice(b []byte, r *rand.Rand, n int) []byte {
	n &^= 3
	if n <= 0 {
		n = 4
	}
	for n > 0 {
		m := n
		if m > len(p.s)/2 {
			m = len(p.s) / 2 &^ 3
		}
		off := r.IntN((len(p.s)-m)/4+1) * 4
		b = append(b, p.s[off:off+m]...)
		n -= m
	}
	return b
}

// appendEscaped appends s escaped like JSON.stringify (without the quotes):
// ", \ and control characters are escaped (\b \f \n \r \t short forms,
// others as lowercase \u00xx); everything else, including non-ASCII and
// U+2028/U+2029, is written raw.
func appendEscaped(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			if c < utf8.RuneSelf {
				b = append(b, c)
				i++
				continue
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			b = append(b, s[i:i+size]...)
			i += size
			continue
		}
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
	}
	return b
}

// ---------------------------------------------------------------------------
// Vocabulary used to synthesize prose, code and tool output.

var words = strings.Fields(`the a an and or but if then else when while for with without into onto from to of in on at by
as is are was were be been being have has had do does did can could should would will may might must
function method class struct interface module package import export return value values error errors
file files path paths directory config settings option options flag flags test tests suite case cases
build builds compile compiler runtime server client request response handler handlers router route
query queries index indexes database table tables column columns row rows schema migration migrations
session sessions entry entries message messages token tokens cache caches stream streams buffer buffers
parse parser parsing serialize encode decode json yaml toml markdown string strings number numbers
array arrays map maps list lists set sets queue stack tree trees node nodes leaf branch branches root
user users agent agents model models provider providers tool tools call calls result results output
input inputs context contexts summary summaries compaction label labels name names type types field
fields update updates delete insert select where order group limit offset count sum total average
fix fixes bug bugs issue issues feature features refactor refactoring cleanup change changes commit
diff patch merge rebase branch tag release version versions dependency dependencies lockfile script
performance latency throughput memory allocation goroutine thread worker workers pool concurrency lock
mutex channel timeout retry backoff deadline cancel signal process processes command commands shell
environment variable variables secret secrets credential permission permissions owner group mode
first second third next previous last new old current default custom internal external public private
quick slow large small empty full missing invalid valid unexpected expected actual correct wrong
should probably maybe likely actually basically simply just only also still already never always
check verify confirm ensure handle support implement add remove rename move copy write read open close
start stop run running ran execute executed install installed upgrade downgrade configure configured
because since although however therefore otherwise instead meanwhile finally currently previously`)

var idents = strings.Fields(`session manager indexer catalog entry parser reader writer scanner loader builder store
cache config options handler router server client stream buffer worker queue runner task job event
emitter listener watcher tracker registry provider model usage cost token context summary label tree
branch leaf node path file dir record batch chunk offset cursor state status result error value item`)

var fileExts = []string{".go", ".ts", ".tsx", ".js", ".py", ".rs", ".md", ".json", ".yaml", ".sql", ".css", ".sh"}

var unicodeBits = []string{"é", "ü", "—", "–", "“quoted”", "‘single’", "…", "→", "✓", "✗", "•", "°C", "µs",
	"日本語", "한국어 설명", "中文注释", "Привет", "🚀", "🐛", "✅", "⚠️", "😀", "ñ", "ß", "Ω", "≥", "≤", "±"}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func camel(r *rand.Rand, n int) string {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		w := pick(r, idents)
		if i > 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		sb.WriteString(w)
	}
	return sb.String()
}

func pascal(r *rand.Rand, n int) string {
	s := camel(r, n)
	return strings.ToUpper(s[:1]) + s[1:]
}

func relPath(r *rand.Rand) string {
	dirs := []string{"src", "internal", "pkg", "cmd", "lib", "test", "tests", "docs", "scripts", "packages/core/src", "packages/cli/src", "app", "web/src/components"}
	var sb strings.Builder
	sb.WriteString(pick(r, dirs))
	for i := r.IntN(3); i > 0; i-- {
		sb.WriteByte('/')
		sb.WriteString(pick(r, idents))
	}
	sb.WriteByte('/')
	sb.WriteString(camel(r, 1+r.IntN(2)))
	sb.WriteString(pick(r, fileExts))
	return sb.String()
}

func sentence(r *rand.Rand) string {
	n := 5 + r.IntN(18)
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(' ')
		}
		switch x := r.IntN(100); {
		case x < 4:
			sb.WriteString("`" + camel(r, 1+r.IntN(3)) + "()`")
		case x < 6:
			sb.WriteString("`" + relPath(r) + "`")
		case x < 8:
			sb.WriteString(pick(r, unicodeBits))
		case x < 9:
			sb.WriteString(strconv.Itoa(r.IntN(5000)))
		default:
			sb.WriteString(pick(r, words))
		}
	}
	s := sb.String()
	if s[0] < utf8.RuneSelf {
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	return s + pick(r, []string{".", ".", ".", "?", "!", ":"})
}

// proseUnits: sentences, paragraph breaks, markdown bullets, headings, code fences.
func proseUnits(r *rand.Rand, target int) []string {
	var out []string
	total := 0
	add := func(s string) { out = append(out, s); total += len(s) }
	for total < target {
		switch x := r.IntN(100); {
		case x < 70:
			add(sentence(r) + " ")
		case x < 80:
			add("\n\n")
		case x < 88:
			add("\n- " + sentence(r))
		case x < 91:
			add("\n\n## " + titleASCII(pick(r, words)) + " " + titleASCII(pick(r, idents)) + "\n\n")
		case x < 95:
			add("\n\n```" + pick(r, []string{"go", "ts", "bash", "json", ""}) + "\n" + strings.Join(codeLines(r, 2+r.IntN(8)), "") + "```\n\n")
		case x < 97:
			add(sentence(r) + "\t(" + pick(r, []string{"see note", "tab-separated", "todo"}) + ")\r\n")
		case x < 98:
			// U+2028/U+2029 are written raw by JSON.stringify.
			add("line\u2028separator and paragraph\u2029separator ")
		default:
			add("\"" + sentence(r) + "\" — \\path\\with\\backslashes " + string(rune(0x1b)) + "[0m ")
		}
	}
	return out
}

func titleASCII(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

func codeLines(r *rand.Rand, n int) []string {
	out := make([]string, 0, n)
	indent := 0
	for len(out) < n {
		if indent > 5 {
			indent = 1
		}
		ind := strings.Repeat("\t", indent)
		var l string
		switch x := r.IntN(22); x {
		case 0:
			l = "import { " + pascal(r, 2) + ", " + camel(r, 2) + " } from \"./" + camel(r, 1) + ".js\";"
		case 1:
			l = ind + "const " + camel(r, 2) + " = await " + camel(r, 1) + "." + camel(r, 2) + "(" + camel(r, 1) + ", \"" + pick(r, words) + "\");"
		case 2:
			l = ind + "func (" + string(pick(r, idents)[0]) + " *" + pascal(r, 2) + ") " + pascal(r, 2) + "(ctx context.Context, " + camel(r, 1) + " " + pascal(r, 1) + ") error {"
			indent++
		case 3:
			l = ind + "if err != nil {"
			indent++
		case 4:
			l = ind + "return fmt.Errorf(\"" + pick(r, words) + " " + pick(r, idents) + ": %w\", err)"
		case 5, 6:
			if indent > 0 {
				indent--
			}
			l = strings.Repeat("\t", indent) + "}"
		case 7:
			l = ind + "// " + sentence(r)
		case 8:
			l = ind + "def " + camel(r, 2) + "(self, " + camel(r, 1) + ": str, **kwargs) -> dict:"
		case 9:
			l = ind + "for (const " + camel(r, 1) + " of " + camel(r, 2) + ") {"
			indent++
		case 10:
			l = ind + camel(r, 2) + " := make(map[string]" + pascal(r, 1) + ", " + strconv.Itoa(r.IntN(64)) + ")"
		case 11:
			l = ""
		case 12:
			l = ind + "expect(" + camel(r, 2) + ").toEqual({ " + camel(r, 1) + ": " + strconv.Itoa(r.IntN(999)) + ", " + camel(r, 1) + ": \"" + pick(r, words) + "\" });"
		case 13:
			l = ind + "SELECT " + camel(r, 1) + ", " + camel(r, 1) + " FROM " + pick(r, idents) + "s WHERE id = ? ORDER BY created_at DESC;"
		case 14:
			l = ind + "log.Printf(\"" + pick(r, words) + " %s took %v\\n\", " + camel(r, 1) + ", time.Since(start))"
		case 15:
			l = ind + "export interface " + pascal(r, 2) + " { " + camel(r, 1) + ": string; " + camel(r, 1) + "?: number }"
		case 16:
			l = ind + "\"" + camel(r, 1) + "\": \"" + pick(r, words) + "-" + strconv.Itoa(r.IntN(100)) + "\","
		case 17:
			l = ind + "let " + camel(r, 1) + " = " + camel(r, 1) + ".iter().map(|x| x." + camel(r, 1) + "()).collect::<Vec<_>>();"
		default:
			l = ind + camel(r, 2) + "." + camel(r, 2) + "(" + camel(r, 1) + ", " + strconv.Itoa(r.IntN(1000)) + ")"
		}
		out = append(out, l+"\n")
	}
	return out
}

func logLines(r *rand.Rand, n int) []string {
	out := make([]string, 0, n)
	months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	for len(out) < n {
		var l string
		switch x := r.IntN(16); x {
		case 0:
			l = "-rw-r--r--  1 user  staff  " + strconv.Itoa(r.IntN(90000)) + " " + pick(r, months) + " " + strconv.Itoa(1+r.IntN(28)) + " 1" + strconv.Itoa(r.IntN(10)) + ":" + strconv.Itoa(10+r.IntN(50)) + " " + camel(r, 1) + pick(r, fileExts)
		case 1:
			l = "--- PASS: Test" + pascal(r, 2) + " (" + strconv.FormatFloat(r.Float64(), 'f', 2, 64) + "s)"
		case 2:
			l = "--- FAIL: Test" + pascal(r, 2) + " (" + strconv.FormatFloat(r.Float64(), 'f', 2, 64) + "s)\n    " + camel(r, 1) + "_test.go:" + strconv.Itoa(r.IntN(400)) + ": got " + strconv.Itoa(r.IntN(50)) + ", want " + strconv.Itoa(r.IntN(50))
		case 3:
			l = relPath(r) + "(" + strconv.Itoa(r.IntN(500)) + "," + strconv.Itoa(r.IntN(80)) + "): error TS2345: Argument of type '" + pascal(r, 1) + "' is not assignable to parameter of type '" + pascal(r, 2) + "'."
		case 4:
			l = relPath(r) + ":" + strconv.Itoa(r.IntN(900)) + ":" + " \t" + strings.TrimSpace(codeLines(r, 1)[0])
		case 5:
			h := make([]byte, 7)
			for i := range h {
				h[i] = "0123456789abcdef"[r.IntN(16)]
			}
			l = string(h) + " " + pick(r, []string{"fix", "feat", "chore", "refactor", "test", "docs"}) + ": " + strings.ToLower(sentence(r))
		case 6:
			l = "npm warn deprecated " + camel(r, 1) + "@" + strconv.Itoa(r.IntN(9)) + "." + strconv.Itoa(r.IntN(20)) + ".0: " + sentence(r)
		case 7:
			l = "ok  \tgithub.com/example/" + pick(r, idents) + "/" + pick(r, idents) + "\t" + strconv.FormatFloat(r.Float64()*3, 'f', 3, 64) + "s"
		case 8:
			l = "  " + relPath(r)
		case 9:
			l = "\x1b[32m✓\x1b[0m " + pick(r, idents) + " > " + sentence(r) + " \x1b[2m(" + strconv.Itoa(r.IntN(300)) + "ms)\x1b[22m"
		case 10:
			l = "    at " + pascal(r, 2) + "." + camel(r, 1) + " (file:///home/user/app/" + relPath(r) + ":" + strconv.Itoa(r.IntN(900)) + ":" + strconv.Itoa(r.IntN(60)) + ")"
		case 11:
			l = "{\"level\":\"info\",\"ts\":" + strconv.Itoa(1750000000+r.IntN(50000000)) + ",\"msg\":\"" + pick(r, words) + " " + pick(r, idents) + "\",\"n\":" + strconv.Itoa(r.IntN(1000)) + "}"
		default:
			l = strings.TrimRight(codeLines(r, 1)[0], "\n")
		}
		out = append(out, l+"\n")
	}
	return out
}

type pools struct {
	prose, code, logs *pool
	b64               *b64pool
	real              *realInfo // -text realistic only
}

func buildPools(seed uint64) *pools {
	r := rand.New(rand.NewPCG(seed, 0x5eed900d))
	cu := codeLines(r, 150000)
	lu := logLines(r, 100000)
	return &pools{
		prose: newPool(proseUnits(r, 6<<20)),
		code:  newPool(cu),
		logs:  newPool(lu),
		b64:   newB64Pool(r, 8<<20),
	}
}
