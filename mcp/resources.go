package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/render"
)

// viewsURI is the SQL views' reference, for a model writing query_sql
// statements (the tool's description lists only the columns' names).
const viewsURI = "pidex://sql-views"

func (s *Server) addTools() {
	s.addSearch()
	s.addList()
	s.addSession()
	s.addRead()
	s.addExport()
	s.addCost()
	s.addActivity()
	s.addSQL()
}

func (s *Server) addResources() {
	s.sdk.AddResource(&sdk.Resource{URI: viewsURI, Name: "sql-views", Title: "SQL views of the session catalog", MIMEType: "text/markdown",
		Description: "Every view query_sql can read, each column with its meaning, pidex's SQL functions, and example statements."},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: viewsURI, MIMEType: "text/markdown", Text: viewsDoc()}}}, nil
		})
}

func viewsDoc() string {
	return `# SQL views of pidex's catalog

query_sql runs one read-only SQLite statement on these views. Times are Unix milliseconds (ts_ms,
created_ms, modified_ms) unless a column is named timestamp (ISO 8601 as pi wrote it):
datetime(ts_ms / 1000, 'unixepoch') reads one. Two functions read entries back from their session
files (about a millisecond a row on large lines: filter first):

- entry_json(path, offset) — the entry's JSON line: json_extract(entry_json(path, offset), '$.message.stopReason')
- entry_text(path, offset) — the entry's searchable text

## Views

` + render.ViewReference(pidex.Views) + `## Examples

Sessions by cost:

    SELECT project, COALESCE(name, substr(first_message, 1, 40)) AS session, message_count, round(cost, 4) AS cost
    FROM sessions_v ORDER BY cost DESC LIMIT 10

Tools that fail most:

    SELECT tool, count(*) AS calls, sum(is_error) AS errors FROM tool_calls_v
    GROUP BY tool ORDER BY errors DESC LIMIT 10

Sessions that touched a file:

    SELECT substr(session_id, 1, 8) AS session, tool, count(*) AS calls FROM tool_calls_v
    WHERE arguments LIKE '%src/cli.ts%' GROUP BY session_id, tool ORDER BY calls DESC

Money spent on abandoned branches, per session:

    SELECT session_id, count(*) AS calls, round(sum(cost), 4) AS abandoned_cost FROM usage_v
    WHERE on_active_path = 0 AND is_fork_copy = 0 GROUP BY session_id ORDER BY abandoned_cost DESC LIMIT 10
`
}
