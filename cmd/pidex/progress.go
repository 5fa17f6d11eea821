package main

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/pidex-dev/pidex"
)

// drawing runs run while drawing the engine's progress counters on stderr.
// The indexer only counts; drawing lives here. Nothing is drawn when
// stderr is not a terminal, or with --quiet or --json.
func (a *app) drawing(run func() error) error { return a.drawingAs("", run) }

// drawingAs is drawing work of one phase the engine does not begin itself
// (pidex.PhasePush); a refresh begins its own.
func (a *app) drawingAs(phase string, run func() error) error {
	a.progress.Begin(phase)
	stop := a.drawProgress(a.progress)
	defer stop()
	return run()
}

func (a *app) drawProgress(p *pidex.Progress) (stop func()) {
	if a.quiet || a.json || !a.io.ErrTTY {
		return func() {}
	}
	d := &progressDrawer{w: a.io.ErrOut, p: p} // raw: it draws with \r
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(150 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				d.end()
				return
			case <-t.C:
				d.frame()
			}
		}
	}()
	return func() { close(done); <-finished }
}

// progressDrawer draws one bar per phase of the work, labelled with it:
// the session files, then the search index, each to its end (a cold index
// spends as long on its text as on its files; one bar that stopped after
// the files left the text pass silent).
type progressDrawer struct {
	w     io.Writer
	p     *pidex.Progress
	bar   *progressbar.ProgressBar
	phase string // the phase the bar draws
}

// phaseLabel says what a phase does, for its bar.
var phaseLabel = map[string]string{
	pidex.PhaseFiles: "reading sessions",
	pidex.PhaseText:  "indexing text for search",
	pidex.PhasePush:  "pushing sessions",
}

// minBar is the work worth a bar: less is done before one would be seen.
const minBar = 1 << 20

// frame draws the counters as they are now.
func (d *progressDrawer) frame() {
	phase := d.p.Phase()
	if d.bar != nil && phase != d.phase {
		d.end() // that phase is over: its bar ends full
	}
	total := d.p.BytesTotal.Load()
	if phase == "" || total < minBar {
		return
	}
	label := phaseLabel[phase]
	if label == "" {
		label = phase
	}
	if d.bar == nil {
		d.phase = phase
		d.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(d.w),
			progressbar.OptionShowBytes(true),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
		)
	}
	d.bar.ChangeMax64(total) // a phase may plan more work as it goes
	d.bar.Describe(label + " " + itoa(d.p.FilesDone.Load()) + "/" + itoa(d.p.FilesTotal.Load()) + " files")
	_ = d.bar.Set64(d.p.BytesDone.Load())
}

// end finishes and clears the bar of the phase that ended.
func (d *progressDrawer) end() {
	if d.bar != nil {
		_ = d.bar.Finish()
		_ = d.bar.Clear()
		d.bar = nil
	}
}
