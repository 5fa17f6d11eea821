package pi

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/jsonl"
	"github.com/pidex-dev/pidex/schema"
)

// A line too long to hold (a 100 MB tool output) can still be searched
// through exactly: its searchable text is made from a skeleton of the line
// (jsonl.Skeleton: its long strings marks), and each mark is read from
// the file, in pieces, where the text has it. A search's confirmation of
// a phrase in such a line held the line, its decoded text and a string per
// token: a gigabyte for 100 MB (issue 39, item 6).

// A line's strings longer than streamString are read in pieces; a line
// whose skeleton would pass streamBudget (a million short strings) is
// searched in its first streamBudget bytes, as much as Shrink keeps.
const (
	streamString = 16 << 10
	streamBudget = 4 << 20
)

// StreamSearchText hands the searchable text of the entry whose line is
// the length bytes of f at off (SearchText, omp's artifacts included) to
// emit in pieces, in order: what they make together tokenizes as the text
// (a piece may end inside a word or a character; emit must not keep a
// piece past the call; its error stops the reading and is returned).
// Memory is bounded, so two kinds of line give a
// part of their text (whole is false): one with more than streamBudget
// bytes outside its long strings (the rest left out, jsonl.Skeleton), and
// one holding U+FDD0, the skeleton's mark, whose text is that of its cut
// copy (strings cut to streamString, as show reads a huge line). path is
// the session file's, for its artifacts.
func StreamSearchText(path string, f io.ReaderAt, off, length int64, emit func(string) error) (whole bool, err error) {
	sk, refs, partial, err := jsonl.Skeleton(io.NewSectionReader(f, off, length), streamString, streamBudget)
	if errors.Is(err, jsonl.ErrMarked) {
		e, err := Decode(pidex.Entry{Length: length}, io.NewSectionReader(f, off, length), true, streamString, path)
		if err != nil {
			return false, err
		}
		return false, emit(SearchText(path, e.Decoded, true))
	}
	if err != nil {
		return false, fmt.Errorf("read line: %w", err)
	}
	l, err := schema.DecodeLineFast(sk)
	if l == nil {
		return false, fmt.Errorf("read line: %w", err)
	}
	err = jsonl.SplitRefs(Text(l), emit, func(i int) error {
		if i >= len(refs) {
			return fmt.Errorf("read line: a mark of no string (%d of %d)", i, len(refs))
		}
		return jsonl.Unescape(io.NewSectionReader(f, off+refs[i].From, refs[i].To-refs[i].From), emit)
	})
	if err != nil {
		return false, err
	}
	if st, err := os.Stat(strings.TrimSuffix(path, ".jsonl")); err != nil || !st.IsDir() {
		return !partial, nil // no artifacts folder (every session of pi's): nothing to look for
	}
	names, err := ArtifactsIn(io.NewSectionReader(f, off, length))
	if err != nil {
		return false, fmt.Errorf("read line: %w", err)
	}
	if t := artifactText(path, names); t != "" {
		if err := emit("\n" + t); err != nil { // joinText's separator: white space, whatever came before
			return false, err
		}
	}
	return !partial, nil
}

// ArtifactsIn is Artifacts of the line r holds, read in windows: each
// window overlaps the one before by artifactOverlap bytes (and one more,
// for the word boundary before a reference), a reference is taken from
// the first window that holds it whole, so a reference longer than the
// overlap across a window's edge is missed.
func ArtifactsIn(r io.Reader) ([]string, error) {
	const window, overlap = 256 << 10, artifactOverlap
	var out []string
	buf := make([]byte, 0, window+overlap+1)
	first := true
	for {
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		final := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !final {
			return nil, err
		}
		names := artifactsFrom(buf, func(from, to int) bool {
			switch {
			case !first && from == 0: // its word boundary needs the byte before
				return false
			case final:
				return true
			}
			return from < len(buf)-overlap && to < len(buf) // whole, and not the next window's
		})
		for _, name := range names {
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
		if final {
			return out, nil
		}
		buf = append(buf[:0], buf[len(buf)-overlap-1:]...)
		first = false
	}
}

// artifactOverlap is the longest reference ArtifactsIn always finds.
const artifactOverlap = 1 << 10
