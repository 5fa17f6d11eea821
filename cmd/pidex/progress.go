package main

import (
	"time"

	"github.com/pidex-dev/pidex"
	"github.com/schollz/progressbar/v3"
)

// drawing runs run while drawing the engine's progress counters on stderr.
// The indexer only counts; drawing lives here. Nothing is drawn when
// stderr is not a terminal, or with --quiet or --json.
func (a *app) drawing(run func() error) error { return a.drawingAs("indexing", run) }

// drawingAs is drawing with the bar's word for the work ("pushing").
func (a *app) drawingAs(what string, run func() error) error {
	p := a.progress
	for _, c := range []interface{ Store(int64) }{&p.FilesTotal, &p.FilesDone, &p.BytesTotal, &p.BytesDone} {
		c.Store(0)
	}
	stop := a.drawProgress(p, what)
	defer stop()
	return run()
}

func (a *app) drawProgress(p *pidex.Progress, what string) (stop func()) {
	if a.quiet || a.json || !a.io.ErrTTY {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var bar *progressbar.ProgressBar
		t := time.NewTicker(150 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				if bar != nil {
					_ = bar.Finish()
					_ = bar.Clear()
				}
				return
			case <-t.C:
			}
			total := p.BytesTotal.Load()
			if total < 1<<20 { // not worth a bar
				continue
			}
			if bar == nil {
				bar = progressbar.NewOptions64(total,
					progressbar.OptionSetWriter(a.stderr),
					progressbar.OptionShowBytes(true),
					progressbar.OptionSetDescription(what),
					progressbar.OptionShowCount(),
					progressbar.OptionSetPredictTime(true),
					progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionClearOnFinish(),
				)
			}
			bar.Describe(what + " " + itoa(p.FilesDone.Load()) + "/" + itoa(p.FilesTotal.Load()) + " files")
			_ = bar.Set64(p.BytesDone.Load())
		}
	}()
	return func() { close(done); <-finished }
}
