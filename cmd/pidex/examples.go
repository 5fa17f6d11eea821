package main

import "github.com/spf13/cobra"

// examples are the EXAMPLES section of each command's help: a few lines a
// new user can run as they are (the ids are of the bundled corpus: add
// --sessions testdata/sessions to try them there).
var examples = map[string]string{
	"pidex": `  pidex list                                  # every session, newest first
  pidex search flaky test                     # find what was said, in every session
  pidex show 01a09f30                         # read one (an id prefix, a name or a path)
  pidex cost --by week,model --chart          # where the money went
  pidex serve --open                          # the same in a browser`,
	"index": `  pidex index                   # refresh: reads only what changed
  pidex index --full            # rebuild the catalog from the session files
  pidex index --watch           # keep it current, a line per change
  pidex index --json | jq .text # what the text pass did`,
	"list": `  pidex list --limit 10
  pidex list --project api --since 7d
  pidex list --cwd . --sort cost
  pidex list --json | jq -r '.[] | select(.cost > 1) | .path'`,
	"tree": `  pidex tree 01a09f30
  pidex tree 01a09f30 --path-only
  pidex tree 01a09f30 --json --flat | jq -c 'select(.label)'`,
	"path": `  pidex path 01a09f30
  pidex path 01a09f30 --leaf ae21c73b
  pidex path ~/.pi/agent/sessions/--home-ann-app--/2026-09-14T09-12-03-117Z_01a09f30.jsonl --json`,
	"show": `  pidex show 01a09f30
  pidex show 01a09f30 --leaf ae21c73b --thinking
  pidex show 01a09f30 --context          # exactly what pi would send the model
  pidex show 01a09f30 --full --no-pager > session.txt`,
	"stats": `  pidex stats                               # how the work went, all sessions
  pidex stats --by week --since 30d         # per week: turns, tools, errors, active time
  pidex stats --by model --project api      # which model fails more, in one project
  pidex stats --chart --tz Europe/Paris     # when you work: active time by hour
  pidex stats --json | jq '.tools[] | select(.errorRate > 0.1)'`,
	"resume": `  pidex resume 01a09f30                  # pi --session, in the session's folder
  pidex resume 01a09f30 --fork           # a new session from it; the file stays as it is
  pidex resume 01a09f30 --leaf ae21c73b  # says how to reach that entry in pi (/tree)
  pidex resume 01a09f30 --print          # the command, to run elsewhere
  pidex resume 01a09f30 -- --model sonnet`,
	"export": `  pidex export 01a09f30 > handoff.md               # Markdown for a person or an agent
  pidex export 01a09f30 -o session.html            # one page, every branch, works offline
  pidex export 01a09f30 --format json --context    # the model context pi rebuilds
  pidex export 01a09f30 --redact -o handoff.md     # secrets replaced, as push --redact
  pidex export --project api --since 7d -o handoff/ # one file per session`,
	"search": `  pidex search flaky test                 # entries with both words
  pidex search '"connection refused"' --role tool
  pidex search migrat* --project api --since 30d --sort newest
  pidex search parse_header --sessions-only
  pidex search cache --limit 20 --offset 20   # the next page
  pidex search -- -draft notes            # a query that starts with -`,
	"cost": `  pidex cost                                   # per day, in the local zone
  pidex cost --by month,model --since 2026-01-01
  pidex cost --by week --chart --tz UTC
  pidex cost --by session --branch abandoned   # money spent on branches left behind
  pidex cost --by session --rollup             # each session with its subagents' calls
  pidex cost --by model --estimate             # price the calls pi recorded at $0 without a price
  pidex cost --by model --reprice model_prices_and_context_window.json --csv`,
	"prices": `  pidex prices claude-opus                     # the table's prices of the models named so
  pidex prices --missing                       # the catalog's models it has no price for
  pidex prices --json | jq '.date, .sources[].name'`,
	"sql": `  pidex sql "SELECT name, cost FROM sessions_v ORDER BY cost DESC LIMIT 5"
  pidex sql -f report.sql --format csv > report.csv
  pidex sql --param since=2026-11-01 "SELECT count(*) FROM messages_v WHERE ts >= :since"
  echo "SELECT tool, count(*) FROM tool_calls_v GROUP BY tool" | pidex sql`,
	"schema": `  pidex schema
  pidex schema --json | jq -r '.[].name'`,
	"roots": `  pidex roots
  pidex roots --json | jq -r '.[] | select(.found) | .path'
  pidex --sessions omp:~/.omp/agent/sessions roots`,
	"push": `  export PIDEX_PG=postgres://ann@db.example/pidex         # the password: ~/.pgpass or PGPASSWORD
  pidex push --machine ann-laptop                         # send what changed since the last push
  pidex push --machine ann-laptop --redact --project api
  pidex push --machine ann-laptop --watch                 # keep the team catalog current
  PIDEX_CATALOG=$PIDEX_PG pidex list --machine ann-laptop # read it back
  pidex push --machine ann-laptop --to https://pidex.example:7374/  # through a team server, with a token`,
	"team": `  export PIDEX_PG=postgres://admin@db.example/pidex        # the owner; its password in ~/.pgpass
  pidex team init --apply                                  # groups, schema, privileges
  pidex team add-machine ann-laptop --role ann --apply --password-stdin
  pidex team add-reader lead --apply --password-stdin
  pidex team revoke ann ann-laptop --apply                 # ann may push ann-laptop no more`,
	"push-server": `  PIDEX_PG=postgres://pidexd@db.example/pidex pidex push-server        # on loopback, behind a TLS proxy
  PIDEX_PG=postgres://pidexd@db.example/pidex pidex push-server --addr 0.0.0.0:7374 \
      --tls-cert /etc/pidex/cert.pem --tls-key /etc/pidex/key.pem
  pidex push --machine ann-laptop --to https://pidex.example:7374/   # on ann's laptop: its token in ~/.config/pidex/push-token`,
	"team add-token": `  pidex team add-token ann-laptop --role pidexd > ann-laptop.token   # shown once; the catalog keeps its hash
  pidex team add-token ci-1 ci-2 --role pidexd --label "CI runners"
  pidex team add-token ann-laptop --json | jq -r .token`,
	"team tokens": `  pidex team tokens
  pidex team tokens --json | jq '.[] | select(.revoked_ms == null) | .machines'`,
	"team revoke-token": `  pidex team tokens                          # find its ID
  pidex team revoke-token 3 --apply
  pidex team revoke-token 3                  # print the SQL`,
	"team init": `  pidex team init                                          # print the SQL
  PIDEX_PG=postgres://admin@db.example/pidex pidex team init --apply`,
	"team add-machine": `  pidex team add-machine ann-laptop --role ann             # print the SQL
  pidex team add-machine ann-laptop --role ann --apply --password-stdin
  pidex team add-machine ci-runner --apply                 # a role of its own, named ci-runner`,
	"team add-reader": `  pidex team add-reader lead
  pidex team add-reader lead --apply --password-stdin < lead.password`,
	"team revoke": `  pidex team revoke ann ann-laptop --apply   # one machine
  pidex team revoke ann --apply              # every machine, and reading`,
	"warnings": `  pidex warnings
  pidex warnings --json | jq -r '.[].path' | sort -u`,
	"serve": `  pidex serve
  pidex serve --open
  pidex serve --addr 127.0.0.1:0
  pidex serve --addr 0.0.0.0:7373 --token "$(openssl rand -hex 16)"`,
	"completion": `  source <(pidex completion bash)                          # this shell
  pidex completion bash > /etc/bash_completion.d/pidex       # every bash
  pidex completion zsh > "${fpath[1]}/_pidex"
  pidex completion fish > ~/.config/fish/completions/pidex.fish
  pidex completion powershell | Out-String | Invoke-Expression`,
	"mcp": `  pi mcp add pidex -- pidex mcp          # register it with pi
  pidex mcp                              # stdio, as a client starts it
  pidex mcp --http 127.0.0.1:7374`,
}

// addExamples sets each command's EXAMPLES section from examples.
func addExamples(root *cobra.Command) {
	root.InitDefaultCompletionCmd() // cobra adds it when it runs: now, so that it has examples too
	root.Example = examples["pidex"]
	for _, c := range root.Commands() {
		if e, ok := examples[c.Name()]; ok && c.Example == "" {
			c.Example = e
		}
	}
}
