package htmlview

import (
	"embed"
	"html/template"
)

// The files every page that shows a session shares: the templates of an
// entry, the stylesheet (serve's look, light and dark, phone and desktop)
// and the script. The server serves the stylesheet and the script as
// files; an export holds them inline.

//go:embed assets/entry.html
var entryFS embed.FS

// Stylesheet is the pages' one stylesheet.
//
//go:embed assets/app.css
var Stylesheet string

// Script is the behaviour the pages share: times in the reader's zone,
// the session page's tree panel (a panel one can widen, narrow and hide,
// a drawer on a phone) and the copy buttons.
//
//go:embed assets/shared.js
var Script string

// Parse adds the entry templates ("entry", "blocks", "notes") and the
// tree panel to t: {{template "treepanel" (treePanel TREE CHOOSE)}},
// with the tree's HTML and what choosing an entry shows.
func Parse(t *template.Template) (*template.Template, error) {
	t.Funcs(template.FuncMap{"treePanel": func(tree template.HTML, choose string) any {
		return struct {
			Tree   template.HTML
			Choose string
		}{tree, choose}
	}})
	return t.ParseFS(entryFS, "assets/entry.html")
}
