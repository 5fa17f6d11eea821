// Package htmlview is the presentation model as HTML: a pidex.Document's
// entries and blocks as views for html/template (conversation text as
// Markdown rendered by a small renderer that escapes everything, code
// highlighted, thinking, tool calls and output folded, images inline), the
// entry tree as a panel, the templates of an entry, and the stylesheet and
// script of a session page. pidex serve's pages (package web) and the
// self-contained HTML export (internal/export) both show a session with
// it, so that they look and escape alike.
package htmlview
