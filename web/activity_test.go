package web

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
)

// /api/stats answers with the bytes of pidex stats --json: render's
// writer over Catalog.Stats with the options its parameters name.
func TestAPIStatsIsCatalogStats(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		query string
		o     pidex.StatsOptions
	}{
		{"", pidex.StatsOptions{}},
		{"by=week,model&tz=UTC", pidex.StatsOptions{By: []string{"week", "model"}, TZ: "UTC"}},
		{"by=day&tz=Asia/Kathmandu&since=2026-09-01&until=2026-09-30", pidex.StatsOptions{By: []string{"day"}, TZ: "Asia/Kathmandu", Since: "2026-09-01", Until: "2026-09-30"}},
		{"by=project,agent&project=alpha&branch=active", pidex.StatsOptions{By: []string{"project", "agent"}, Where: pidex.Where{"project": "alpha"}, Branch: "active"}},
		{"by=model&model=claude&branch=abandoned&tz=UTC", pidex.StatsOptions{By: []string{"model"}, Where: pidex.Where{"model": "claude"}, Branch: "abandoned", TZ: "UTC"}},
		{"by=session&agent=pi", pidex.StatsOptions{By: []string{"session"}, Where: pidex.Where{"agent": "pi"}}},
		{"session=" + branchy + "&by=day&tz=UTC", pidex.StatsOptions{Session: branchy, By: []string{"day"}, TZ: "UTC"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			o := tc.o
			if o.Session != "" { // the server resolves it to its file, as the CLI's engine does
				ref, err := f.eng.Resolve(ctx, o.Session, "")
				if err != nil {
					t.Fatal(err)
				}
				o.Session = ref.Path
			}
			rep, err := f.eng.Stats(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := render.StatsJSON(&want, rep); err != nil {
				t.Fatal(err)
			}
			code, ctype, body := f.get(t, "/api/stats?"+tc.query)
			if code != 200 || ctype != "application/json" {
				t.Fatalf("%d %s: %.300s", code, ctype, body)
			}
			if body != want.String() {
				t.Errorf("body differs from Catalog.Stats:\n got %.400s\nwant %.400s", body, want.String())
			}
			if rep.Totals.Sessions == 0 {
				t.Errorf("the case selects nothing: %+v", rep.Totals)
			}
		})
	}
	for _, tc := range []struct {
		query string
		code  int
		has   string
	}{
		{"by=hour", 400, `by \"hour\"`},
		{"by=day,planet", 400, `planet`},
		{"tz=Mars/Olympus", 400, `tz \"Mars/Olympus\"`},
		{"since=yesterday-ish", 400, `since \"yesterday-ish\"`},
		{"branch=dead", 400, `branch`},
		{"agent=robot", 400, `robot`},
		{"by=machine", 400, `machine`},
		{"session=nosuch", 404, `"error":`},
		{"session=" + copied, 409, `matches 2 sessions`},
	} {
		code, _, body := f.get(t, "/api/stats?"+tc.query)
		if code != tc.code || !json.Valid([]byte(body)) || !strings.Contains(body, tc.has) {
			t.Errorf("/api/stats?%s: %d, want %d with %s: %.300s", tc.query, code, tc.code, tc.has, body)
		}
	}
}

var (
	rowRE   = regexp.MustCompile(`<tr>((?:<td class="key">.*?</td>)+)<td class="num">(?:<a href="([^"]*)">)?`)
	keyRE   = regexp.MustCompile(`<td class="key">(?:<a href="([^"]*)">)?(.*?)(?:</a>)?</td>`)
	entryRE = regexp.MustCompile(`<a href="(/s/[^"]*\?at=[^"]*)">`)
)

// Every number of the activity page with sessions behind it links to
// them: a row's sessions open the page grouped by session and narrowed
// to the row, whose totals are the row's; a session opens its page; an
// error's or a slow call's entry opens its session at that entry.
func TestActivityLinks(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	linked := 0
	for _, tc := range []struct{ by, since, until string }{
		{"week", "", ""}, {"month", "", ""}, {"day", "", ""}, {"model", "", ""}, {"project", "", ""}, {"agent", "", ""}, {"session", "", ""},
		// A period's link keeps within the page's window.
		{"week", "2026-09-16", "2026-09-18"}, {"month", "2026-07-14T08:00:00Z", ""},
	} {
		by := tc.by
		t.Run(by+" "+tc.since+" "+tc.until, func(t *testing.T) {
			rep, err := f.eng.Stats(ctx, pidex.StatsOptions{By: []string{by}, TZ: "Asia/Kathmandu", Since: tc.since, Until: tc.until})
			if err != nil {
				t.Fatal(err)
			}
			rows := map[string]pidex.StatsFigures{}
			for _, r := range rep.Rows {
				rows[r.Keys[0]] = r.StatsFigures
			}
			code, _, page := f.get(t, "/activity?by="+by+"&tz=Asia/Kathmandu&since="+url.QueryEscape(tc.since)+"&until="+tc.until)
			if code != 200 {
				t.Fatalf("%d: %.300s", code, page)
			}
			found := rowRE.FindAllStringSubmatch(page, -1)
			if len(found) != len(rep.Rows) {
				t.Fatalf("%d rows on the page, the report has %d", len(found), len(rep.Rows))
			}
			for _, m := range found {
				k := keyRE.FindStringSubmatch(m[1])
				key, keyURL, sessions := html.UnescapeString(k[2]), html.UnescapeString(k[1]), html.UnescapeString(m[2])
				want, ok := rows[key]
				if !ok {
					t.Fatalf("row %q is not in the report", key)
				}
				switch {
				case by == "session" && key == copied: // two files hold the id: the row is both, no page is
					if keyURL != "" || sessions != "" {
						t.Errorf("session %s, held by two files, links to %q and %q", key, keyURL, sessions)
					}
				case by == "session":
					if keyURL == "" || sessions != keyURL || !strings.HasPrefix(keyURL, "/s/"+key) {
						t.Errorf("session %s links to %q and %q", key, keyURL, sessions)
						continue
					}
					if code, _, body := f.get(t, keyURL); code != 200 || !strings.Contains(body, key) {
						t.Errorf("%s: %d", keyURL, code)
					}
				case key == "unknown" || key == "":
					if sessions != "" {
						t.Errorf("row %q (no time, no model) links to %s", key, sessions)
					}
				default:
					if sessions == "" {
						if by == "model" && modelInAnother(key, rows) {
							continue // the model filter would match the other one too
						}
						t.Errorf("row %q links to none of its sessions", key)
						continue
					}
					u, err := url.Parse(sessions)
					if err != nil || u.Path != "/activity" || u.Query().Get("by") != "session" {
						t.Fatalf("row %q links to %s", key, sessions)
					}
					if code, _, _ := f.get(t, sessions); code != 200 {
						t.Errorf("%s: %d", sessions, code)
					}
					var got struct {
						Totals pidex.StatsFigures `json:"totals"`
						Rows   []struct {
							Sessions int64 `json:"sessions"`
						} `json:"rows"`
					}
					_, _, body := f.get(t, "/api/stats?"+u.RawQuery)
					if err := json.Unmarshal([]byte(body), &got); err != nil {
						t.Fatalf("%v: %.300s", err, body)
					}
					files := int64(0) // a row by session counts the files that hold its id
					for _, r := range got.Rows {
						files += r.Sessions
					}
					if got.Totals != want || files != want.Sessions {
						t.Errorf("row %q: its sessions (%s) add up to\n%+v in %d sessions, want\n%+v", key, sessions, got.Totals, files, want)
					}
					linked++
				}
			}
		})
	}
	if linked < 10 {
		t.Errorf("only %d rows linked to their sessions", linked)
	}

	// The entries of the errors and the slowest calls.
	rep, err := f.eng.Stats(ctx, pidex.StatsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, _, page := f.get(t, "/activity?by=none")
	links := entryRE.FindAllStringSubmatch(page, -1)
	if len(links) != len(rep.Errors)+len(rep.Slowest) || len(rep.Errors) == 0 || len(rep.Slowest) == 0 {
		t.Fatalf("%d entry links, want %d errors and %d slowest calls", len(links), len(rep.Errors), len(rep.Slowest))
	}
	var refs []pidex.EntryRef
	for _, e := range rep.Errors {
		refs = append(refs, e.Last)
	}
	for _, c := range rep.Slowest {
		refs = append(refs, c.At)
	}
	for i, m := range links {
		href := html.UnescapeString(m[1])
		ref := refs[i]
		hs, err := f.eng.Handles(ctx, []pidex.SessionRef{ref.Session}, false)
		if err != nil {
			t.Fatal(err)
		}
		if want := "/s/" + hs[0] + "?at=" + url.QueryEscape(ref.EntryID) + "#e-" + ref.EntryID; href != want {
			t.Errorf("entry link %s, want %s", href, want)
		}
		code, _, body := f.get(t, strings.Split(href, "#")[0])
		if code != 200 || !strings.Contains(body, `target" id="e-`+ref.EntryID+`"`) {
			t.Errorf("%s: %d, the entry not shown as the target", href, code)
		}
	}
}

// modelInAnother: another row's model contains this one's name.
func modelInAnother(m string, rows map[string]pidex.StatsFigures) bool {
	for o := range rows {
		if o != m && strings.Contains(strings.ToLower(o), strings.ToLower(m)) {
			return true
		}
	}
	return false
}
