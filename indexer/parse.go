package indexer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
	"github.com/pidex-dev/pidex/internal/fts"
	"github.com/pidex-dev/pidex/internal/js"
	"github.com/pidex-dev/pidex/jsonl"
	"github.com/pidex-dev/pidex/pi"
	"github.com/pidex-dev/pidex/schema"
)

// Batch limits: small enough to bound memory (rows are metadata, not
// content), large enough that transaction overhead stays negligible.
const (
	batchEntries = 4096
	batchBytes   = 32 << 20
	hashSpan     = 4096 // bytes fingerprinted at the head and before the offset
)

// job is one file to read, from file.Offset, on top of the stored state.
type job struct {
	// beforeFingerprint is the Indexer's (seams).
	beforeFingerprint func(path string)
	cand              candidate
	file              File        // stored state to continue from (zero Offset: from scratch)
	session           *sessionRow // stored listing record to continue from
	reset             bool
	skipNL            bool // the byte at Offset is the newline closing an open tail
	// inlineText: the entries' text goes into the index with them (see plan)
	inlineText bool
	// sideText: the entries' text goes to the side index (sidetext.go),
	// their rowids under textID, the file's reserved id.
	sideText bool
	textID   int64
	// stored is the catalog's state of the file when it was planned (what
	// the first batch expects; zero for a new file)
	stored fileState
	// quiet: the file was unreadable at the last refresh; if it still is,
	// its warning is not reported again (it stays in the warnings table).
	quiet bool
	// sum is the stored content sum to continue from (content.go); a file
	// read from scratch starts a new one.
	sum contentSum
	// statNs: when the refresh started, before its stats (racy stamps).
	statNs int64
	// unchanged: plan counted the file unchanged (its stat moved, its
	// content did not). The parse reads from the offset to the end all the
	// same, so what was appended after the stat is read too; see
	// batch.grew.
	unchanged bool
}

// readErr is a failure to open or read a session file (as opposed to a
// failure to write the catalog): the file is recorded as unreadable.
type readErr struct{ error }

func (e readErr) Unwrap() error { return e.error }

// parser turns one file's new lines into batches. It carries the state
// that spans batches: the file's counters and the session's listing record.
type parser struct {
	f    *os.File
	cand candidate
	// slot is the file's title slot (omp), nil when it has none.
	slot       *pi.TitleSlot
	file       File
	sess       *sessionRow
	inlineText bool
	textID     int64 // the file's id in its text rows' rowids
	text       textPrep
	done       bool // stop reading: the file is not a session
	// notSession is set when this read found the first line not a header.
	notSession bool
	// path follows a file read from its start (nil for an append); act
	// gathers what its activity rows are derived from, so that its last
	// batch brings them (derived here, in parallel, not by the writer).
	path *pathTracker
	act  struct {
		es []actEntry
		ts []actTool
	}
	// sum is the content sum of the lines read up to the offset.
	sum    contentSum
	statNs int64
	// read holds the bytes this parse read, which its fingerprints hash;
	// stored are the fingerprints it continues from (an append).
	read                 *capture
	storedHead, storedTL string
	storedOffset         int64
	unchanged            bool              // job.unchanged, until a batch reads bytes
	beforeFingerprint    func(path string) // a test's (seams)
}

// parseFile reads j's file from its stored offset and emits batches in
// file order. The last batch carries the final offset (and is emitted even
// when nothing new was read, so the stored stat is refreshed).
func parseFile(ctx context.Context, j job, emit func(*batch) error) error {
	if j.cand.irregular != "" {
		return emitUnreadable(j, fmt.Errorf("it is %s, not a regular file", j.cand.irregular), emit)
	}
	f, err := files.OpenRegular(j.cand.Path) // replaced by a FIFO since the listing: an error, not a wait
	if err != nil {
		return emitUnreadable(j, err, emit)
	}
	defer f.Close()
	var rerr readErr
	err = parseOpen(ctx, j, f, emit)
	if errors.As(err, &rerr) {
		// A file that opens but does not read (an I/O error; a link to
		// /proc/self/mem) is unreadable as one that does not open: its
		// rows so far go, its warning says why.
		return emitUnreadable(j, rerr.error, emit)
	}
	return err
}

// batch is a new batch of the job's file.
func (j *job) batch() *batch {
	return &batch{inlineText: j.inlineText, sideText: j.sideText, textID: j.textID}
}

// rowidFile is the file id in the rowids of the job's text rows: the id
// reserved for the side index's new file, else the stored one.
func (j *job) rowidFile() int64 {
	if j.sideText {
		return j.textID
	}
	return j.file.ID
}

func parseOpen(ctx context.Context, j job, f *os.File, emit func(*batch) error) error {
	p := &parser{f: f, cand: j.cand, file: j.file, sess: j.session, inlineText: j.inlineText, textID: j.rowidFile(), sum: j.sum, statNs: j.statNs, unchanged: j.unchanged,
		beforeFingerprint: j.beforeFingerprint}
	// A file known not to be a session stays one until it is rewritten.
	p.done = !j.reset && j.file.Kind == FileNotSession
	p.file.Path, p.file.Root = j.cand.Path, j.cand.Root
	p.file.Size, p.file.MtimeNs, p.file.Dev, p.file.Ino = j.cand.Size, j.cand.MtimeNs, j.cand.Dev, j.cand.Ino
	start := p.file.Offset
	if start == 0 {
		p.path = newPathTracker()
		p.sum = contentSum{known: true}
	}
	if j.skipNL {
		start++
		p.file.OpenTail = false
	}
	if start > 0 && p.file.SlotLen > 0 {
		// The title slot is before the offset, and omp rewrites it in
		// place: read it again (plan checked that it still is one).
		if err := p.rereadSlot(); err != nil {
			return err
		}
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return readErr{fmt.Errorf("seek %s: %w", j.cand.Path, err)}
	}
	p.read = newCapture(f, start)
	defer p.read.release()
	p.storedHead, p.storedTL, p.storedOffset = j.file.HeadHash, j.file.TailHash, j.file.Offset
	r := jsonl.NewReader(p.read, start, p.file.Lines)
	b := j.batch()
	b.reset = j.reset
	for !p.done {
		if err := ctx.Err(); err != nil {
			return err
		}
		l, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return readErr{fmt.Errorf("read session file: %w", err)}
		}
		p.line(l, b)
		if l.Offset >= p.file.SlotLen { // the slot is not summed: it changes in place
			p.sum.add(l)
		}
		p.file.Offset, p.file.Lines = l.End(), l.Number
		p.file.OpenTail = l.Unterminated
		b.bytes = p.file.Offset - start
		if len(b.entries) >= batchEntries || b.bytes >= batchBytes {
			if err := p.flush(b, false, emit); err != nil {
				return err
			}
			start = p.file.Offset
			b = j.batch()
		}
	}
	if !p.done {
		p.file.Offset, p.file.Lines = r.Offset(), r.Lines()
		if r.Offset() > start {
			b.bytes = r.Offset() - start
		}
	}
	return p.flush(b, true, emit)
}

func (p *parser) flush(b *batch, last bool, emit func(*batch) error) error {
	if p.unchanged && b.bytes > 0 {
		b.grew, p.unchanged = true, false
	}
	if p.beforeFingerprint != nil {
		p.beforeFingerprint(p.file.Path)
	}
	if err := p.fingerprint(); err != nil {
		return err
	}
	if p.file.Kind == "" {
		p.file.Kind = FileEmpty
	}
	b.file, b.last, b.notSession = p.file, last, p.notSession
	b.fromStart = p.path != nil
	b.sum = p.sum
	if b.previews.Len() > 0 { // deflated here, in parallel, not by the writer
		data, err := b.previews.Bytes()
		if err != nil {
			return err
		}
		b.previewData = data
	}
	if !last {
		// Until the last batch commits, the stored stat must not look
		// current, or a crash in between would make the rest look read.
		b.file.MtimeNs = 0
	} else {
		b.racy = isRacy(b.file.MtimeNs, p.statNs)
	}
	if p.sess != nil && last && p.sess.Source == pidex.SourceOmp {
		// omp's modified is the file's mtime (session-listing.ts).
		ms := p.file.MtimeNs / 1e6
		p.sess.LastActivityMs = &ms
	}
	if p.sess != nil {
		s := *p.sess
		b.session = &s
		if last && p.path != nil {
			var path map[int64]bool
			path, b.pathUsage, b.offPath = p.path.paths(s.LeafID)
			forked := s.ParentSession != "" || s.BranchedFrom != ""
			b.activity = newActivity(p.act.es, p.act.ts, path, s.CreatedMs, forked, nil)
		}
	}
	return emit(b)
}

// fingerprint hashes the first bytes of the file and the bytes just before
// the offset, so a later refresh can tell an append from a rewrite.
//
// The bytes this parse read are hashed as it read them, not read again: a
// file rewritten between the read and the fingerprint (a fork copied over
// it) used to get the new content's fingerprints over the old content's
// rows, and the next refresh took the rest of the new content for an
// append to the old (the stress test's fork did it). The bytes before the
// parse began come from the file; that they are still what the stored
// fingerprints say is checked again here. If not, the file changed while
// it was read, and the fingerprints are left matching nothing, so the
// next refresh reads it from scratch.
func (p *parser) fingerprint() error {
	if p.storedOffset > 0 {
		hs := p.file.SlotLen
		head, err := hashRange(p.f, hs, min(p.storedOffset, hs+hashSpan))
		if err != nil {
			return err
		}
		tail, err := hashRange(p.f, max(hs, p.storedOffset-hashSpan), p.storedOffset)
		if err != nil {
			return err
		}
		if head != p.storedHead || tail != p.storedTL {
			p.file.HeadHash, p.file.TailHash = changedWhileRead, changedWhileRead
			return nil
		}
	}
	hs := p.file.SlotLen // the head fingerprint starts after a title slot
	head, err := p.window(hs, min(p.file.Offset, hs+hashSpan))
	if err != nil {
		return err
	}
	tail, err := p.window(max(hs, p.file.Offset-hashSpan), p.file.Offset)
	if err != nil {
		return err
	}
	p.file.HeadHash, p.file.TailHash = head, tail
	return nil
}

// changedWhileRead is a fingerprint no bytes hash to.
const changedWhileRead = "changed while read"

// window hashes the bytes [from, to) of the file: those this parse read as
// it read them, the others (before it began) from the file.
func (p *parser) window(from, to int64) (string, error) {
	if to <= from {
		return "", nil
	}
	buf := make([]byte, 0, to-from)
	if from < p.read.from {
		old := make([]byte, min(to, p.read.from)-from)
		if _, err := p.f.ReadAt(old, from); err != nil && err != io.EOF {
			return "", readErr{fmt.Errorf("read fingerprint: %w", err)}
		}
		buf = append(buf, old...)
	}
	if to > p.read.from {
		a := max(from, p.read.from)
		got, ok := p.read.bytes(a, to)
		if !ok { // not held (should not happen): the file as it is now
			got = make([]byte, to-a)
			if _, err := p.f.ReadAt(got, a); err != nil && err != io.EOF {
				return "", readErr{fmt.Errorf("read fingerprint: %w", err)}
			}
		}
		buf = append(buf, got...)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:12]), nil
}

func hashRange(f io.ReaderAt, from, to int64) (string, error) {
	if to <= from {
		return "", nil
	}
	buf := make([]byte, to-from)
	if _, err := f.ReadAt(buf, from); err != nil && err != io.EOF {
		return "", readErr{fmt.Errorf("read fingerprint: %w", err)}
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:12]), nil
}

func (p *parser) warn(b *batch, line int64, format string, args ...any) {
	b.warns = append(b.warns, pidex.Warning{Path: p.file.Path, Line: line, Message: fmt.Sprintf(format, args...)})
	p.file.Warnings++
}

// line ingests one non-blank line.
func (p *parser) line(l jsonl.Line, b *batch) {
	if l.Offset == 0 && !l.Unterminated && p.file.Kind != FileSession {
		if s, ok := pi.ParseTitleSlot(l.Data); ok {
			// omp's title slot: not an entry, nor a parsed line pi counts.
			p.slot = &s
			p.file.SlotLen, p.file.SlotHash = l.End(), slotHash(l.Data)
			return
		}
	}
	ln, err := schema.DecodeLineFast(l.Data)
	if errors.Is(err, schema.ErrNotObject) {
		// pi keeps any truthy JSON value as an entry, which shifts the
		// indexes v1 compactions count in; pidex skips it but counts it.
		if js.Truthy(l.Data) {
			p.file.Seq++
		}
		p.warn(b, l.Number, "skipped line: not a JSON object")
		return
	}
	if ln == nil {
		p.warn(b, l.Number, "skipped malformed line: %s", decodeProblem(l.Data, err))
		return
	}
	if err != nil {
		p.warn(b, l.Number, "kept line with a field of unexpected type: %s", decodeProblem(l.Data, err))
	}
	seq := p.file.Seq
	p.file.Seq++
	if p.file.Kind != FileSession {
		p.header(l, ln, b)
		return
	}
	if ln.Type == schema.TypeSession {
		return // a repeated header: pi ignores it for the tree
	}
	p.entry(l, ln, seq, b)
}

// header handles the first parsed line: it decides whether this is a session.
func (p *parser) header(l jsonl.Line, ln *schema.Line, b *batch) {
	if !pi.IsHeader(ln) {
		p.file.Kind = FileNotSession
		p.done, p.notSession = true, true
		return
	}
	h := ln.Header()
	p.file.Kind, p.file.Version = FileSession, h.Version
	p.sess = &sessionRow{
		SessionID: h.ID, Version: h.Version, Cwd: h.Cwd,
		ParentSession: h.ParentSession, BranchedFrom: h.BranchedFrom, Created: h.Timestamp,
		Source: p.cand.Source, Subagent: p.cand.Spawn.By != "",
		SpawnedBy: p.cand.Spawn.By, Family: p.cand.Spawn.Family, Run: p.cand.Spawn.Run,
	}
	if p.slot != nil {
		p.sess.Source = pidex.SourceOmp // a slot is omp's, wherever the file lies
	}
	if p.sess.Source == pidex.SourceOmp {
		p.sess.Name = titleName(pi.HeaderTitle(ln, p.slot))
	}
	if ms, ok := js.ParseDate(h.Timestamp); ok {
		p.sess.CreatedMs = &ms
	}
}

// entry ingests one non-header entry. What the entry means (its model,
// usage, label, name, target) comes from package pi.
func (p *parser) entry(l jsonl.Line, ln *schema.Line, seq int64, b *batch) {
	row := entryRow{Offset: l.Offset, Length: int64(len(l.Data)), Line: l.Number, Seq: seq,
		Type: ln.Type, TS: ln.Timestamp, FirstKeptSeq: -1}
	row.ID, row.ParentID = p.identity(l, ln)
	s := p.sess
	if ln.Type == schema.TypeMessage {
		p.message(&row, ln)
	}
	row.TSMs = row.MsgTS
	if row.TSMs == nil {
		if ms, ok := js.ParseDate(row.TS); ok {
			row.TSMs = &ms
		}
	}
	if pv, ok := pi.LinePreview(l.Data, ln); ok {
		b.previews.Add(l.Offset, int64(len(l.Data)), pv)
	}
	f := pi.FactsOf(ln)
	row.Provider, row.Model, row.TargetID = strp(f.Provider), strp(f.Model), strp(f.Target)
	row.FirstKept = strp(f.FirstKept)
	row.StopReason, row.Error, row.Command, row.TokensBefore = strp(f.StopReason), strp(f.Error), strp(f.Command), f.TokensBefore
	if p.file.Version < 2 && f.FirstKeptIndex != nil && int64(*f.FirstKeptIndex) < seq {
		row.FirstKeptSeq = int64(*f.FirstKeptIndex) // resolved by the writer
	}
	for _, u := range f.Usage {
		if u.TotalsOnly {
			s.addUsage(u.Usage)
			continue
		}
		p.usage(&row, u, b)
	}
	for _, c := range f.ToolCalls {
		b.calls = append(b.calls, toolCallRow{Offset: l.Offset, Index: c.Index, ID: c.ID, Name: c.Name, Command: strp(c.Command)})
		if p.path != nil {
			p.act.ts = append(p.act.ts, actTool{CallID: c.ID, Name: c.Name, Command: c.Command, Offset: l.Offset, Index: c.Index})
		}
	}
	if r := f.ToolResult; r != nil && r.CallID != "" {
		isErr := r.IsError
		size := r.Size
		b.calls = append(b.calls, toolCallRow{Offset: l.Offset, Index: -1, ID: r.CallID, Name: r.Tool, IsError: &isErr, Size: &size})
		if p.path != nil {
			p.act.ts = append(p.act.ts, actTool{CallID: r.CallID, Name: r.Tool, Offset: l.Offset, Index: -1, IsError: isErr, Size: size})
		}
	}
	if f.Label != nil {
		b.labels = append(b.labels, labelOp{Offset: l.Offset, TargetID: f.Label.Target, Label: f.Label.Text, TS: ln.Timestamp})
	}
	if f.Name != nil {
		s.Name = f.Name.Name // the latest session_info wins; empty clears
	}
	if p.inlineText || b.sideText {
		if rowid, ok := fts.RowID(p.textID, l.Number); ok {
			if text := pi.SearchText(p.file.Path, ln, s.Source == pidex.SourceOmp); text != "" {
				b.text = append(b.text, p.text.row(rowid, text))
			}
		}
	}
	if p.path != nil {
		p.path.add(&row, len(f.Usage) > 0)
		p.act.es = append(p.act.es, actEntryOf(&row, &f))
	}
	id, off := row.ID, row.Offset
	s.LeafID, s.LeafOffset = &id, &off
	s.EntryCount++
	p.file.LastID = row.ID
	b.entries = append(b.entries, row)
}

// identity returns the entry's id and parent id. v1 entries have none:
// like pi's migration, each gets an id and links to the previous entry,
// but the id is derived from the byte offset so it is stable across
// refreshes (pi's are random). An id-less entry in a later version gets an
// offset-derived id too, keeping it addressable.
func (p *parser) identity(l jsonl.Line, ln *schema.Line) (string, *string) {
	if p.file.Version < 2 {
		var parent *string
		if p.file.LastID != "" {
			prev := p.file.LastID
			parent = &prev
		}
		return "v1:" + strconv.FormatInt(l.Offset, 10), parent
	}
	id := "@" + strconv.FormatInt(l.Offset, 10)
	if ln.ID != nil {
		id = *ln.ID
	}
	parent := ln.ParentID
	if parent != nil && *parent == "" {
		parent = nil // pi tests parentId for truthiness
	}
	return id, parent
}

// message fills the message-specific columns and the listing counters with
// pi's buildSessionInfo rules.
func (p *parser) message(row *entryRow, ln *schema.Line) {
	s := p.sess
	s.MessageCount++
	m := ln.Message
	if m == nil {
		return
	}
	role := pi.RoleName(m)
	row.Role = &role
	if m.Timestamp != 0 {
		t := int64(m.Timestamp)
		row.MsgTS = &t
	}
	if !pi.CountsForActivity(m) {
		return
	}
	if t, ok := activityTime(row, ln); ok && t > 0 && (s.LastActivityMs == nil || t > *s.LastActivityMs) {
		s.LastActivityMs = &t
	}
	if s.FirstMessage == nil {
		if text := pi.FirstMessageText(m); text != "" {
			s.FirstMessage = &text
		}
	}
}

// activityTime is pi's getMessageActivityTime: the message's numeric
// timestamp, else the entry's ISO timestamp.
func activityTime(row *entryRow, ln *schema.Line) (int64, bool) {
	if row.MsgTS != nil {
		return *row.MsgTS, true
	}
	return js.ParseDate(ln.Timestamp)
}

func (p *parser) usage(row *entryRow, u pi.UsageRecord, b *batch) {
	ur := usageRow{Offset: row.Offset, Source: u.Source, EntryID: row.ID, Provider: u.Provider, Model: u.Model,
		Kind: u.Kind, ResponseID: u.ResponseID, U: u.Usage}
	// A call's time is its entry's (when pi recorded the response), as
	// the usage reporters count it; the message's start time only when
	// the entry's does not parse.
	ur.TSMs = row.TSMs // the entry's time already, unless the message had its own
	if row.MsgTS != nil {
		if ms, ok := js.ParseDate(row.TS); ok {
			ur.TSMs = &ms
		}
	}
	b.usage = append(b.usage, ur)
	p.sess.addUsage(u.Usage)
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// emitUnreadable records a file that cannot be opened or read
// (permissions, a dangling or looping link, not a regular file, an I/O
// error) as unreadable with one warning, so that
// `pidex warnings` lists it and the next refreshes, finding it unchanged,
// do not report it again.
func emitUnreadable(j job, err error, emit func(*batch) error) error {
	b := &batch{reset: true, last: true, quiet: j.quiet}
	b.file.Path, b.file.Root, b.file.Kind = j.cand.Path, j.cand.Root, FileUnreadable
	b.file.Size, b.file.MtimeNs, b.file.Dev, b.file.Ino = j.cand.Size, j.cand.MtimeNs, j.cand.Dev, j.cand.Ino
	b.warns = []pidex.Warning{{Path: j.cand.Path, Line: 0, Message: "cannot read the file: " + err.Error()}}
	return emit(b)
}
