package web

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/pidex-dev/pidex/engine"
	"github.com/pidex-dev/pidex/internal/catalogtest"
)

// Browser tests: real headless Chromium driven through the pages as a
// reader would, asserting on what the page shows. They skip only when no
// Chromium can be found (CI installs Debian's chromium). With
// PIDEX_SCREENSHOTS=DIR they also save a screenshot of each page there
// (docs/screenshots is made that way).

type css = chromedp.CSS

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("browser tests skipped: no Chromium on PATH (apt-get install -y chromium)")
	return ""
}

// tab is one headless Chromium (1280×800) for one test, with a count of
// the JavaScript dialogs that opened: an alert() means session text ran.
type tab struct {
	t       *testing.T
	ctx     context.Context
	dialogs atomic.Int32
}

func browser(t *testing.T) *tab {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("lang", "en-US"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	// The whole test's time bound is the browser's life.
	tctx, cancelTime := context.WithTimeout(actx, time.Minute)
	ctx, cancel := chromedp.NewContext(tctx)
	t.Cleanup(func() { cancel(); cancelTime(); cancelAlloc() })
	b := &tab{t: t, ctx: ctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		if _, ok := ev.(*cdpage.EventJavascriptDialogOpening); ok {
			b.dialogs.Add(1)
		}
	}); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

// do runs steps, failing the test at the first error.
func (b *tab) do(step string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", step, err)
	}
}

// click clicks a link and waits for the page it opens. The link is put
// in the middle of the view first: at the top edge, the sticky header
// would take the click.
func (b *tab) click(step, sel string) {
	b.t.Helper()
	b.do(step, chromedp.ScrollIntoView(css(sel)), chromedp.Evaluate[chromedp.Void](`void document.querySelector(`+strconv.Quote(sel)+`).scrollIntoView({block: "center"})`))
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Click(css(sel))); err != nil {
		b.t.Fatalf("%s: %v", step, err)
	}
}

// value runs an action that returns a value.
func value[T any](b *tab, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// js evaluates a JavaScript expression.
func js[T any](b *tab, expr string) T {
	b.t.Helper()
	return value(b, chromedp.Evaluate[T](expr))
}

// shot saves the viewport as DIR/name.png when PIDEX_SCREENSHOTS=DIR.
func shot(name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		dir := os.Getenv("PIDEX_SCREENSHOTS")
		if dir == "" {
			return nil
		}
		png, err := chromedp.CaptureScreenshot()(ctx, t)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	})
}

// until waits for a JavaScript condition.
//
// It evaluates cond itself, every 50 ms, rather than with chromedp.Poll: a
// page that navigates while it is polled (the cost page adds the
// browser's zone to its URL) destroys the context the evaluation runs in,
// and Poll fails with "Cannot find context with specified id" where the
// condition only needed another look once the new page is there.
func until(cond string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		deadline := time.Now().Add(10 * time.Second)
		for {
			ok, err := chromedp.Evaluate[bool](cond)(ctx, t)
			switch {
			case err == nil && ok:
				return nil
			case ctx.Err() != nil:
				return ctx.Err()
			case time.Now().After(deadline):
				if err == nil {
					err = fmt.Errorf("%s: still false after 10 s", cond)
				}
				return err
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func TestBrowser(t *testing.T) {
	f := newFixtureWith(t, Options{}, "") // first: cleanups run last to first, the browser must go before the server
	b := browser(t)

	// Sessions: every session, newest first, then filtered as you type.
	b.do("open the sessions page", chromedp.Navigate(f.ts.URL+"/"), chromedp.WaitVisible(css(`table.sessions tbody tr`)), shot("sessions"))
	if n, c := js[int](b, `document.querySelectorAll("table.sessions tbody tr").length`), value(b, chromedp.Text(css(`p.count`))); n < 20 || !strings.Contains(c, "of 29") {
		t.Errorf("sessions page: %d rows, %q", n, c)
	}
	b.do("filter by project", chromedp.SendKeys(css(`input[name=project]`), "alpha"),
		until(`(() => { const tds = [...document.querySelectorAll("table.sessions tbody td.project")];
			return tds.length === 4 && tds.every(td => td.textContent === "proj-alpha") })()`))
	if u := value(b, chromedp.Location()); !strings.Contains(u, "project=alpha") {
		t.Errorf("the filter is not in the URL: %s", u)
	}

	// Session: open it from the list.
	b.click("open a session", `a[href^="/s/`+branchy+`"]`)
	b.do("session page", chromedp.WaitVisible(css(`ol.entries`)), shot("session"))
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
	b.click("switch branch", `aside.tree a[data-id="`+target+`"]`)
	b.do("branch page", chromedp.WaitVisible(css(`.branch-note`)), shot("session-branch"))
	if sel := js[string](b, `document.querySelector("aside.tree li.sel a").dataset.id`); sel != target {
		t.Errorf("selected %q, want %q", sel, target)
	}
	if last := js[string](b, `[...document.querySelectorAll("ol.entries > li")].pop().id`); last != "e-"+target {
		t.Errorf("the path ends at %q, want e-%s", last, target)
	}

	// The model context pi would rebuild, for that branch.
	b.click("toggle the model context", `#toggle-context`)
	b.do("context page", chromedp.WaitVisible(css(`ol.entries.context`)), shot("context"))
	if note, u := value(b, chromedp.Text(css(`p.note`))), value(b, chromedp.Location()); !strings.Contains(note, "messages pi sends to the model") || !strings.Contains(u, "leaf="+target) {
		t.Errorf("context view: %q at %s", note, u)
	}

	// Search as you type, then open a hit on its branch, scrolled to it.
	b.do("search", chromedp.Navigate(f.ts.URL+"/search"), chromedp.WaitVisible(css(`#q`)),
		chromedp.SendKeys(css(`#q`), "flaky"), chromedp.WaitVisible(css(`ol.hits li mark`)), shot("search"))
	if n, m := js[int](b, `document.querySelectorAll("ol.hits li").length`), value(b, chromedp.Text(css(`ol.hits li mark`))); n == 0 || !strings.EqualFold(m, "flaky") {
		t.Errorf("%d hits, first mark %q", n, m)
	}
	b.click("open a hit", `ol.hits li a`)
	b.do("hit in view", chromedp.WaitVisible(css(`li.entry.target`)),
		until(`(() => { const r = document.querySelector("li.entry.target").getBoundingClientRect(); return r.top >= 40 && r.top < innerHeight })()`))

	// Cost: the chart in the browser's zone, and the table.
	b.do("cost", chromedp.Navigate(f.ts.URL+"/cost"), until(`location.search.includes("tz=")`),
		chromedp.WaitVisible(css(`svg#cost-chart rect`)), shot("cost"))
	bars, rows := js[int](b, `document.querySelectorAll("svg#cost-chart rect").length`), js[int](b, `document.querySelectorAll("table.cost tbody tr").length`)
	if br := value(b, chromedp.Text(css(`#branches`))); bars == 0 || rows == 0 || !strings.Contains(br, "abandoned branches $") {
		t.Errorf("cost page: %d bars, %d rows, %q", bars, rows, br)
	}
	b.do("cost by month", chromedp.SetValue(css(`select[name=period]`), "month"),
		chromedp.Evaluate[chromedp.Void](`void document.querySelector("select[name=period]").dispatchEvent(new Event("change", {bubbles: true}))`),
		until(`document.querySelector("#results p.count").textContent.includes("per month")`))
	if n := b.dialogs.Load(); n != 0 {
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
	b.do("open the session", chromedp.Navigate(f.ts.URL+"/s/"+evilID), chromedp.WaitVisible(css(`ol.entries`)),
		chromedp.Evaluate[chromedp.Void](`void document.querySelectorAll("details").forEach(d => d.open = true)`))
	title, user := value(b, chromedp.Text(css(`h1`))), value(b, chromedp.Text(css(`li.entry.user .md`)))
	if title != "<script>alert('name')</script>" || !strings.Contains(user, "<img src=x onerror=alert('user')>") {
		t.Errorf("shown: %q / %q", title, user)
	}
	time.Sleep(200 * time.Millisecond) // time for anything that would run
	if n := b.dialogs.Load(); n != 0 {
		t.Errorf("session text ran as script: %d dialogs", n)
	}

	// Live: once the page listens, append to the file and see it appear.
	b.do("listening", until(`document.getElementById("live").classList.contains("on")`))
	start := time.Now()
	catalogtest.AppendFile(t, filepath.Join(f.root, "--evil--", "evil.jsonl"),
		`{"type":"message","id":"u9","parentId":"l1","timestamp":"2026-10-01T10:02:00.000Z","message":{"role":"user","content":"appended while watching","timestamp":1790848920000}}`+"\n")
	b.do("live update", until(`document.body.innerText.includes("appended while watching")`))
	if d := time.Since(start); d > time.Second {
		t.Errorf("the page updated after %v, want within a second", d)
	} else {
		t.Logf("the page updated after %v", d)
	}
}
