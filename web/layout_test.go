package web

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/pidex-dev/pidex/internal/htmltest"
)

// The pages laid out for phones and wide windows, in Chromium: at 390 px
// (a phone, emulated as one: the page's viewport meta applies) and at
// 1,400 px no page scrolls sideways and nothing sticks out of the screen
// (only code, tool output and wide tables scroll inside their own box),
// dates stay on one line, session tables become cards on the phone, the
// tree is a drawer there and a panel one can widen, narrow and hide on
// the desktop; a long session says where it is and offers its first and
// last entries; a search says how many hits it has, pages through them,
// groups them by session, and the words it found are highlighted in the
// conversation a hit opens. With PIDEX_SCREENSHOTS=DIR the phone pages
// docs/serve.md shows are saved there as phone-*.png.
func TestBrowserLayout(t *testing.T) {
	f := newFixtureWith(t, Options{}, "")
	const long = "5fd1e58c-9635-410e-a644-133a96057c90" // 461 entries: a page shows 200
	pages := []struct {
		name, path, ready string
		shot              bool // docs/serve.md shows it
	}{
		{"sessions", "/", `table.sessions tbody tr`, true},
		{"session", "/s/" + branchy, `ol.entries`, false},
		{"session-long", "/s/" + long, `ol.entries`, true},
		{"context", "/s/" + branchy + "?view=context", `ol.entries.context`, false},
		{"search", "/search?q=test", `ol.hits li`, false},
		{"search-grouped", "/search?q=test&group=session", `ol.hit-groups li`, true},
		{"search-sessions", "/search?q=test&sessionsOnly=1", `table.sessions tbody tr`, false},
		{"cost", "/cost?tz=UTC", `#results p.count`, false},
		{"cost-week", "/cost?tz=UTC&period=week&stack=project", `#results p.count`, true},
		{"activity", "/activity?tz=UTC", `#heatmap`, true},
		{"activity-project", "/activity?tz=UTC&by=project", `#stats-rows`, false},
		{"activity-session", "/activity?tz=UTC&by=session", `#stats-rows`, false},
		{"error", "/s/nosuch", `section.error`, false},
	}
	for _, size := range htmltest.Sizes {
		t.Run(size.Name, func(t *testing.T) {
			b := browser(t)
			b.Do("size", size.Emulate())
			for _, p := range pages {
				b.Do(p.name, chromedp.Navigate(f.ts.URL+p.path), chromedp.WaitVisible(css(p.ready)))
				if size.Phone && p.shot {
					b.Do(p.name, shot("phone-"+p.name))
				}
				if w, cw := js[int](b, `document.documentElement.scrollWidth`), js[int](b, `document.documentElement.clientWidth`); w > cw {
					t.Errorf("%s at %d px: the page is %d px wide", p.name, size.Width, w)
				}
				if out := js[[]string](b, htmltest.OutOfScreen); len(out) > 0 {
					t.Errorf("%s at %d px: %d elements pass the screen's right edge: %s", p.name, size.Width, len(out), strings.Join(out[:min(5, len(out))], "; "))
				}
				if wrapped := js[int](b, `[...document.querySelectorAll("td.time time, .hit time")].filter(e => e.getClientRects().length > 1).length`); wrapped > 0 {
					t.Errorf("%s at %d px: %d dates wrap", p.name, size.Width, wrapped)
				}
			}

			// Activity: the hours of the week fit the screen, each a
			// visible box; the wide tables scroll inside their own box.
			b.Do("activity", chromedp.Navigate(f.ts.URL+"/activity?tz=UTC&by=project"), chromedp.WaitVisible(css(`#heatmap`)))
			if r := js[float64](b, `document.getElementById("heatmap").getBoundingClientRect().right`); r > float64(size.Width) {
				t.Errorf("the heatmap ends at %.0f px, past the %d px screen", r, size.Width)
			}
			if w := js[float64](b, `Math.min(...[...document.querySelectorAll("#heatmap tbody td")].map(td => td.getBoundingClientRect().width))`); w < 8 {
				t.Errorf("an hour of the heatmap is %.1f px wide at %d px", w, size.Width)
			}
			for _, table := range []string{"#stats-rows", "#list-tools table", "#list-errors table", "#list-slowest table"} {
				box := js[string](b, `getComputedStyle(document.querySelector("`+table+`").parentElement).overflowX`)
				if box != "auto" {
					t.Errorf("%s is not in a box that scrolls (overflow-x %s)", table, box)
				}
			}

			// Sessions: on the phone each row is a card that shows the
			// project, the messages and the cost; on the desktop a table.
			b.Do("sessions", chromedp.Navigate(f.ts.URL+"/"), chromedp.WaitVisible(css(`table.sessions tbody tr`)))
			display := js[string](b, `getComputedStyle(document.querySelector("table.sessions tbody tr")).display`)
			if size.Phone != (display == "grid") {
				t.Errorf("a session row is laid out as %q at %d px", display, size.Width)
			}
			for _, cell := range []string{"td.project", "td.num"} {
				if r := js[float64](b, `document.querySelector("table.sessions tbody tr `+cell+`").getBoundingClientRect().right`); r > float64(size.Width) {
					t.Errorf("%s ends at %.0f px, past the %d px screen", cell, r, size.Width)
				}
			}

			// The cost table's keys break after a slash or a hyphen, never
			// inside a word: at 390 px "anthropic/claude-opus-4-5" read
			// "anthro / pic/cla / ude- / opus- / 4-5" (issue 39, item 13).
			for _, path := range []string{"/cost?tz=UTC", "/cost?tz=UTC&stack=project&period=week"} {
				b.Do("cost table", chromedp.Navigate(f.ts.URL+path), chromedp.WaitVisible(css(`table.cost td.key`)))
				if bad := js[[]string](b, keyBreaksInsideWords); len(bad) > 0 {
					t.Errorf("%s at %d px: %d keys break inside a word: %s", path, size.Width, len(bad), strings.Join(bad[:min(5, len(bad))], "; "))
				}
			}

			// A long session opens at its end and says so, with the way
			// to its first entries.
			b.Do("long session", chromedp.Navigate(f.ts.URL+"/s/"+long), chromedp.WaitVisible(css(`#window-top`)))
			if where := value(b, chromedp.Text(css(`#window-top .where`))); where != "Entries 262–461 of 461, the latest." {
				t.Errorf("a long session says %q", where)
			}
			b.Click("first entries", `#window-top a.first`)
			b.Do("first entries", chromedp.WaitVisible(css(`#window-top a.last`)))
			if where := value(b, chromedp.Text(css(`#window-top .where`))); where != "Entries 1–200 of 461, the first." {
				t.Errorf("its first page says %q", where)
			}

			// The tree: a drawer on the phone, a panel on the desktop that
			// can be widened (kept for the next page) and hidden.
			b.Do("branchy", chromedp.Navigate(f.ts.URL+"/s/"+branchy), chromedp.WaitVisible(css(`ol.entries`)))
			visible := `(() => { const r = document.getElementById("tree").getBoundingClientRect(); return getComputedStyle(document.getElementById("tree")).display !== "none" && r.width > 0 })()`
			if size.Phone {
				if js[bool](b, visible) {
					t.Error("the tree is open on a phone before it is asked for")
				}
				b.Do("open the tree", chromedp.Click(css(`#tree-toggle`)), until(visible), shot("phone-tree"))
				if r := js[float64](b, `document.getElementById("tree").getBoundingClientRect().right`); r > float64(size.Width)+1 {
					t.Errorf("the tree drawer ends at %.0f px", r)
				}
				if h := js[float64](b, `document.getElementById("tree").getBoundingClientRect().height`); h < float64(size.Height)-1 {
					t.Errorf("the tree drawer is %.0f px high on a %d px screen", h, size.Height)
				}
				b.Do("close the tree", chromedp.Click(css(`#tree-close`)), until("!"+visible))
			} else {
				before := js[float64](b, `document.getElementById("tree").getBoundingClientRect().width`)
				b.Do("widen the tree", chromedp.Click(css(`#tree-wider`)),
					until(fmt.Sprintf(`document.getElementById("tree").getBoundingClientRect().width > %f`, before+60)))
				b.Do("reload", chromedp.Reload(), chromedp.WaitVisible(css(`ol.entries`)))
				if w := js[float64](b, `document.getElementById("tree").getBoundingClientRect().width`); w < before+60 {
					t.Errorf("the tree's width (%.0f px, was %.0f) was not kept", w, before)
				}
				conv := js[float64](b, `document.querySelector("section.conversation").getBoundingClientRect().width`)
				b.Do("hide the tree", chromedp.Click(css(`#tree-close`)), until("!"+visible),
					until(fmt.Sprintf(`document.querySelector("section.conversation").getBoundingClientRect().width > %f`, conv+100)))
				b.Do("show the tree", chromedp.Click(css(`#tree-toggle`)), until(visible))
				b.Do("forget", chromedp.Evaluate[chromedp.Void](`void localStorage.clear()`))
			}

			// Search: how many hits, the next page, and the words found
			// highlighted in the conversation a hit opens.
			b.Do("search", chromedp.Navigate(f.ts.URL+"/search?q=test&limit=20"), chromedp.WaitVisible(css(`#search-count`)))
			count := value(b, chromedp.Text(css(`#search-count`)))
			if !strings.HasPrefix(strings.ToLower(count), "hits 1–20 of ") || !strings.Contains(count, " sessions") {
				t.Errorf("search count %q", count)
			}
			b.Click("next page", `nav.pager a[rel=next]`)
			b.Do("next page", until(`document.getElementById("search-count").textContent.startsWith("hits 21–")`))
			b.Click("open a hit", `ol.hits li a`)
			b.Do("highlighted", chromedp.WaitVisible(css(`#marks`)))
			if n := js[int](b, `document.querySelectorAll("mark.q").length`); n == 0 || !strings.Contains(value(b, chromedp.Text(css(`#marks`))), "test") {
				t.Errorf("%d words highlighted: %q", n, value(b, chromedp.Text(css(`#marks`))))
			}
			if u := value(b, chromedp.Location()); !strings.Contains(u, "q=test") {
				t.Errorf("the hit's link %s does not carry the query", u)
			}
			b.Do("next match", chromedp.Click(css(`#next-mark`)), until(`document.querySelector("mark.q.current") !== null`))
			if u, _ := url.Parse(value(b, chromedp.Location())); u != nil && u.Query().Get("q") != "test" {
				t.Errorf("query %q", u.Query().Get("q"))
			}
			if n := b.Dialogs.Load(); n != 0 {
				t.Errorf("%d dialogs opened", n)
			}
		})
	}
}

// keyBreaksInsideWords lists the cost table's key cells whose text a line
// break splits other than after a slash, a hyphen or a space: where each
// character is drawn, line by line.
const keyBreaksInsideWords = `(() => {
	const bad = [];
	for (const td of document.querySelectorAll("table.cost td.key:not(.period)")) {
		const chars = [];
		const w = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
		for (let n = w.nextNode(); n; n = w.nextNode()) {
			for (let i = 0; i < n.length; i++) {
				const r = document.createRange();
				r.setStart(n, i);
				r.setEnd(n, i + 1);
				const rect = r.getClientRects()[0];
				if (rect) chars.push([n.data[i], rect.top]);
			}
		}
		for (let i = 1; i < chars.length; i++) {
			if (chars[i][1] > chars[i-1][1] + 2 && !"/- ".includes(chars[i-1][0]) && chars[i][0] !== " ") {
				bad.push(JSON.stringify(td.textContent) + " broken after " + JSON.stringify(chars.slice(0, i).map(c => c[0]).join("")));
			}
		}
	}
	return bad;
})()`
