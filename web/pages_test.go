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
