package export_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/htmltest"
)

// Browser tests: the HTML export opened from a file:// URL in headless
// Chromium (htmltest's, one for the test binary), as a reader opens a file
// someone sent. With PIDEX_SCREENSHOTS=DIR they save the screenshots
// docs/commands.md shows (export-*.png).

type css = htmltest.CSS

func js[T any](b *htmltest.Tab, expr string) T { b.T.Helper(); return htmltest.JS[T](b, expr) }

// exportFiles writes the HTML export of every session of cat into dir,
// and returns each file's URL by the session's handle.
func exportFiles(t *testing.T, cat pidex.Catalog, dir string) (handles []string, urls map[string]string) {
	t.Helper()
	ctx := context.Background()
	ss, err := cat.List(ctx, pidex.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	refs := make([]pidex.SessionRef, len(ss))
	for i := range ss {
		refs[i] = ss[i].Ref()
	}
	if handles, err = cat.Handles(ctx, refs, false); err != nil {
		t.Fatal(err)
	}
	urls = map[string]string{}
	for i, h := range handles {
		path := filepath.Join(dir, strings.TrimSuffix(filepath.Base(ss[i].Path), ".jsonl")+"."+h+".html")
		if err := os.WriteFile(path, []byte(write(t, cat, h, pidex.ExportOptions{Format: pidex.FormatHTML})), 0o644); err != nil {
			t.Fatal(err)
		}
		urls[h] = "file://" + filepath.ToSlash(path)
	}
	return handles, urls
}

// open navigates to a page and waits for it to be ready.
func open(b *htmltest.Tab, url string) {
	b.T.Helper()
	b.Do("open "+url, chromedp.Navigate(url), chromedp.WaitReady(css("body")), htmltest.Until(`document.readyState === "complete"`))
}

// Every test session's export (the real sessions' too), at 390 and
// 1,400 px: it requests nothing but itself (the browser's request log:
// no stylesheet, script, font or image from anywhere, the PNG is a data:
// URL), nothing scrolls sideways (long lines wrap or scroll in their own
// box), and no session text runs as script.
func TestHTMLInChromium(t *testing.T) {
	eng := catalog(t, map[string]string{"evil.jsonl": evilSession})
	dir := t.TempDir()
	handles, urls := exportFiles(t, eng, dir)
	if len(handles) < 30 {
		t.Fatalf("%d sessions exported, want every test session", len(handles))
	}
	b := htmltest.NewTab(t)

	// The request log sees what a page loads: a page with an image from
	// the network shows in it.
	probe := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(probe, []byte(`<!doctype html><img src="http://127.0.0.1:9/x.png">`), 0o644); err != nil {
		t.Fatal(err)
	}
	open(b, "file://"+probe)
	if reqs := b.Requests(); !slices.Contains(reqs, "http://127.0.0.1:9/x.png") {
		t.Fatalf("the request log missed the probe's image: %q", reqs)
	}

	for _, size := range htmltest.Sizes {
		b.Do("size", size.Emulate())
		for _, h := range handles {
			b.Requests()
			open(b, urls[h])
			reqs := b.Requests()
			if !slices.Contains(reqs, urls[h]) {
				t.Errorf("%s: the request log does not hold the page itself: %q", h, reqs)
			}
			for _, r := range reqs {
				if r != urls[h] && !strings.HasPrefix(r, "data:") {
					t.Errorf("%s at %d px requested %.100s", h, size.Width, r)
				}
			}
			if w, cw := js[int](b, `document.scrollingElement.scrollWidth`), js[int](b, `document.scrollingElement.clientWidth`); w > cw {
				t.Errorf("%s at %d px: the page is %d px wide", h, size.Width, w)
			}
			if out := js[[]string](b, htmltest.OutOfScreen); len(out) > 0 {
				t.Errorf("%s at %d px: %d elements pass the screen's right edge: %s", h, size.Width, len(out), strings.Join(out[:min(5, len(out))], "; "))
			}
		}
	}
	if n := b.Dialogs.Load(); n != 0 {
		t.Errorf("session text ran as script: %d dialogs", n)
	}
}

// visible is the ids of the entries the page shows, in order.
const visible = `[...document.querySelectorAll("#entries > li")].filter(li => !li.hidden && li.getClientRects().length > 0).map(li => li.dataset.id)`

// Choosing an entry of another branch in the tree shows that branch (the
// path from the root to the end of the branch through it, as the catalog
// reads it) and hides the other's entries; the notes that depend on the
// branch follow; "Current branch" goes back; a link to an entry opens
// its branch. On a phone the tree is a drawer behind a button, which
// closes when an entry is chosen.
func TestHTMLBranchesInChromium(t *testing.T) {
	eng := catalog(t, map[string]string{"evil.jsonl": evilSession})
	dir := t.TempDir()
	_, urls := exportFiles(t, eng, dir)
	b := htmltest.NewTab(t)
	for _, size := range htmltest.Sizes {
		t.Run(size.Name, func(t *testing.T) {
			b.T = t
			b.Do("size", size.Emulate())
			open(b, urls[branchy])
			current := pathIDs(t, eng, branchy, "")
			if got := js[[]string](b, visible); !slices.Equal(got, current) {
				t.Fatalf("opens on %v, want the current branch %v", got, current)
			}
			if size.Phone {
				b.Do("phone", htmltest.Shot("export-phone"))
				if js[bool](b, `getComputedStyle(document.getElementById("tree")).display !== "none"`) {
					t.Error("the tree is open on a phone before it is asked for")
				}
				b.Do("open the tree", chromedp.Click(css(`#tree-toggle`)),
					htmltest.Until(`getComputedStyle(document.getElementById("tree")).display !== "none"`), htmltest.Shot("export-phone-tree"))
			}

			// The deepest entry off the current branch.
			target := js[string](b, `[...document.querySelectorAll("#tree li.node:not(.onpath) a")].pop().dataset.id`)
			end := js[string](b, `document.querySelector('#tree a[data-id="`+target+`"]').dataset.end`)
			want := pathIDs(t, eng, branchy, end)
			b.Do("choose "+target, chromedp.ScrollIntoView(css(`#tree a[data-id="`+target+`"]`)), chromedp.Click(css(`#tree a[data-id="`+target+`"]`)),
				htmltest.Until(`!document.getElementById("branch-note").hidden`))
			got := js[[]string](b, visible)
			if !slices.Equal(got, want) || !slices.Contains(got, target) {
				t.Errorf("after choosing %s: shows %v, want the branch to %s: %v", target, got, end, want)
			}
			for _, id := range current {
				if !slices.Contains(want, id) && slices.Contains(got, id) {
					t.Errorf("%s, of the other branch, still shows", id)
				}
			}
			if sel := js[string](b, `document.querySelector("#tree li.sel a").dataset.id`); sel != target {
				t.Errorf("the tree marks %s, want %s", sel, target)
			}
			if size.Phone && js[bool](b, `getComputedStyle(document.getElementById("tree")).display !== "none"`) {
				t.Error("the tree drawer stays open after an entry is chosen")
			}
			if !size.Phone {
				b.Do("desktop", chromedp.Evaluate[chromedp.Void](`void window.scrollTo(0, 0)`), htmltest.Shot("export-desktop"))
			}
			b.Do("back", chromedp.Click(css(`#current-branch`)), htmltest.Until(`document.getElementById("branch-note").hidden`))
			if got := js[[]string](b, visible); !slices.Equal(got, current) {
				t.Errorf("Current branch shows %v, want %v", got, current)
			}

			// A link to an entry opens its branch.
			open(b, urls[branchy]+"#e-"+target)
			if got := js[[]string](b, visible); !slices.Equal(got, want) {
				t.Errorf("#e-%s shows %v, want %v", target, got, want)
			}

			// The notes that hold on one branch: m1 is compacted on
			// branch A only, and the resume command says how to reach A.
			open(b, urls[evilID])
			compacted := `[...document.querySelectorAll("#e-m1 .entry-head .note")].some(n => !n.hidden && n.textContent === "(compacted)")`
			resumeA := `[...document.querySelectorAll("dd.resume .note")].some(n => !n.hidden && n.textContent.includes("choose entry u3"))`
			if js[bool](b, compacted) || js[bool](b, resumeA) || js[bool](b, `document.getElementById("e-m1").classList.contains("dim")`) {
				t.Error("branch A's notes show on branch B")
			}
			if size.Phone {
				b.Do("open the tree", chromedp.Click(css(`#tree-toggle`)), htmltest.Until(`getComputedStyle(document.getElementById("tree")).display !== "none"`))
			}
			b.Do("choose u3", chromedp.ScrollIntoView(css(`#tree a[data-id="u3"]`)), chromedp.Click(css(`#tree a[data-id="u3"]`)),
				htmltest.Until(`!document.getElementById("e-u3").hidden`))
			if !js[bool](b, compacted) || !js[bool](b, resumeA) || !js[bool](b, `document.getElementById("e-m1").classList.contains("dim")`) {
				t.Error("branch A's notes do not show on branch A")
			}
			if n := b.Dialogs.Load(); n != 0 {
				t.Errorf("session text ran as script: %d dialogs", n)
			}
		})
	}
}
