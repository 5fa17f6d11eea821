package query

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pidex-dev/pidex"
	"github.com/pidex-dev/pidex/internal/text"
	"github.com/pidex-dev/pidex/pi"
)

// A condition is defined once, as a field, a comparison and a value, and
// from that one definition come the SQL for SQLite, the SQL for
// PostgreSQL (Conds.SQL in each Dialect) and the test on the rows the
// read caches hold (Conds.Sessions, Conds.Usage). Every statement of the
// read side names its tables alike: s sessions, f files, e entries, x
// usage rows (records or rollups), mm machines.

// Dialect is how a catalog spells what SQLite and PostgreSQL do not agree
// on.
type Dialect struct {
	// Machines: the catalog holds several machines' files (a team
	// catalog): statements join machines mm to files f.
	Machines bool
	// ActivityTotals: the catalog keeps the activity rows summed over the
	// whole history (SQLite's migration 00020: activity_all,
	// activity_tools_all, activity_hours, activity_quarters and
	// session_activity.branch_points), kept equal to them by triggers. A
	// team catalog does not: its pushes would all meet on those rows.
	ActivityTotals bool
	// contains writes "col contains the argument", ASCII letters folded
	// as SQLite's lower() folds them.
	contains func(col string) string
}

// The two catalogs' dialects.
var (
	SQLite = Dialect{
		ActivityTotals: true,
		contains:       func(col string) string { return "instr(lower(" + col + "), lower(?)) > 0" },
	}
	// PostgreSQL's lower() of a COLLATE "C" value folds ASCII only, as
	// SQLite's does.
	Postgres = Dialect{
		Machines: true,
		contains: func(col string) string { return "strpos(lower(" + col + `), lower(?::text COLLATE "C")) > 0` },
	}
)

// machineJoin joins machines mm to files f ("" without machines).
func (d Dialect) machineJoin() string {
	if d.Machines {
		return " JOIN machines mm ON mm.id = f.machine_id"
	}
	return ""
}

// machineCol is a row's machine name (” without machines).
func (d Dialect) machineCol() string {
	if d.Machines {
		return "mm.name"
	}
	return "''"
}

// sessionsFrom is sessions s with their files f (and machines mm).
func (d Dialect) sessionsFrom() string {
	return " FROM sessions s JOIN files f ON f.id = s.file_id" + d.sameMachine("f", "s") + d.machineJoin()
}

// sameMachine is "file a is on the machine of file b" (always, without
// machines).
func (d Dialect) sameMachine(a, b string) string {
	if d.Machines {
		return " AND " + a + ".machine_id = " + b + ".machine_id"
	}
	return ""
}

// FileIs is "the row of alias is of the file ?" (its argument a file
// id). The team catalog's keys start with the machine (docs/postgres.md,
// "Keys and partitions"): there the file's machine, found by its id, is
// named too, so that the lookup uses the key (and, in a catalog
// partitioned by machine, reads one partition).
func (d Dialect) FileIs(alias string) string {
	if d.Machines {
		return "(" + alias + ".machine_id, " + alias + ".file_id) = (SELECT machine_id, id FROM files WHERE id = ?)"
	}
	return alias + ".file_id = ?"
}

// A field is a column conditions test.
type field struct {
	sql string // its expression in the read statements
	// dsql, if set, is the expression in a dialect (sql is then unused).
	dsql func(Dialect) string
	// needs are the tables a usage statement must join for it (s: the
	// session, f: its file, and machine); the others have them all.
	needs string
	// The field in the rows the read caches hold; nil: those rows do not
	// have it (a condition on it needs the SQL).
	session func(*SessionRow) value
	usage   func(*UsageRow) value
}

// value is a field's value in a cached row: text, a number (a flag is 0
// or 1), or NULL.
type value struct {
	s    string
	n    int64
	null bool
}

func textOf(s string) value { return value{s: s} }

// fields are what conditions test, by the names filters give them
// (pidex.On.Field).
var fields = map[string]field{
	"session.cwd":           {sql: "s.cwd", needs: "s", session: func(r *SessionRow) value { return textOf(r.Cwd) }},
	"session.name":          {sql: "s.name", needs: "s", session: func(r *SessionRow) value { return optText(r.Name) }},
	"session.id":            {sql: "s.session_id", needs: "s", session: func(r *SessionRow) value { return textOf(r.SessionID) }},
	"session.agent":         {sql: "s.source", needs: "s", session: func(r *SessionRow) value { return textOf(r.Source) }},
	"session.first_message": {sql: "s.first_message", needs: "s", session: func(r *SessionRow) value { return textOf(r.FirstMessage) }},
	"session.modified":      {sql: modifiedSQL, session: func(r *SessionRow) value { return value{n: r.Modified} }},
	"file.root":             {sql: "f.root", needs: "f", session: func(r *SessionRow) value { return textOf(r.Root) }},
	"machine.name":          {sql: "mm.name", needs: "f", session: func(r *SessionRow) value { return textOf(r.Machine) }},
	// Subagents (indexer/spawn.go): a session some other session started
	// (session.child); one shown beneath that session, which the catalog
	// holds (session.nested; a child whose parent file is gone is not);
	// and the family, the file of the session at the top of the chain of
	// parents (its own file for a session nobody started), by which a
	// report rolls subagents into the session that started them.
	"session.child":  {sql: "(s.spawned_by <> '')", needs: "s", session: func(r *SessionRow) value { return flag(r.SpawnedBy != "") }},
	"session.nested": {dsql: nestedSQL, needs: "sf", session: func(r *SessionRow) value { return flag(r.Nested) }},
	"session.family": {sql: familySQL, needs: "sf", session: func(r *SessionRow) value { return textOf(r.FamilyPath()) }},
	"entry.file":     {sql: "e.file_id"},
	"entry.model":    {sql: "e.model"},
	"entry.time":     {sql: "e.ts_ms"},
	"call.file":      {sql: "x.file_id", usage: func(r *UsageRow) value { return value{n: r.FileID} }},
	"call.model":     {sql: "x.provider || '/' || x.model", usage: func(r *UsageRow) value { return textOf(r.Provider + "/" + r.Model) }},
	"call.source":    {sql: "x.source", usage: func(r *UsageRow) value { return textOf(r.Source) }},
	"call.copy":      {sql: "x.is_copy", usage: func(r *UsageRow) value { return flag(r.IsCopy) }},
	"call.active":    {sql: "x.active", usage: func(r *UsageRow) value { return flag(r.Active) }},
	"stats.bucket":   {sql: "x.bucket"},
}

func optText(s *string) value {
	if s == nil {
		return value{null: true}
	}
	return textOf(*s)
}

func flag(b bool) value {
	if b {
		return value{n: 1}
	}
	return value{}
}

// op is a comparison.
type op int

const (
	opEq       op = iota // = text
	opContains           // contains text, ASCII letters folded
	opIn                 // one of texts
	opAtLeast            // >= number
	opBefore             // < number
	opNumEq              // = number
	opNumIn              // one of numbers
	opIs                 // the flag is set (or not)
	opGroup              // the entry belongs to a search group of the registry (package pi)
)

// Cond is one condition.
type Cond struct {
	field field
	name  string // the field's name, for messages
	op    op
	text  string
	texts []string
	num   int64
	nums  []int64
}

// on is a condition on the field of that name.
func on(name string, o op) Cond {
	f, ok := fields[name]
	if !ok {
		panic(fmt.Sprintf("query: no field %q", name)) // a filter registered with a field this package lacks
	}
	return Cond{field: f, name: name, op: o}
}

func eq(name, v string) Cond            { c := on(name, opEq); c.text = v; return c }
func contains(name, v string) Cond      { c := on(name, opContains); c.text = v; return c }
func in(name string, v []string) Cond   { c := on(name, opIn); c.texts = v; return c }
func atLeast(name string, n int64) Cond { c := on(name, opAtLeast); c.num = n; return c }
func before(name string, n int64) Cond  { c := on(name, opBefore); c.num = n; return c }
func numEq(name string, n int64) Cond   { c := on(name, opNumEq); c.num = n; return c }
func numIn(name string, n []int64) Cond { c := on(name, opNumIn); c.nums = n; return c }
func is(name string, set bool) Cond {
	c := on(name, opIs)
	if set {
		c.num = 1
	}
	return c
}

// inGroup: the entry (e) belongs to the registry's search group g.
func inGroup(g string) Cond { return Cond{name: "entry.group", op: opGroup, text: g} }

// familySQL is a session's family: the file at the top of its chain of
// parents, its own file for a session nobody started.
const familySQL = "(CASE WHEN s.family = '' THEN f.path ELSE s.family END)"

// nestedSQL is "the session that started s is in the catalog" (on s's
// machine): s is then shown beneath it.
func nestedSQL(d Dialect) string {
	return "(s.spawned_by <> '' AND EXISTS (SELECT 1 FROM files pf JOIN sessions ps ON ps.file_id = pf.id" + d.sameMachine("ps", "pf") +
		" WHERE pf.path = s.spawned_by" + d.sameMachine("pf", "f") + "))"
}

// sql writes the condition and its arguments.
func (c Cond) sql(d Dialect) (string, []any) {
	col := c.field.sql
	if c.field.dsql != nil {
		col = c.field.dsql(d)
	}
	switch c.op {
	case opEq:
		return col + " = ?", []any{c.text}
	case opContains:
		return d.contains(col), []any{c.text}
	case opIn:
		return col + " IN (?" + strings.Repeat(",?", len(c.texts)-1) + ")", anys(c.texts)
	case opAtLeast:
		return col + " >= ?", []any{c.num}
	case opBefore:
		return col + " < ?", []any{c.num}
	case opNumEq:
		return col + " = ?", []any{c.num}
	case opNumIn:
		if len(c.nums) == 0 {
			return "FALSE", nil
		}
		args := make([]any, len(c.nums))
		for i, n := range c.nums {
			args[i] = n
		}
		return col + " IN (?" + strings.Repeat(",?", len(c.nums)-1) + ")", args
	case opIs:
		if c.num == 1 {
			return col + " = TRUE", nil
		}
		return col + " = FALSE", nil
	case opGroup:
		return pi.GroupSQL(c.text, "e")
	}
	panic("query: unknown comparison")
}

// test is the comparison on a cached row's value, as the SQL compares:
// NULL matches nothing.
func (c Cond) test() func(value) bool {
	switch c.op {
	case opEq:
		return func(v value) bool { return !v.null && v.s == c.text }
	case opContains:
		needle := text.ASCIILower(c.text)
		return func(v value) bool { return !v.null && strings.Contains(text.ASCIILower(v.s), needle) }
	case opIn:
		return func(v value) bool { return !v.null && slices.Contains(c.texts, v.s) }
	case opAtLeast:
		return func(v value) bool { return !v.null && v.n >= c.num }
	case opBefore:
		return func(v value) bool { return !v.null && v.n < c.num }
	case opNumEq, opIs:
		return func(v value) bool { return !v.null && v.n == c.num }
	case opNumIn:
		return func(v value) bool { return !v.null && slices.Contains(c.nums, v.n) }
	}
	return nil
}

// Conds are conditions that must all hold.
type Conds []Cond

// SQL writes the conditions joined by AND ("" for none), and their
// arguments.
func (cs Conds) SQL(d Dialect) (string, []any) {
	var parts []string
	var args []any
	for _, c := range cs {
		s, a := c.sql(d)
		parts, args = append(parts, s), append(args, a...)
	}
	return strings.Join(parts, " AND "), args
}

// only says every condition is on one of the fields named.
func (cs Conds) only(names ...string) bool {
	return !slices.ContainsFunc(cs, func(c Cond) bool { return !slices.Contains(names, c.name) })
}

// Needs reports whether a condition's field needs the table t joined (see
// field.needs: s the session, f its file and machine).
func (cs Conds) Needs(t string) bool {
	return slices.ContainsFunc(cs, func(c Cond) bool { return strings.Contains(c.field.needs, t) })
}

// Sessions is the conditions as a test on cached session rows; ok is
// false when a field is not in them.
func (cs Conds) Sessions() (test func(*SessionRow) bool, ok bool) {
	return rowTest(cs, func(f field) func(*SessionRow) value { return f.session })
}

// Usage is the conditions as a test on cached usage rows; ok is false
// when a field is not in them.
func (cs Conds) Usage() (test func(*UsageRow) bool, ok bool) {
	return rowTest(cs, func(f field) func(*UsageRow) value { return f.usage })
}

// rowTest is the conditions as a test on rows of type R, each field read
// by what of returns for it (nil: R does not hold it).
func rowTest[R any](cs Conds, of func(field) func(*R) value) (func(*R) bool, bool) {
	tests := make([]func(*R) bool, 0, len(cs))
	for _, c := range cs {
		get, cmp := of(c.field), c.test()
		if get == nil || cmp == nil {
			return nil, false
		}
		tests = append(tests, func(r *R) bool { return cmp(get(r)) })
	}
	return func(r *R) bool {
		for _, t := range tests {
			if !t(r) {
				return false
			}
		}
		return true
	}, true
}

// where is the conditions of the registry's filters that w gives values
// to, for operation op (w is checked: pidex's Filter methods).
func where(w pidex.Where, op pidex.Op) Conds {
	var cs Conds
	for _, f := range pidex.Filters(op) {
		v := w[f.Name]
		if v == "" {
			continue
		}
		name := f.On(op).Field
		switch f.Match {
		case pidex.Equal:
			cs = append(cs, eq(name, v))
		case pidex.Contains:
			cs = append(cs, contains(name, v))
		case pidex.OneOf:
			cs = append(cs, in(name, strings.Split(v, ",")))
		}
	}
	return cs
}

// inRoots is the condition "the file lies under one of roots" (none: no
// condition).
func inRoots(roots []string) Conds {
	if len(roots) == 0 {
		return nil
	}
	return Conds{in("file.root", roots)}
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
