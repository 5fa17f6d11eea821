// Package htmltest is the tests' helpers for pidex's HTML (pidex serve's
// pages, the HTML export): one headless Chromium per test binary, a tab of
// it per test, driven through chromedp, with what the tests watch (the
// JavaScript dialogs that open, the requests the page makes); screenshots
// with PIDEX_SCREENSHOTS=DIR; and the check that a page's markup is only
// its own (AssertInert). The browser tests skip only when no Chromium can
// be found (CI installs Debian's chromium).
package htmltest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// CSS selects by a CSS selector.
type CSS = chromedp.CSS

// Chromium is the path of a Chromium on PATH; the test skips without one.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("browser tests skipped: no Chromium on PATH (apt-get install -y chromium)")
	return ""
}

// The test binary's one Chromium, started by the first tab and stopped by
// Stop: starting a browser for each test would cost a second or more each.
var shared struct {
	sync.Mutex
	ctx    context.Context // the browser's first context, which owns it
	cancel func()
}

func browser(t testing.TB) context.Context {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.ctx != nil {
		return shared.ctx
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.NoSandbox, // CI runs as root
		chromedp.Flag("disable-gpu", true),
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("lang", "en-US"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	if err := chromedp.Do(ctx); err != nil { // starts it
		cancel()
		cancelAlloc()
		t.Fatalf("start chromium: %v", err)
	}
	shared.ctx, shared.cancel = ctx, func() { cancel(); cancelAlloc() }
	return ctx
}

// Stop ends the shared browser (and removes its profile folder); a test
// binary that opened a tab calls it from TestMain after m.Run.
func Stop() {
	shared.Lock()
	defer shared.Unlock()
	if shared.cancel != nil {
		shared.cancel()
		shared.ctx, shared.cancel = nil, nil
	}
}

// Tab is one tab of the shared browser (1280×800), for one test, in a
// browser context of its own (its own storage, as a fresh profile), with
// a count of the JavaScript dialogs that opened (an alert() means session
// text ran) and the URLs of the requests the page made.
type Tab struct {
	T       testing.TB
	Ctx     context.Context
	Dialogs atomic.Int32

	mu       sync.Mutex
	requests []string
}

// NewTab opens a tab; the test's cleanup closes it. The test's time bound
// is the tab's life.
func NewTab(t testing.TB) *Tab {
	t.Helper()
	tctx, cancelTime := context.WithTimeout(browser(t), time.Minute)
	ctx, cancel := chromedp.NewContext(tctx, chromedp.WithNewBrowserContext())
	t.Cleanup(func() { cancel(); cancelTime() })
	b := &Tab{T: t, Ctx: ctx}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *cdpage.EventJavascriptDialogOpening:
			b.Dialogs.Add(1)
		case *network.EventRequestWillBeSent:
			b.mu.Lock()
			b.requests = append(b.requests, ev.Request.URL)
			b.mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return b
}

// Requests are the URLs the tab requested since the last call, in order
// (the browser's request log: documents, scripts, styles, images, fetches).
func (b *Tab) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.requests
	b.requests = nil
	return r
}

// AllowClipboard lets the pages of origin (scheme://host:port) read and
// write the clipboard, as a reader who allowed it; ReadClipboard reads it.
func (b *Tab) AllowClipboard(origin string) {
	b.T.Helper()
	c := chromedp.FromContext(b.Ctx)
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(b.Ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true}, Setting: cdpbrowser.PermissionSettingGranted,
			Origin: origin, BrowserContextID: c.BrowserContextID}); err != nil {
			b.T.Fatalf("allow %s: %v", name, err)
		}
	}
}

// ReadClipboard is the clipboard's text (see AllowClipboard).
func (b *Tab) ReadClipboard() string {
	b.T.Helper()
	return Value(b, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
}

// Do runs steps, failing the test at the first error.
func (b *Tab) Do(step string, steps ...chromedp.Action[chromedp.Void]) {
	b.T.Helper()
	if err := chromedp.Do(b.Ctx, steps...); err != nil {
		b.T.Fatalf("%s: %v", step, err)
	}
}

// Click clicks a link and waits for the page it opens. The link is put
// in the middle of the view first: at the top edge, the sticky header
// would take the click.
func (b *Tab) Click(step, sel string) {
	b.T.Helper()
	b.Do(step, chromedp.ScrollIntoView(CSS(sel)), chromedp.Evaluate[chromedp.Void](`void document.querySelector(`+strconv.Quote(sel)+`).scrollIntoView({block: "center"})`))
	if _, err := chromedp.RunResponse(b.Ctx, chromedp.Click(CSS(sel))); err != nil {
		b.T.Fatalf("%s: %v", step, err)
	}
}

// Value runs an action that returns a value.
func Value[T any](b *Tab, a chromedp.Action[T]) T {
	b.T.Helper()
	v, err := chromedp.Run(b.Ctx, a)
	if err != nil {
		b.T.Fatal(err)
	}
	return v
}

// JS evaluates a JavaScript expression.
func JS[T any](b *Tab, expr string) T {
	b.T.Helper()
	return Value(b, chromedp.Evaluate[T](expr))
}

// Shot saves the viewport as DIR/name.png when PIDEX_SCREENSHOTS=DIR.
func Shot(name string) chromedp.Action[chromedp.Void] {
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

// Until waits for a JavaScript condition.
//
// It evaluates cond itself, every 50 ms, rather than with chromedp.Poll: a
// page that navigates while it is polled (the cost page adds the
// browser's zone to its URL) destroys the context the evaluation runs in,
// and Poll fails with "Cannot find context with specified id" where the
// condition only needed another look once the new page is there.
func Until(cond string) chromedp.Action[chromedp.Void] {
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

// Sizes are the screens a page is laid out for: a phone (390 px, emulated
// as one: the page's viewport meta applies) and a wide window.
var Sizes = []Size{{"phone", 390, 844, true}, {"desktop", 1400, 900, false}}

// Size is a screen.
type Size struct {
	Name          string
	Width, Height int64
	Phone         bool
}

// Emulate sets the tab's screen to s.
func (s Size) Emulate() chromedp.Action[chromedp.Void] {
	var opts []chromedp.EmulateViewportOption
	if s.Phone {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(2), chromedp.EmulatePortrait)
	}
	return chromedp.EmulateViewport(s.Width, s.Height, opts...)
}

// OutOfScreen lists the visible elements whose right edge passes the
// screen, except inside a box that scrolls on its own (code, output,
// wide tables), which is where a wide thing belongs.
const OutOfScreen = `(() => {
	const w = document.documentElement.clientWidth, out = [];
	const scrolls = (e) => { for (let p = e.parentElement; p; p = p.parentElement) {
		const o = getComputedStyle(p).overflowX; if (o === "auto" || o === "scroll" || o === "hidden") return true; } return false; };
	for (const e of document.querySelectorAll("body *")) {
		const r = e.getBoundingClientRect();
		if (r.width === 0 || r.height === 0 || r.right <= w + 1) continue;
		if (getComputedStyle(e).position === "fixed" || scrolls(e)) continue;
		out.push(e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.split(" ").join(".") : "") + " to " + Math.round(r.right));
	}
	return out;
})()`
