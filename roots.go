package pidex

// Sources: the agents whose session files pidex reads. Each writes pi's
// format (oh-my-pi a dialect of it, OpenClaw through pi's own
// SessionManager); a session carries the name of the one that wrote it.
const (
	SourcePi       = "pi"       // pi (@earendil-works/pi-coding-agent)
	SourceOmp      = "omp"      // oh-my-pi (@oh-my-pi/pi-coding-agent)
	SourceOpenClaw = "openclaw" // OpenClaw (pi's SessionManager, its own layout)
)

// Sources lists every source, in the order roots are looked for.
var Sources = []string{SourcePi, SourceOmp, SourceOpenClaw}

// Root is a folder pidex reads session files from, with the agent whose
// layout it has and why pidex reads it (`pidex roots`).
type Root struct {
	Path   string `json:"path"`   // absolute
	Source string `json:"source"` // one of Sources
	// Flat: the session files lie in the folder itself (pi's sessionDir);
	// otherwise one folder per project (or per agent) under it.
	Flat bool `json:"flat"`
	// Why says where the path comes from: a flag, a variable, a settings
	// file, a default.
	Why string `json:"why"`
	// Found: the folder exists.
	Found bool `json:"found"`
	// Note is what else a reader should know ("" when nothing): a setting
	// pi would reject, an archive pidex does not read.
	Note string `json:"note,omitempty"`
	// Read: pidex reads it (false for what is listed only to say so).
	Read bool `json:"read"`
}
