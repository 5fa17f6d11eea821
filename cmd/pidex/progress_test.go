package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
)

// A cold index draws a bar for each phase, labelled with it, each to its
// end: the files' bar ends when the text pass begins, and the text pass
// has a bar of its own. Frames are drawn by hand: no clock involved.
func TestProgressPhases(t *testing.T) {
	var out bytes.Buffer
	p := &pidex.Progress{}
	d := &progressDrawer{w: &out, p: p}
	steps := []struct {
		phase        string
		files, done  int64
		total, bytes int64
		want         string // in the output after this frame
		wantNot      string
	}{
		{pidex.PhaseFiles, 3, 1, 100 << 10, 50 << 10, "", "reading"}, // too little for a bar
		{pidex.PhaseFiles, 3, 1, 4 << 20, 1 << 20, "reading sessions 1/3 files", ""},
		{pidex.PhaseFiles, 3, 3, 4 << 20, 4 << 20, "reading sessions 3/3 files", ""},
		{pidex.PhaseText, 3, 1, 4 << 20, 2 << 20, "indexing text for search 1/3 files", ""},
		{pidex.PhaseText, 3, 3, 4 << 20, 4 << 20, "indexing text for search 3/3 files", ""},
	}
	for i, s := range steps {
		if p.Phase() != s.phase {
			p.Begin(s.phase)
		}
		p.FilesTotal.Store(s.files)
		p.FilesDone.Store(s.done)
		p.BytesTotal.Store(s.total)
		p.BytesDone.Store(s.bytes)
		out.Reset()
		d.frame()
		if s.want != "" && !strings.Contains(out.String(), s.want) {
			t.Errorf("step %d: %q lacks %q", i, out.String(), s.want)
		}
		if s.wantNot != "" && strings.Contains(out.String(), s.wantNot) {
			t.Errorf("step %d: %q has %q", i, out.String(), s.wantNot)
		}
		if i == 3 && d.phase != pidex.PhaseText {
			t.Errorf("the text pass draws the %q bar", d.phase)
		}
	}
	d.end()
	if d.bar != nil {
		t.Error("the bar is left open")
	}
}
