package export

import (
	"cmp"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"sync"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/htmlview"
	"github.com/pidex-dev/pidex/internal/redact"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/internal/view"
)

// The HTML export: one file that holds the whole session (every entry of
// every branch, once), the entry tree, and serve's look, and that asks for
// nothing over the network (the stylesheet and the script are inline, images
// are data: URLs, and its Content-Security-Policy forbids anything else).
// It opens on one branch, the one a page without script shows; choosing an
// entry in the tree shows the branch through it, by a small script that
// walks the entries' parent links. What depends on the branch (an entry's
// notes, the resume command's notes) is written for each branch it
// differs on and shown by that script.

//go:embed assets
var assets embed.FS

// page is the template, parsed on first use.
var page = sync.OnceValue(func() *template.Template {
	funcs := template.FuncMap{
		"money":   text.Money,
		"tokens":  text.Round,
		"count":   func(n int64) string { return text.Count(n) },
		"counted": text.Counted,
		"ptime":   func(t pidex.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
		"iso":     func(t pidex.Time) string { return t.String() },
	}
	t := template.Must(htmlview.Parse(template.New("page").Funcs(funcs)))
	return template.Must(t.ParseFS(assets, "assets/page.html"))
})

// The page's stylesheet and script, inline, and the policy that lets only
// them run: their hashes (a script that got into the page some other way
// would not run), images from data: URLs, and nothing from anywhere.
var inline = sync.OnceValue(func() (in struct {
	CSS template.CSS
	JS  template.JS
	CSP string
}) {
	css, err := assets.ReadFile("assets/export.css")
	if err != nil {
		panic(err)
	}
	js, err := assets.ReadFile("assets/export.js")
	if err != nil {
		panic(err)
	}
	in.CSS = template.CSS(htmlview.Stylesheet + "\n" + string(css))
	in.JS = template.JS(htmlview.Script + "\n" + string(js))
	hash := func(s string) string {
		sum := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	in.CSP = "default-src 'none'; img-src data:; style-src " + hash(string(in.CSS)) + "; script-src " + hash(string(in.JS)) +
		"; base-uri 'none'; form-action 'none'"
	return in
})

// htmlPage is what the page shows.
type htmlPage struct {
	Title     string
	Info      pidex.Session
	Kinds     string // the entries by kind: "12 user, 30 assistant, …"
	ToolCalls int
	Abandoned float64
	// Sources are the LLM calls by what made them (the assistant, a branch
	// summary, …), every copy the file holds counted, as in its total.
	Sources []pidex.CostRow
	// Resume is the command that continues the session; its notes depend
	// on the branch.
	Resume      string
	ResumeNotes []variant
	// Current is the session's current leaf, Shown the end of the branch
	// the page opens on.
	Current, Shown string
	Entries        []pageEntry
	Tree           template.HTML
	CSS            template.CSS
	JS             template.JS
	CSP            string
}

// pageEntry is one entry: its view, its parent (the script walks them),
// whether the branch the page opens on holds it, and its notes that hold
// on some branches only.
type pageEntry struct {
	htmlview.Entry
	Parent   string
	Hidden   bool
	Dim      bool
	Variants []variant
}

// variant is a text that holds on some branches: On lists their ends
// (JSON, for the script), Hidden says the branch the page opens on is not
// one of them.
type variant struct {
	Text   string
	On     string
	Hidden bool
}

// writeHTML writes one self-contained page.
func writeHTML(ctx context.Context, cat pidex.Catalog, ref pidex.SessionRef, o pidex.ExportOptions, w io.Writer) error {
	p, err := buildPage(ctx, cat, ref, o)
	if err != nil {
		return err
	}
	if err := page().ExecuteTemplate(w, "page", p); err != nil {
		return fmt.Errorf("write session %s as HTML: %w", ref.SessionID, err)
	}
	return nil
}

// buildPage reads the session: its record, tree and previews, and each
// branch once (an entry on several branches is shown once).
func buildPage(ctx context.Context, cat pidex.Catalog, ref pidex.SessionRef, o pidex.ExportOptions) (*htmlPage, error) {
	info, err := cat.Info(ctx, ref)
	if err != nil {
		return nil, err
	}
	roots, err := cat.Tree(ctx, ref, pidex.TreeOptions{})
	if err != nil {
		return nil, err
	}
	previews, err := cat.Previews(ctx, ref)
	if err != nil {
		return nil, err
	}
	abandoned, _, err := cat.Abandoned(ctx, ref)
	if err != nil {
		return nil, err
	}
	sources, err := cat.Cost(ctx, pidex.CostOptions{Session: ref.Path, Machine: ref.Machine, By: []string{"source"}, NoDedup: true})
	if err != nil {
		return nil, err
	}
	in := inline()
	p := &htmlPage{Info: info, Abandoned: abandoned, Sources: sources.Rows, CSS: in.CSS, JS: in.JS, CSP: in.CSP}
	if info.LeafID != nil {
		p.Current = *info.LeafID
	}
	p.Shown = cmp.Or(o.Leaf, p.Current)
	ends := view.BranchEnds(roots)
	bs, err := readBranches(ctx, cat, ref, branchEnds(ends, p.Shown), o.Redact)
	if err != nil {
		return nil, err
	}
	if o.Redact {
		redact.Document(nil, &p.Info)
		p.Info.Path, _ = redact.String(p.Info.Path)
		p.Info.Cwd, _ = redact.String(p.Info.Cwd)
		previews = redactPreviews(previews)
		redactLabels(roots)
	}
	p.Title = view.SessionTitle(&p.Info, 120)
	if p.Title == "" {
		p.Title = "Session " + info.ID
	}
	p.Kinds = kinds(roots)
	p.entries(bs, roots)
	p.resume(bs)
	onPath := map[string]bool{}
	if b := bs.byEnd[p.Shown]; b != nil {
		for _, id := range b.doc.Path {
			onPath[id] = true
		}
	}
	p.Tree = (&htmlview.TreePanel{Previews: previews, OnPath: onPath, Selected: p.Shown, Ends: ends,
		Link: func(id string) string { return "#e-" + url.PathEscape(id) }}).HTML(view.Layout(roots))
	return p, nil
}
