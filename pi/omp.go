package pi

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pidex-dev/pidex/internal/files"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/schema"
)

// oh-my-pi's dialect of the format (@oh-my-pi/pi-coding-agent 18.2.3,
// testdata/gen/omp/README.md): the title slot before the header, the
// header's title, and the rules its kinds share. Its kinds are registered
// in kinds.go with pi's; its context rebuild is omp_context.go.

// TitleSlot is omp's title slot: the first physical line of a session file
// when it is {"type":"title","v":1,"title","source"?,"updatedAt","pad"}
// (session-title-slot.ts parseTitleSlotObject), a fixed-width line omp
// rewrites in place when the title changes.
type TitleSlot struct {
	Title, Source, UpdatedAt string
}

// ParseTitleSlot reads a line as omp's title slot; ok is false for
// anything else (a header, a line of pi's).
func ParseTitleSlot(line []byte) (TitleSlot, bool) {
	o, ok := js.ParseObject(line)
	if !ok || o.Str("type") != schema.TypeTitleSlot || !json.Valid(line) {
		return TitleSlot{}, false
	}
	var v float64
	if json.Unmarshal(o.Get("v"), &v) != nil || v != 1 {
		return TitleSlot{}, false
	}
	title, ok1 := js.StringValue(o.Get("title"))
	updated, ok2 := js.StringValue(o.Get("updatedAt"))
	_, ok3 := js.StringValue(o.Get("pad"))
	if !ok1 || !ok2 || !ok3 {
		return TitleSlot{}, false
	}
	s := TitleSlot{Title: title, UpdatedAt: updated}
	if src := o.Get("source"); src != nil {
		if s.Source, _ = js.StringValue(src); s.Source != "auto" && s.Source != "user" {
			return TitleSlot{}, false
		}
	}
	return s, true
}

// HeaderTitle is a header's title as omp's loader reads it: the slot's
// title when the file has a slot (an empty one means none), else the
// header's own `title` ("" for none).
func HeaderTitle(header *schema.Line, slot *TitleSlot) string {
	if slot != nil {
		return slot.Title
	}
	if header == nil {
		return ""
	}
	t, _ := js.StringValue(js.Field(header.Raw, "title"))
	return t
}

// artifactRef finds omp's references to a session's artifacts in a line:
// artifact://<n> (spilled tool output: "Read artifact://0 for full
// output", "[raw output: artifact://0]", details.meta.truncation.
// artifactId) and agent://<id> (a subagent's output).
var artifactRef = text.LazyRegexp(`\b(artifact|agent)://([A-Za-z0-9_.-]+)|"artifactId":"([A-Za-z0-9_.-]+)"`)

// Artifacts are the artifacts a line refers to, each once, as file name
// prefixes in the session's artifacts folder: "0." for artifact://0 (the
// file is <n>.<tool>.log), "Scout.md" for agent://Scout.
func Artifacts(line []byte) []string {
	return artifactsFrom(line, func(int, int) bool { return true })
}

// artifactsFrom is Artifacts of the references in line that take says to
// take (by where they are).
func artifactsFrom(line []byte, take func(from, to int) bool) []string {
	if !bytes.Contains(line, []byte("artifact://")) && !bytes.Contains(line, []byte("agent://")) && !bytes.Contains(line, []byte(`"artifactId"`)) {
		return nil
	}
	var out []string
	for _, at := range artifactRef().FindAllSubmatchIndex(line, -1) {
		if !take(at[0], at[1]) {
			continue
		}
		group := func(i int) string {
			if at[2*i] < 0 {
				return ""
			}
			return string(line[at[2*i]:at[2*i+1]])
		}
		var name string
		switch {
		case group(3) != "":
			name = group(3) + "."
		case group(1) == "artifact":
			name = strings.TrimSuffix(group(2), ".") + "."
		default:
			name = strings.TrimSuffix(group(2), ".") + ".md"
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// ArtifactText is the text of the artifacts a line refers to, read from
// the artifacts folder of the session file at path (its path without
// .jsonl, artifactsDirectoryFor), at most maxArtifact bytes of each; an
// artifact that is gone adds nothing.
func ArtifactText(path string, line []byte) string {
	return artifactText(path, Artifacts(line))
}

// artifactText is the text of the named artifacts (Artifacts).
func artifactText(path string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	dir := strings.TrimSuffix(path, ".jsonl")
	ents, err := files.ReadDir(dir)
	if err != nil {
		return ""
	}
	var parts []string
	for _, n := range names {
		for _, e := range ents {
			// artifact://<n> resolves by the prefix "<n>." (omp's
			// artifact-protocol.ts); transcripts are sessions of their own.
			if e.IsDir() || !strings.HasPrefix(e.Name(), n) || (!strings.HasSuffix(n, ".md") && strings.HasSuffix(e.Name(), ".jsonl")) {
				continue
			}
			if strings.HasSuffix(n, ".md") && e.Name() != n {
				continue
			}
			f, err := files.OpenRegular(filepath.Join(dir, e.Name()))
			if err != nil {
				continue
			}
			b, _ := io.ReadAll(io.LimitReader(f, maxArtifact))
			f.Close()
			if utf8.Valid(b) {
				parts = append(parts, string(b))
			}
			break
		}
	}
	return joinText(parts...)
}

// maxArtifact bounds the text indexed of one artifact (a spilled log can
// be huge; its start is what a search is likely to be about).
const maxArtifact = 4 << 20

// SearchText is an entry's searchable text (Text) and, for the entries
// of an omp session (artifacts true) that refer to its artifacts, the
// artifacts' text: what search indexes and its snippets show.
func SearchText(path string, l *schema.Line, artifacts bool) string {
	if !artifacts {
		return Text(l)
	}
	return joinText(Text(l), ArtifactText(path, l.Raw))
}
