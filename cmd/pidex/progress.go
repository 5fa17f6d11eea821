package main

import (
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/pidex-dev/pidex/indexer"
)

// drawProgress draws p on stderr until the returned stop is called. The
// indexer only counts; drawing lives here. Nothing is drawn when stderr is
// not a terminal, or with --quiet or --json.
func (a *app) drawProgress(p *indexer.Progress) (stop func()) {
	if a.quiet || a.json || !isTerminal(a.stderr) {
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
					progressbar.OptionSetDescription("indexing"),
					progressbar.OptionShowCount(),
					progressbar.OptionSetPredictTime(true),
					progressbar.OptionThrottle(100*time.Millisecond),
					progressbar.OptionClearOnFinish(),
				)
			}
			bar.Describe(fmtFiles(p.FilesDone.Load(), p.FilesTotal.Load()))
			_ = bar.Set64(p.BytesDone.Load())
		}
	}()
	return func() { close(done); <-finished }
}

func fmtFiles(done, total int64) string {
	return "indexing " + itoa(done) + "/" + itoa(total) + " files"
}
