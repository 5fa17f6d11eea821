package web

import (
	"html/template"
	"io/fs"
	"strings"
	"testing"
)

// The templates are parsed on first use, not at package init: this
// parses them all, so a template that does not parse (template.Must
// panics) fails here, as does a page template no page set includes.
func TestPagesParse(t *testing.T) {
	var sets map[string]*template.Template
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("parse the page templates: %v", p)
			}
		}()
		sets = parsePages()
	}()
	files, err := fs.Glob(templateFS, "assets/templates/*.html")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "assets/templates/"), ".html")
		if name == "layout" {
			continue
		}
		s := sets[name]
		if s == nil {
			t.Errorf("%s: no page set parses it", f)
			continue
		}
		for _, want := range []string{"layout", "main"} {
			if s.Lookup(want) == nil {
				t.Errorf("%s: no %q template", f, want)
			}
		}
	}
}

// A count in running text agrees with its noun (text.Counted, the one
// rule): the session page said "1 branch points" (issue 39, item 13).
func TestCountsAgreeWithTheirNouns(t *testing.T) {
	const id = "40000000-0000-4000-8000-000000000013"
	msg := func(id, parent, role, text, ts string) string {
		return `{"type":"message","id":"` + id + `","parentId":` + parent + `,"timestamp":"2026-05-01T10:00:0` + ts + `.000Z","message":{"role":"` + role + `","content":"` + text + `","timestamp":1777629601000}}`
	}
	for _, tc := range []struct {
		lines []string
		want  []string
	}{
		{[]string{msg("u1", "null", "user", "only one", "1")},
			[]string{"1 message, 1 entry, 0 branch points", "Exactly the 1 message pi sends"}},
		{[]string{msg("u1", "null", "user", "fork here", "1"), msg("a1", `"u1"`, "user", "one way", "2"), msg("a2", `"u1"`, "user", "another way", "3")},
			[]string{"3 messages, 3 entries, 1 branch point<", "Exactly the 2 messages pi sends"}},
	} {
		header := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w"}`
		f := newFixtureWith(t, Options{}, strings.Join(append([]string{header}, tc.lines...), "\n")+"\n")
		for _, path := range []string{"/s/" + id + "?q=one", "/s/" + id + "?view=context"} {
			code, _, body := f.get(t, path)
			if code != 200 {
				t.Fatalf("%s: %d", path, code)
			}
			for _, bad := range []string{"1 branch points", "1 messages", "1 entries", "1 matches"} {
				if strings.Contains(body, bad) {
					t.Errorf("%s says %q", path, bad)
				}
			}
			if path == "/s/"+id+"?q=one" && !strings.Contains(body, tc.want[0]) {
				t.Errorf("%s lacks %q", path, tc.want[0])
			}
			if path != "/s/"+id+"?q=one" && !strings.Contains(body, tc.want[1]) {
				t.Errorf("%s lacks %q", path, tc.want[1])
			}
		}
	}
}
