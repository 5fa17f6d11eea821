// Package view builds pidex's presentation model: a session as a
// pidex.Document (its entries, or its context's messages, with titles,
// notes and typed blocks), a tree laid out in runs and branches, and the
// limits every renderer folds output with. It is built once here and
// printed by the text renderer (internal/render), the web pages and the
// MCP server alike; what each entry says comes from the registry of kinds
// (package pi).
package view

import (
	"encoding/json"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/pi"
)

// Folding limits, one set for every renderer: a reading view shows the
// first PreviewLines lines of tool output, each cut to PreviewRunes; a
// fold (in a browser) holds at most FoldLines lines or FoldBytes of it
// unless asked for everything; a tool call's argument is cut to ArgRunes
// and its one-line form to CallRunes.
const (
	PreviewLines = 8
	PreviewRunes = 200
	ArgRunes     = 60
	CallRunes    = 200
	FoldLines    = 60
	FoldBytes    = 16 << 10
)

// BranchDocument is the Document of a branch's entries, items [from, to)
// of sc.Path in it.
func BranchDocument(ref pidex.SessionRef, info pidex.Session, sc *pi.SessionContext, from, to int) *pidex.Document {
	doc := header(ref, info, sc)
	doc.From, doc.To, doc.Total = from, to, len(sc.Path)
	effects := map[string]string{} // context_edit id → "edited" or "omitted"
	for _, p := range sc.Path {
		if pi.KindOf(p.Type).ContextEdit && p.Decoded != nil {
			effects[p.ID] = pi.EditEffect(p.Decoded)
		}
	}
	before := map[string]bool{} // ids earlier on the path: what a compaction keeps
	at := pi.Where{Before: func(id string) bool { return before[id] }}
	for i := range sc.Path[:to] {
		p := &sc.Path[i]
		if i >= from {
			doc.Items = append(doc.Items, entryItem(p, at, effects))
		}
		before[p.ID] = true
	}
	return doc
}

// ContextDocument is the Document of the model context's messages, the
// window w of them in it (w.Around: the first message of that entry).
func ContextDocument(ref pidex.SessionRef, info pidex.Session, sc *pi.SessionContext, w pidex.Window) *pidex.Document {
	doc := header(ref, info, sc)
	doc.Context = true
	type msg struct {
		raw json.RawMessage
		src *pi.PathItem
	}
	var msgs []msg
	target := -1
	for _, ce := range sc.Entries {
		src := &sc.Path[ce.Index]
		for _, m := range ce.Messages {
			if src.ID == w.Around && target < 0 {
				target = len(msgs)
			}
			msgs = append(msgs, msg{m, src})
		}
	}
	doc.From, doc.To = w.Span(len(msgs), target)
	doc.Total = len(msgs)
	for i := doc.From; i < doc.To; i++ {
		doc.Items = append(doc.Items, messageItem(i+1, msgs[i].raw, msgs[i].src))
	}
	return doc
}

// header fills what a Document says of the session and its leaf.
func header(ref pidex.SessionRef, info pidex.Session, sc *pi.SessionContext) *pidex.Document {
	doc := &pidex.Document{Session: ref, Entries: len(sc.Path), Messages: len(sc.Messages),
		Model: sc.Model.String(), Thinking: sc.Level(), Path: make([]string, len(sc.Path))}
	for i := range sc.Path {
		doc.Path[i] = sc.Path[i].ID
	}
	if n := len(sc.Path); n > 0 {
		doc.Leaf, doc.LeafLine = sc.Path[n-1].ID, sc.Path[n-1].Entry.Line
	}
	doc.Current = info.LeafID != nil && *info.LeafID == doc.Leaf
	return doc
}

// entryItem is one entry of a branch.
func entryItem(p *pi.PathItem, at pi.Where, effects map[string]string) pidex.DocItem {
	s := pi.Shown{Title: p.Type}
	if p.Decoded != nil {
		at.Object = p.Obj()
		s = pi.Show(p.Decoded, at)
	}
	it := item(&p.Entry, s)
	it.Label = p.Label
	it.Class = pi.Class(p.Type, p.Role)
	carries := pi.KindOf(p.Type).Carries
	switch {
	case p.EditedBy != "":
		it.Note = effects[p.EditedBy] + " by " + p.EditedBy
	case carries && p.Compacted:
		it.Note = pidex.NoteCompacted
	case carries && !p.InContext:
		it.Note = pidex.NoteNotInContext
	}
	return it
}

// messageItem is the n-th message of a context, from entry src.
func messageItem(n int, raw json.RawMessage, src *pi.PathItem) pidex.DocItem {
	it := item(&src.Entry, pi.ShowMessage(raw))
	it.N = n
	o, _ := js.ParseObject(raw)
	it.Class = pi.Class("message", o.Str("role"))
	return it
}

// item is what every item says of its entry and its body.
func item(e *pi.Entry, s pi.Shown) pidex.DocItem {
	it := pidex.DocItem{ID: e.ID, Line: e.Entry.Line, Type: e.Type, Stamp: e.Timestamp,
		Title: s.Title, Detail: s.Detail, Blocks: blocks(s)}
	if ms, ok := js.ParseDate(e.Timestamp); ok {
		t := pidex.Time(ms)
		it.Time = &t
	}
	if e.Cut {
		it.CutBytes = e.Length
	}
	return it
}
