package postgres

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/pidex-dev/pidex/internal/redact"
)

// outbound is what a push does to a file's values on their way to the
// team catalog: every string (every column of every table, the file's
// path, root and base, the raw lines) is valid PostgreSQL text and, with
// --redact, goes through the redactor (internal/redact), each
// replacement counted. One place, so that no field is forgotten.
type outbound struct {
	redact bool
	// dir and safeDir: the session's working directory as pi names the
	// folder of its sessions (--home-u-app--), and the same of the
	// redacted directory: pi's naming turns a URL's "://" and ":" into
	// dashes, where no rule would recognize a password any more.
	dir, safeDir string
}

// outboundFor is the file's outbound: with --redact, and a working
// directory that holds a secret, its folder name is replaced too.
func (p *pusher) outboundFor(l localFile) outbound {
	o := outbound{redact: p.o.Redact}
	if !o.redact || l.Cwd == nil {
		return o
	}
	if safe, n := redact.String(*l.Cwd); n > 0 {
		o.dir, o.safeDir = piDir(*l.Cwd), piDir(safe)
	}
	return o
}

// piDir is the name of the folder pi keeps a working directory's
// sessions in.
func piDir(cwd string) string {
	cwd = strings.TrimLeft(cwd, `/\`)
	return "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(cwd) + "--"
}

// text is s as it leaves: valid text, redacted with --redact (the
// replacements added to *n).
func (o outbound) text(s string, n *int64) string {
	s = pgText(s)
	if !o.redact {
		return s
	}
	if o.dir != "" && strings.Contains(s, o.dir) {
		*n += int64(strings.Count(s, o.dir) * strings.Count(o.safeDir, redact.Marker))
		s = strings.ReplaceAll(s, o.dir, o.safeDir)
	}
	s, k := redact.Text(s)
	*n += int64(k)
	return s
}

// path is the file's path in the team catalog: the key a push finds the
// file by, so it is computed the same way each time (uncounted; the
// writes count).
func (o outbound) path(local string) string {
	var n int64
	return o.text(local, &n)
}

// base is the file's name in the team catalog.
func (o outbound) base(local string, n *int64) string {
	return o.text(filepath.Base(local), n)
}

// line is a raw JSON line as it leaves (redacted with --redact).
func (o outbound) line(raw []byte, n *int64) []byte {
	if !o.redact {
		return raw
	}
	if o.dir != "" && bytes.Contains(raw, []byte(o.dir)) {
		*n += int64(bytes.Count(raw, []byte(o.dir)) * strings.Count(o.safeDir, redact.Marker))
		raw = bytes.ReplaceAll(raw, []byte(o.dir), []byte(o.safeDir))
	}
	raw, k := redact.Line(raw)
	*n += int64(k)
	return raw
}

// redactFormat is how a push's format names its redaction: the ruleset,
// so that files pushed under other rules (or none) are pushed again.
func redactFormat(on bool) string {
	if !on {
		return "false"
	}
	return redact.Ruleset
}
