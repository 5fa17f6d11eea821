// Package export writes a session for someone else: Markdown for a
// person or another agent to read, one self-contained HTML page, or JSON
// (pidex export, the web page's downloads, the MCP server's hand-off).
// Each format is built from the catalog's reads (pidex.Catalog), and
// redacted, when asked, before it is written: nothing unredacted reaches
// the writer.
package export

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	pathpkg "path"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/redact"
	"github.com/pidex-dev/pidex/internal/render"
)

// Write writes the session ref names to w in o.Format (o filtered first).
// Markdown and HTML are built whole before the first byte is written: a
// session that cannot be read leaves w empty, not half a file. JSON is
// written as it is read (a session of any size in the memory of a few of
// its lines); a line that cannot be read after the first entry ends the
// array there, still one valid JSON document, and is the error.
func Write(ctx context.Context, cat pidex.Catalog, ref pidex.SessionRef, o pidex.ExportOptions, w io.Writer) error {
	if err := o.Filter(); err != nil {
		return err
	}
	if o.Format == pidex.FormatJSON {
		return writeJSON(ctx, cat, ref, o, w)
	}
	var buf bytes.Buffer
	var err error
	switch o.Format {
	case pidex.FormatHTML:
		err = writeHTML(ctx, cat, ref, o, &buf)
	default:
		err = Markdown(ctx, cat, ref, o, &buf)
	}
	if err != nil {
		return err
	}
	_, err = buf.WriteTo(w)
	return err
}

// BaseName is what an export of the session file at path is called, but
// for its extension: the file's name without .jsonl (the CLI's -o DIR,
// the web page's downloads). A path written on Windows (a team catalog
// holds other machines' paths) is split at its backslashes too.
func BaseName(path string) string {
	return strings.TrimSuffix(pathpkg.Base(strings.ReplaceAll(path, `\`, "/")), ".jsonl")
}

// Markdown writes the branch (or with o.Context the model context) as
// Markdown: render.Markdown, with the command that resumes the session.
func Markdown(ctx context.Context, cat pidex.Catalog, ref pidex.SessionRef, o pidex.ExportOptions, w io.Writer) error {
	info, err := cat.Info(ctx, ref)
	if err != nil {
		return err
	}
	doc, err := cat.Read(ctx, ref, pidex.ReadOptions{Leaf: o.Leaf, Context: o.Context})
	if err != nil {
		return err
	}
	mo := render.MarkdownOptions{Thinking: o.Thinking, MaxOutput: o.MaxOutput}
	if r, err := cat.Resume(ctx, ref, pidex.ResumeOptions{}); err == nil {
		mo.Resume = r.Command
	}
	if o.Redact {
		redact.Document(doc, &info)
		mo.Resume, _ = redact.String(mo.Resume)
	}
	return render.Markdown(w, doc, info, mo)
}

// EntriesJSON writes the entries of the path to leaf as pi holds them
// (`pidex show --json`, the JSON export, serve's entries): an array
// written one entry at a time as it is read, each redacted on its own
// when redacted is set (the redactor rewrites string literals, which no
// entry shares).
func EntriesJSON(ctx context.Context, cat pidex.Catalog, ref pidex.SessionRef, leaf string, redacted bool, w io.Writer) error {
	return render.StreamJSON(w, func(add func(any) error) error {
		return cat.EntryObjects(ctx, ref, leaf, func(e json.RawMessage) error {
			if redacted {
				if e, _ = redact.Line(e); !json.Valid(e) {
					return fmt.Errorf("redact session %s: the redacted JSON is not valid", ref.SessionID)
				}
			}
			return add(e)
		})
	})
}

// writeJSON writes what `pidex show --json` prints: the entries of the
// branch, each as pi holds it, or with o.Context the model context pi
// rebuilds (`pidex show --context --json`).
func writeJSON(ctx context.Context, cat pidex.Catalog, ref pidex.SessionRef, o pidex.ExportOptions, w io.Writer) error {
	if !o.Context {
		return EntriesJSON(ctx, cat, ref, o.Leaf, o.Redact, w)
	}
	sc, err := cat.Context(ctx, ref, o.Leaf)
	if err != nil {
		return err
	}
	if !o.Redact {
		return render.WriteJSON(w, sc)
	}
	var buf bytes.Buffer
	if err := render.WriteJSON(&buf, sc); err != nil {
		return err
	}
	out, _ := redact.Line(buf.Bytes())
	if !json.Valid(out) {
		return fmt.Errorf("redact session %s: the redacted JSON is not valid", ref.SessionID)
	}
	_, err = w.Write(out)
	return err
}
