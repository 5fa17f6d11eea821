package export

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/htmlview"
	"github.com/pidex-dev/pidex/internal/redact"
)

// The HTML export's branches: each read once, their entries merged into
// one list, and what differs between them (an entry's notes, the resume
// command's) kept with the branches it holds on.

// branchEnds are the ends of the branches a reader can choose in the tree,
// and shown (the branch the page opens on), each once, in file order.
func branchEnds(ends map[*pidex.TreeNode]*pidex.TreeNode, shown string) []string {
	var nodes []*pidex.TreeNode
	seen := map[*pidex.TreeNode]bool{}
	for _, e := range ends {
		if !seen[e] {
			seen[e] = true
			nodes = append(nodes, e)
		}
	}
	slices.SortFunc(nodes, func(a, b *pidex.TreeNode) int { return cmp.Compare(a.Offset, b.Offset) })
	ids := make([]string, 0, len(nodes)+1)
	for _, n := range nodes {
		ids = append(ids, n.ID)
	}
	if shown != "" && !slices.Contains(ids, shown) {
		ids = append(ids, shown) // --leaf inside a branch: the path to it
	}
	return ids
}

// branch is one branch as the catalog reads it, and the command that
// resumes the session there (nil: none known).
type branch struct {
	end    string
	doc    *pidex.Document
	resume *pidex.Resume
}

type branches struct {
	list  []*branch
	byEnd map[string]*branch
}

// readBranches reads each branch whole (every line, however long: the
// page is the whole session) and, redacted when asked, before anything
// of it is kept.
func readBranches(ctx context.Context, cat pidex.Catalog, ref pidex.SessionRef, ends []string, redacted bool) (*branches, error) {
	bs := &branches{byEnd: map[string]*branch{}}
	for _, end := range ends {
		doc, err := cat.Read(ctx, ref, pidex.ReadOptions{Leaf: end, Whole: true})
		if err != nil {
			return nil, err
		}
		b := &branch{end: end, doc: doc}
		// As the Markdown export: a session whose agent pidex cannot
		// resume is still written, without the command.
		if r, err := cat.Resume(ctx, ref, pidex.ResumeOptions{Leaf: end}); err == nil {
			b.resume = r
		}
		if redacted {
			redact.Document(doc, nil)
			if b.resume != nil {
				b.resume.Command, _ = redact.String(b.resume.Command)
				for i := range b.resume.Notes {
					b.resume.Notes[i], _ = redact.String(b.resume.Notes[i])
				}
			}
		}
		bs.list = append(bs.list, b)
		bs.byEnd[end] = b
	}
	return bs, nil
}

// entries merges the branches' items, each entry once, in the order of
// the tree (parents before children: a branch's entries show in its
// order), each with the notes it has on the branches that hold it.
func (p *htmlPage) entries(bs *branches, roots []*pidex.TreeNode) {
	type merged struct {
		item   pidex.DocItem
		parent string
		notes  map[string]string // by the end of each branch that holds it
		order  int
	}
	order := treeOrder(roots)
	byID := map[string]*merged{}
	var all []*merged
	for _, b := range bs.list {
		for i, it := range b.doc.Items {
			m := byID[it.ID]
			if m == nil {
				m = &merged{item: it, notes: map[string]string{}, order: len(order) + int(it.Line)}
				if n, ok := order[it.ID]; ok {
					m.order = n
				}
				if i > 0 {
					m.parent = b.doc.Items[i-1].ID
				}
				byID[it.ID] = m
				all = append(all, m)
			}
			m.notes[b.end] = it.Note
		}
	}
	slices.SortStableFunc(all, func(a, b *merged) int { return cmp.Compare(a.order, b.order) })
	shown := map[string]bool{}
	if b := bs.byEnd[p.Shown]; b != nil {
		for _, id := range b.doc.Path {
			shown[id] = true
		}
	}
	v := htmlview.Viewer{Full: true}
	doc := &pidex.Document{}
	for _, m := range all {
		it := m.item
		it.Note = "" // below, for each branch
		e := pageEntry{Entry: v.Item(doc, it), Parent: m.parent, Hidden: !shown[it.ID]}
		p.ToolCalls += toolCalls(it.Blocks)
		always, variants := variants(m.notes, p.Shown)
		if always != "" {
			e.Notes = append(e.Notes, always)
		}
		e.Variants = variants
		e.Dim = len(e.Notes) > 0 || slices.ContainsFunc(variants, func(v variant) bool { return !v.Hidden })
		p.Entries = append(p.Entries, e)
	}
}

// resume is the command (the same on every branch) and its notes, which
// say how to reach each branch in the agent.
func (p *htmlPage) resume(bs *branches) {
	notes := map[string][]string{}
	for _, b := range bs.list {
		if b.resume == nil {
			continue
		}
		p.Resume = b.resume.Command
		for _, n := range b.resume.Notes {
			notes[n] = append(notes[n], b.end)
		}
	}
	var texts []string
	for t := range notes {
		texts = append(texts, t)
	}
	slices.Sort(texts)
	for _, t := range texts {
		if len(notes[t]) == len(bs.list) {
			p.ResumeNotes = append(p.ResumeNotes, variant{Text: t})
			continue
		}
		p.ResumeNotes = append(p.ResumeNotes, onBranches(t, notes[t], p.Shown))
	}
}

// variants sorts an entry's notes by branch (its end → the note there):
// the note every branch agrees on, or each note with the branches it
// holds on.
func variants(notes map[string]string, shown string) (always string, vs []variant) {
	on := map[string][]string{}
	for end, n := range notes {
		on[n] = append(on[n], end)
	}
	if len(on) == 1 {
		for n := range on {
			return n, nil
		}
	}
	var texts []string
	for t := range on {
		if t != "" {
			texts = append(texts, t)
		}
	}
	slices.Sort(texts)
	for _, t := range texts {
		vs = append(vs, onBranches(t, on[t], shown))
	}
	return "", vs
}

// onBranches is text that holds on the branches ending at ends.
func onBranches(t string, ends []string, shown string) variant {
	slices.Sort(ends)
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range ends {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(e))
	}
	b.WriteByte(']')
	return variant{Text: t, On: b.String(), Hidden: !slices.Contains(ends, shown)}
}
