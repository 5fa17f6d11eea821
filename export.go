package pidex

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Export formats (pidex export --format).
const (
	FormatMarkdown = "md"   // the conversation for a person or another agent to read
	FormatHTML     = "html" // one self-contained page: every branch, the tree, serve's look
	FormatJSON     = "json" // the branch's entries as pi holds them, or the model context
)

// ExportFormats lists the formats, the default first.
var ExportFormats = []string{FormatMarkdown, FormatHTML, FormatJSON}

// DefaultMaxOutput is how much of each tool output, tool argument and
// system prompt a Markdown export keeps unless told otherwise: enough to
// follow the work, not a log dump.
const DefaultMaxOutput = 4096

// ExportOptions say how to write a session for someone else (pidex
// export, the web page's downloads, the MCP server's hand-off).
type ExportOptions struct {
	Format string // one of ExportFormats ("": Markdown)
	// Leaf is where the branch ends ("": the session's current leaf); an
	// HTML export opens on that branch and holds the others too.
	Leaf string
	// Context writes the model context pi rebuilds at the leaf instead of
	// the branch's entries (Markdown and JSON).
	Context bool
	// Redact replaces secrets with a marker, as push --redact does.
	Redact bool
	// Thinking writes thinking text, not only its length (Markdown).
	Thinking bool
	// MaxOutput cuts each tool output, tool argument and system prompt
	// of a Markdown export to this many bytes (0: whole).
	MaxOutput int
}

// Filter applies the defaults and checks the options.
func (o *ExportOptions) Filter() error {
	if o.Format == "" {
		o.Format = FormatMarkdown
	}
	if !slices.Contains(ExportFormats, o.Format) {
		return badOption("format", o.Format, oneOf(ExportFormats))
	}
	if o.Context && o.Format == FormatHTML {
		return badOption("context", "true", "want md or json: an HTML export holds every branch, the model context is one leaf's")
	}
	if o.MaxOutput < 0 {
		return badOption("maxOutput", strconv.Itoa(o.MaxOutput), "want a number of bytes, 0 (whole) or more")
	}
	return nil
}

// FormatOf is the export format a file name asks for by its extension
// ("": none of them).
func FormatOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".markdown":
		return FormatMarkdown
	case ".html", ".htm":
		return FormatHTML
	case ".json":
		return FormatJSON
	}
	return ""
}
