package web

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
	"github.com/pidex-dev/pidex/internal/htmltest"
)

// Browser tests: real headless Chromium (htmltest's, one for the test
// binary) driven through the pages as a reader would, asserting on what
// the page shows. They skip only when no Chromium can be found (CI
// installs Debian's chromium). With PIDEX_SCREENSHOTS=DIR they also save a
// screenshot of each page there (docs/screenshots is made that way).

type css = htmltest.CSS

// The helpers, short: these tests use them on every line.
func browser(t *testing.T) *htmltest.Tab                   { return htmltest.NewTab(t) }
func value[T any](b *htmltest.Tab, a chromedp.Action[T]) T { b.T.Helper(); return htmltest.Value(b, a) }
func js[T any](b *htmltest.Tab, expr string) T             { b.T.Helper(); return htmltest.JS[T](b, expr) }

var (
	shot  = htmltest.Shot
	until = htmltest.Until
)

func TestBrowser(t *testing.T) {
	f := newFixtureWith(t, Options{}, "") // first: cleanups run last to first, the browser must go before the server
	b := browser(t)

	// Sessions: every session, newest first, then filtered as you type.
	b.Do("open the sessions page", chromedp.Navigate(f.ts.URL+"/"), chromedp.WaitVisible(css(`table.sessions tbody tr`)), shot("sessions"))
	if n, c := js[int](b, `document.querySelectorAll("table.sessions tbody tr").length`), value(b, chromedp.Text(css(`p.count`))); n < 20 || !strings.Contains(c, "of 30") {
		t.Errorf("sessions page: %d rows, %q", n, c)
	}
	b.Do("filter by project", chromedp.SendKeys(css(`input[name=project]`), "alpha"),
		until(`(() => { const tds = [...document.querySelectorAll("table.sessions tbody td.project")];
			return tds.length === 4 && tds.every(td => td.textContent === "proj-alpha") })()`))
	if u := value(b, chromedp.Location()); !strings.Contains(u, "project=alpha") {
		t.Errorf("the filter is not in the URL: %s", u)
	}

	// Session: open it from the list.
	b.Click("open a session", `a[href^="/s/`+branchy+`"]`)
	b.Do("session page", chromedp.WaitVisible(css(`ol.entries`)), shot("session"))
	if h := value(b, chromedp.Text(css(`h1`))); !strings.Contains(h, "--json flag") {
		t.Errorf("session title %q", h)
	}
	entries := js[int](b, `document.querySelectorAll("ol.entries > li").length`)
	nodes := js[int](b, `document.querySelectorAll("aside.tree li.node").length`)
	if entries == 0 || nodes <= entries || js[int](b, `document.querySelectorAll("aside.tree li.bp").length`) != 2 {
		t.Errorf("%d entries on the branch, %d in the tree (which should hold more, with 2 branch points)", entries, nodes)
	}

	// Tree: choose an entry off the current branch; the page shows the
	// path to it.
	// The deepest entry off the branch: the last one inside two branch points.
	pick := `[...document.querySelectorAll("aside.tree li.branch li.branch li.node:not(.onpath) a, aside.tree li.node:not(.onpath) a")].pop()`
	target := js[string](b, pick+`.dataset.id`)
	b.Click("switch branch", `aside.tree a[data-id="`+target+`"]`)
	b.Do("branch page", chromedp.WaitVisible(css(`.branch-note`)), shot("session-branch"))
	if sel := js[string](b, `document.querySelector("aside.tree li.sel a").dataset.id`); sel != target {
		t.Errorf("selected %q, want %q", sel, target)
	}
	if last := js[string](b, `[...document.querySelectorAll("ol.entries > li")].pop().id`); last != "e-"+target {
		t.Errorf("the path ends at %q, want e-%s", last, target)
	}

	// The model context pi would rebuild, for that branch.
	b.Click("toggle the model context", `#toggle-context`)
	b.Do("context page", chromedp.WaitVisible(css(`ol.entries.context`)), shot("context"))
	if note, u := value(b, chromedp.Text(css(`p.note`))), value(b, chromedp.Location()); !strings.Contains(note, "messages pi sends to the model") || !strings.Contains(u, "leaf="+target) {
		t.Errorf("context view: %q at %s", note, u)
	}

	// Search as you type, then open a hit on its branch, scrolled to it.
	b.Do("search", chromedp.Navigate(f.ts.URL+"/search"), chromedp.WaitVisible(css(`#q`)),
		chromedp.SendKeys(css(`#q`), "flaky"), chromedp.WaitVisible(css(`ol.hits li mark`)), shot("search"))
	if n, m := js[int](b, `document.querySelectorAll("ol.hits li").length`), value(b, chromedp.Text(css(`ol.hits li mark`))); n == 0 || !strings.EqualFold(m, "flaky") {
		t.Errorf("%d hits, first mark %q", n, m)
	}
	b.Click("open a hit", `ol.hits li a`)
	b.Do("hit in view", chromedp.WaitVisible(css(`li.entry.target`)),
		until(`(() => { const r = document.querySelector("li.entry.target").getBoundingClientRect(); return r.top >= 40 && r.top < innerHeight })()`))

	// Cost: the chart in the browser's zone, and the table.
	b.Do("cost", chromedp.Navigate(f.ts.URL+"/cost"), until(`location.search.includes("tz=")`),
		chromedp.WaitVisible(css(`svg#cost-chart rect`)), shot("cost"))
	bars, rows := js[int](b, `document.querySelectorAll("svg#cost-chart rect").length`), js[int](b, `document.querySelectorAll("table.cost tbody tr").length`)
	if br := value(b, chromedp.Text(css(`#branches`))); bars == 0 || rows == 0 || !strings.Contains(br, "abandoned branches $") {
		t.Errorf("cost page: %d bars, %d rows, %q", bars, rows, br)
	}
	b.Do("cost by month", chromedp.SetValue(css(`select[name=period]`), "month"),
		chromedp.Evaluate[chromedp.Void](`void document.querySelector("select[name=period]").dispatchEvent(new Event("change", {bubbles: true}))`),
		until(`document.querySelector("#results p.count").textContent.includes("per month")`))
	// The testdata's calls pi recorded at $0 (kimi and glm, without a
	// price): an asterisk on their rows' cost, a note; Estimate prices
	// those it can in a column of its own.
	if note, marks := value(b, chromedp.Text(css(`#unpriced-note`))), js[int](b, `document.querySelectorAll("table.cost span.unpriced").length`); !strings.Contains(note, "unpriced: 112 calls") ||
		!strings.Contains(note, "zai/glm-5.2") || marks == 0 {
		t.Errorf("cost page: note %q, %d asterisks", note, marks)
	}
	b.Click("estimate the unpriced calls", `input[name=estimate]`)
	b.Do("estimated", until(`document.querySelector("#results table.cost thead").textContent.includes("estimated")`), shot("cost-estimated"))
	if note := value(b, chromedp.Text(css(`#unpriced-note`))); !strings.Contains(note, "estimated $") || !strings.Contains(value(b, chromedp.Location()), "estimate=1") {
		t.Errorf("cost page with the estimate: note %q", note)
	}

	// Activity: in the browser's zone, the figures, the rows by week, the
	// hours of the week with their figures in each hour's title, the
	// lists; a week's sessions, a session, and an error's entry open.
	b.Do("activity", chromedp.Navigate(f.ts.URL+"/activity"), until(`location.search.includes("tz=")`),
		chromedp.WaitVisible(css(`#heatmap td.heat4`)), shot("activity"))
	if title := js[string](b, `document.querySelector("#heatmap td.heat4").title`); !strings.Contains(title, " active, ") {
		t.Errorf("the busiest hour's title: %q", title)
	}
	if n := js[int](b, `document.querySelectorAll("#heatmap tbody td").length`); n != 7*24 {
		t.Errorf("%d hours in the heatmap", n)
	}
	if figs := value(b, chromedp.Text(css(`#figures`))); !strings.Contains(figs, "Tool calls") || !strings.Contains(figs, "Mean turn latency") {
		t.Errorf("figures: %q", figs)
	}
	b.Do("activity by model", chromedp.SetValue(css(`select[name=by]`), "model"),
		chromedp.Evaluate[chromedp.Void](`void document.querySelector("select[name=by]").dispatchEvent(new Event("change", {bubbles: true}))`),
		until(`document.querySelector("#results h2").textContent === "By model"`))
	b.Do("a week", chromedp.Navigate(f.ts.URL+"/activity?tz=UTC&by=week"), chromedp.WaitVisible(css(`#stats-rows`)))
	week := js[string](b, `[...document.querySelectorAll("#stats-rows tbody tr")].find(tr => tr.querySelector("td.num a")).querySelector("td.key").textContent`)
	b.Click("its sessions", `#stats-rows tbody tr td.num a`)
	b.Do("the week's sessions", until(`location.search.includes("by=session")`), chromedp.WaitVisible(css(`#stats-rows td.key a`)))
	if h := value(b, chromedp.Text(css(`#results h2`))); h != "By session" || !strings.Contains(value(b, chromedp.Location()), "since=") {
		t.Errorf("the sessions of week %s: %q at %s", week, h, value(b, chromedp.Location()))
	}
	b.Click("a session", `#stats-rows td.key a`)
	b.Do("the session", chromedp.WaitVisible(css(`ol.entries`)))
	b.Do("activity", chromedp.Navigate(f.ts.URL+"/activity?tz=UTC"), chromedp.WaitVisible(css(`#list-errors a`)))
	b.Click("an error's entry", `#list-errors a`)
	b.Do("the entry in view", chromedp.WaitVisible(css(`li.entry.target`)),
		until(`(() => { const r = document.querySelector("li.entry.target").getBoundingClientRect(); return r.top >= 40 && r.top < innerHeight })()`))
	if n := b.Dialogs.Load(); n != 0 {
		t.Errorf("%d dialogs opened", n)
	}
}

// In a real browser, session text that tries to run script shows as text
// and runs nothing; and a page updates itself when its file grows.
func TestBrowserEscapingAndLive(t *testing.T) {
	f := newFixture(t, Options{})
	b := browser(t)
	wctx, stop := context.WithCancel(context.Background())
	defer stop()
	go f.eng.Watch(wctx, engine.WatchOptions{Text: true})
	b.Do("open the session", chromedp.Navigate(f.ts.URL+"/s/"+evilID), chromedp.WaitVisible(css(`ol.entries`)),
		chromedp.Evaluate[chromedp.Void](`void document.querySelectorAll("details").forEach(d => d.open = true)`))
	title, user := value(b, chromedp.Text(css(`h1`))), value(b, chromedp.Text(css(`li.entry.user .md`)))
	if title != "<script>alert('name')</script>" || !strings.Contains(user, "<img src=x onerror=alert('user')>") {
		t.Errorf("shown: %q / %q", title, user)
	}
	time.Sleep(200 * time.Millisecond) // time for anything that would run
	if n := b.Dialogs.Load(); n != 0 {
		t.Errorf("session text ran as script: %d dialogs", n)
	}

	// Live: once the page listens, append to the file and see it appear.
	b.Do("listening", until(`document.getElementById("live").classList.contains("on")`))
	start := time.Now()
	catalogtest.AppendFile(t, filepath.Join(f.root, "--evil--", "evil.jsonl"),
		`{"type":"message","id":"u9","parentId":"l1","timestamp":"2026-10-01T10:02:00.000Z","message":{"role":"user","content":"appended while watching","timestamp":1790848920000}}`+"\n")
	b.Do("live update", until(`document.body.innerText.includes("appended while watching")`))
	// No timing assertion (a loaded machine is slow, not wrong): until's
	// bound is the test's; the latency is for the log.
	t.Logf("the page updated after %v", time.Since(start))
}

// The session page shows the command that resumes the session, and its
// copy button copies it (the clipboard, or where the page may not write
// it, the command selected for the reader to copy); the downloads are
// links to the session's exports.
func TestBrowserCopiesResume(t *testing.T) {
	f := newFixtureWith(t, Options{}, "")
	ref, err := f.eng.Resolve(context.Background(), branchy, "")
	if err != nil {
		t.Fatal(err)
	}
	want, err := f.eng.Resume(context.Background(), ref, pidex.ResumeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := browser(t)
	b.AllowClipboard(f.ts.URL)
	b.Do("open the session", chromedp.Navigate(f.ts.URL+"/s/"+branchy), chromedp.WaitVisible(css(`#resume-command`)))
	if shown := value(b, chromedp.Text(css(`#resume-command`))); shown != want.Command {
		t.Fatalf("the page shows %q, want %q", shown, want.Command)
	}
	b.Do("copy", chromedp.Click(css(`button.copy`)), until(`document.querySelector("button.copy").textContent === "Copied"`))
	if got := b.ReadClipboard(); got != want.Command {
		t.Errorf("copied %q, want %q", got, want.Command)
	}
	// Without the clipboard API (an address that is not a secure context):
	// the command is selected.
	b.Do("no clipboard", chromedp.Navigate(f.ts.URL+"/s/"+branchy), chromedp.WaitVisible(css(`#resume-command`)),
		chromedp.Evaluate[chromedp.Void](`void Object.defineProperty(navigator, "clipboard", {value: undefined})`),
		chromedp.Click(css(`button.copy`)), until(`window.getSelection().toString() !== ""`))
	if sel := js[string](b, `window.getSelection().toString()`); sel != want.Command {
		t.Errorf("selected %q, want the command", sel)
	}
	links := js[[]string](b, `[...document.querySelectorAll("#downloads a")].map(a => a.textContent + " " + a.getAttribute("href"))`)
	if strings.Join(links, "\n") != "Markdown /s/"+branchy+"/export?format=md\nHTML /s/"+branchy+"/export?format=html\nJSON /s/"+branchy+"/export?format=json" {
		t.Errorf("downloads: %q", links)
	}
}
