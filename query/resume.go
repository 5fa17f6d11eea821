package query

import (
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/files"
	"github.com/pidex-dev/pidex/internal/text"
)

// Resume is the command that continues a session in the agent that wrote
// it (pidex.NewResume), from what the catalog knows of it: its listing
// record, its format version, the entry o.Leaf names, and OpenClaw's key
// for it.
func (rd *Reader) Resume(ctx context.Context, ref pidex.SessionRef, o pidex.ResumeOptions) (*pidex.Resume, error) {
	info, err := rd.Info(ctx, ref)
	if err != nil {
		return nil, err
	}
	f := pidex.ResumeFacts{Session: info}
	b := rd.backend()
	db := b.Rows()
	if err := db.QueryRowContext(ctx, db.Rebind(`SELECT version FROM sessions s WHERE `+b.Dialect().FileIs("s")), ref.FileID).Scan(&f.Version); err != nil {
		return nil, sessionError(ref.FileID, err)
	}
	if o.Leaf != "" && (info.LeafID == nil || o.Leaf != *info.LeafID) {
		if f.Target, err = rd.entryMark(ctx, ref, o.Leaf); err != nil {
			return nil, err
		}
	}
	if info.Source == pidex.SourceOpenClaw && ref.Machine == "" {
		f.Key, f.Checkpoint = openClawKey(info.Path, info.ID)
	}
	return pidex.NewResume(f, o)
}

// entryMark names an entry of a session for a reader to find it: its line,
// kind and preview. An id the session does not hold is not found.
func (rd *Reader) entryMark(ctx context.Context, ref pidex.SessionRef, id string) (*pidex.EntryMark, error) {
	path, err := rd.Path(ctx, ref, id)
	if err != nil {
		return nil, err
	}
	e := path[len(path)-1]
	previews, err := rd.Previews(ctx, ref)
	if err != nil {
		return nil, err
	}
	return &pidex.EntryMark{ID: e.ID, Kind: e.Kind(), Line: e.Line, Preview: text.Cut(previews[e.Offset], 80)}, nil
}

// maxIndex bounds the OpenClaw index read for a key: it holds one small
// object per session.
const maxIndex = 64 << 20

// openClawKey is OpenClaw's key for the session in file path: the key of
// sessions.json beside it whose sessionFile is the file, or, for a
// checkpoint copy (<id>.checkpoint.<uuid>.jsonl), whose sessionId is id.
// "" when there is no such index or key (it is OpenClaw's file, not
// pidex's: anything unreadable only means no key).
func openClawKey(path, id string) (key string, checkpoint bool) {
	f, err := files.OpenRegular(filepath.Join(filepath.Dir(path), "sessions.json"))
	if err != nil {
		return "", false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	var index map[string]struct {
		SessionID   string `json:"sessionId"`
		SessionFile string `json:"sessionFile"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxIndex)).Decode(&index); err != nil {
		return "", false
	}
	base := filepath.Base(path)
	checkpoint = strings.Contains(base, ".checkpoint.")
	var byID []string
	for k, v := range index {
		if !checkpoint && v.SessionFile != "" && filepath.Base(v.SessionFile) == base {
			return k, false
		}
		if v.SessionID == id {
			byID = append(byID, k)
		}
	}
	if len(byID) == 1 {
		return byID[0], checkpoint
	}
	return "", checkpoint
}
